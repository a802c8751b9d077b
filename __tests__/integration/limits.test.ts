/** Per-caller rpm, tpm and concurrency: each refuses with 429 + retry-after and recovers after its window. */
import { randomBytes } from 'node:crypto';
import express from 'express';
import Redis from 'ioredis';
import { createMetrics, health, type LoggerLike } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { sleep, type GatedFake } from '../helpers/fake-server';
import { addCaller, llmModels, logEntry, postMessages, startGateway, type RunningGateway } from '../helpers/gateway';
import { listen } from '../helpers/local';
import { dropPrefix, REDIS_URL, redisClient } from '../helpers/services';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

let upstream: GatedFake;
let gw: RunningGateway;

beforeAll(async () => {
  upstream = await startAnthropicFake();
  gw = await startGateway({
    models: llmModels(upstream.url, upstream.url, ['claude-json', 'claude-gated']),
    // Windows of 3 s: a test's requests fit in one however loaded the machine; recovery waits out retry-after.
    limits: { windowSec: 3, keyPrefix: `test-${randomBytes(4).toString('hex')}` },
  });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

async function call(key: string, model = 'claude-json', maxTokens = 64, on = gw): Promise<{ status: number; retryAfter: string | null; requestId: string; body: string }> {
  const res = await postMessages(on.url, key, model, { maxTokens });
  const out = { status: res.status, retryAfter: res.headers.get('retry-after'), requestId: res.headers.get('request-id') as string, body: await res.text() };
  await logEntry(on.store, out.requestId); // settled, so corrections are applied
  return out;
}

it('rpm: the 4th request in a window is refused with 429 and retry-after, and passes after the window', async () => {
  const { key } = addCaller(gw.store, { limits: { rpm: 3 } });
  for (let i = 0; i < 3; i++) expect((await call(key)).status).toBe(200);
  const refused = await call(key);
  expect(refused.status).toBe(429);
  expect(JSON.parse(refused.body).error).toEqual({ type: 'rate_limit_error', message: expect.stringMatching(/\(rpm\)/) });
  expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(await logEntry(gw.store, refused.requestId)).toMatchObject({ status: 429, errorCode: 'rate_limit_error' });
  await sleep(Number(refused.retryAfter) * 1000 + 100);
  expect((await call(key)).status).toBe(200);
});

it('tpm: counted from the estimate at admission and corrected to the confirmed usage at settle', async () => {
  // Each call is estimated at 10 + 64 = 74 tokens and confirmed at 25 + 15 = 40.
  const { key } = addCaller(gw.store, { limits: { tpm: 200 } });
  expect((await call(key)).status).toBe(200); // 74 counted, corrected to 40
  expect((await call(key)).status).toBe(200); // 40 + 74 -> 80
  expect((await call(key)).status).toBe(200); // 80 + 74 = 154 fits only because of the corrections
  expect((await call(key)).status).toBe(200); // 120 + 74 = 194 fits; one more does not
  const over = await call(key);
  expect(over.status).toBe(429);
  expect(JSON.parse(over.body).error.message).toMatch(/\(tpm\)/);
  const tooBig = await call(key, 'claude-json', 500);
  expect(tooBig.status).toBe(429);
  expect(JSON.parse(tooBig.body).error.message).toMatch(/more than the limit of 200 tokens per minute/);
  await sleep(Number(over.retryAfter) * 1000 + 100);
  expect((await call(key)).status).toBe(200);
});

it('concurrency: a third request while two are in flight is refused, and passes once they end', async () => {
  const { key } = addCaller(gw.store, { limits: { concurrency: 2 } });
  const inFlight = await Promise.all([openStream(key), openStream(key)]);
  const refused = await call(key);
  expect(refused.status).toBe(429);
  expect(refused.retryAfter).toBe('1');
  expect(JSON.parse(refused.body).error.message).toMatch(/\(concurrency\)/);
  upstream.openGates();
  expect(await Promise.all(inFlight.map((res) => ended(res)))).toEqual([200, 200]);
  expect((await call(key)).status).toBe(200);
});

it('a request refused by its second limit gives back what the first took: a later request is admitted', async () => {
  // concurrency 1 and tpm 100: the second call takes the slot, then tpm refuses it (40 used + 74 estimated).
  const { key } = addCaller(gw.store, { limits: { concurrency: 1, tpm: 100 } });
  expect((await call(key)).status).toBe(200);
  const refused = await call(key);
  expect(refused.status).toBe(429);
  expect(JSON.parse(refused.body).error.message).toMatch(/\(tpm\)/);
  expect((await call(key, 'claude-json', 20)).status).toBe(200); // 40 + 30 fits tpm; the slot must be free
});

it('defaults apply to every caller and a caller can override them', async () => {
  const shared = await startGateway({
    models: llmModels(upstream.url, upstream.url, ['claude-json']),
    limits: { windowSec: 3, keyPrefix: `test-${randomBytes(4).toString('hex')}`, defaults: { rpm: 1 } },
  });
  try {
    const a = addCaller(shared.store);
    const b = addCaller(shared.store, { limits: { rpm: 2 } });
    const hit = (key: string) => fetch(`${shared.url}/v1/messages`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-json', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }),
    }).then((r) => r.status);
    expect([await hit(a.key), await hit(a.key)]).toEqual([200, 429]);
    expect([await hit(b.key), await hit(b.key), await hit(b.key)]).toEqual([200, 200, 429]);
  } finally {
    await shared.close();
  }
});

/** A stream held open by the fake (`*-gated`): its answer's headers mean it was admitted and holds its slot. */
function openStream(key: string, on = gw): Promise<Response> {
  return postMessages(on.url, key, 'claude-gated', { stream: true });
}

/** Reads a stream to its end and waits for its settlement, so its slot is back; its status. */
async function ended(res: Response, on = gw): Promise<number> {
  await res.text();
  await logEntry(on.store, res.headers.get('request-id') as string);
  return res.status;
}

/** One request in flight holds the only slot; refused requests meanwhile must not keep slots of their own. */
async function refusedHoldNoSlot(on: RunningGateway): Promise<void> {
  const { key } = addCaller(on.store, { limits: { concurrency: 1 } });
  const held = await openStream(key, on);
  for (let i = 0; i < 3; i++) expect((await call(key, 'claude-json', 64, on)).status).toBe(429);
  upstream.openGates();
  expect(await ended(held, on)).toBe(200);
  expect([(await call(key, 'claude-json', 64, on)).status, (await call(key, 'claude-json', 64, on)).status]).toEqual([200, 200]);
}

it('concurrency: refused requests take no slot, so the caller gets its slot back when the request in flight ends', async () => {
  await refusedHoldNoSlot(gw);
});

it('Redis counters: refused requests take no slot there either, and a Redis that is down refuses with 500 api_error', async () => {
  const redis = await redisClient();
  const keyPrefix = `test-${randomBytes(4).toString('hex')}`;
  const shared = await startGateway({ models: llmModels(upstream.url, upstream.url, ['claude-json', 'claude-gated']), limits: { redis, keyPrefix, windowSec: 5 } });
  const down = await redisClient();
  down.disconnect();
  const broken = await startGateway({ models: llmModels(upstream.url, upstream.url, ['claude-json']), limits: { redis: down, keyPrefix, defaults: { rpm: 5 } } });
  try {
    await refusedHoldNoSlot(shared);
    const { key } = addCaller(broken.store);
    const res = await call(key, 'claude-json', 64, broken);
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body).error).toEqual({ type: 'api_error', message: 'Rate limiting is unavailable; retry later.' });
    expect(await logEntry(broken.store, res.requestId)).toMatchObject({ status: 500, errorCode: 'api_error', detail: expect.stringMatching(/^limits backend: /) });
  } finally {
    await Promise.all([shared.close(), broken.close()]);
    await dropPrefix(redis, keyPrefix);
    redis.disconnect();
  }
});

// Redis made unreachable: the limits' client reaches the real Redis through a TCP proxy that the test cuts and restores.
describe('Redis unreachable: limits fail closed (default) or open (limits.failOpen)', () => {
  let proxy: TcpProxy;
  let client: Redis;
  let open: RunningGateway;
  let closed: RunningGateway;
  let probes: Awaited<ReturnType<typeof listen>>;
  const keyPrefix = `test-${randomBytes(4).toString('hex')}`;
  const warnings: Array<{ fields: object; message: string }> = [];
  const logger: LoggerLike = { info: () => undefined, warn: (fields, message) => { if (message.startsWith('limits')) warnings.push({ fields, message }); }, error: () => undefined };
  const metrics = createMetrics();

  beforeAll(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy(Number(target.port || 6379), target.hostname);
    // As the binary builds its client (lib/cli/build.ts): reconnecting for ever, one retry per command.
    client = new Redis(`redis://${target.hostname}:${proxy.port}`, { lazyConnect: true, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    await client.connect();
    const limits = { redis: client, keyPrefix, defaults: { rpm: 100, tpm: 100_000, concurrency: 5 } };
    const models = llmModels(upstream.url, upstream.url, ['claude-json']);
    open = await startGateway({ models, limits: { ...limits, failOpen: true }, logger, metrics });
    closed = await startGateway({ models, limits });
    const app = express();
    app.get('/open/readyz', health({ redis: client, redisFailOpen: true, timeoutMs: 500 }).ready);
    app.get('/closed/readyz', health({ redis: client, timeoutMs: 500 }).ready);
    probes = await listen(app);
  });
  afterAll(async () => {
    await Promise.all([open.close(), closed.close(), probes.close()]);
    client.disconnect();
    await proxy.close();
    const redis = await redisClient();
    await dropPrefix(redis, keyPrefix);
    redis.disconnect();
  });

  const ready = async (mode: 'open' | 'closed'): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${probes.url}/${mode}/readyz`);
    return { status: res.status, body: await res.json() };
  };
  const failOpenCount = async (): Promise<string> => (await metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('model_gateway_limits_fail_open_total{')).join('\n');

  it('reachable: both admit and count in Redis; cut: closed refuses with 500, open serves and bills with a warning, a metric and readiness degraded; restored: the limits apply again', async () => {
    const a = addCaller(open.store, { limits: { rpm: 2 } });
    const b = addCaller(closed.store, { limits: { rpm: 2 } });
    expect((await call(a.key, 'claude-json', 64, open)).status).toBe(200);
    expect((await call(b.key, 'claude-json', 64, closed)).status).toBe(200);
    expect(await ready('open')).toMatchObject({ status: 200, body: { status: 'ok', checks: { redis: 'ok' } } });

    proxy.cut();
    for (const until = Date.now() + 5000; client.status === 'ready' && Date.now() < until;) await sleep(10);
    expect(client.status).not.toBe('ready');

    const refused = await call(b.key, 'claude-json', 64, closed);
    expect(refused.status).toBe(500);
    expect(JSON.parse(refused.body).error).toEqual({ type: 'api_error', message: 'Rate limiting is unavailable; retry later.' });
    expect(await ready('closed')).toMatchObject({ status: 503, body: { status: 'unavailable', checks: { redis: 'unavailable' } } });

    // Three calls, where rpm 2 would refuse the third: served without the limits, each billed on its confirmed usage.
    const served = [];
    for (let i = 0; i < 3; i++) served.push(await call(a.key, 'claude-json', 64, open));
    expect(served.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const r of served) {
      expect(await logEntry(open.store, r.requestId)).toMatchObject({
        status: 200, billingStatus: 'billed', cost: '0.3', detail: expect.stringMatching(/^limits backend: .*; admitted without rpm, concurrency, tpm \(limits\.failOpen\)$/),
      });
    }
    expect(open.store.getAccount(a.id)).toMatchObject({ balance: 10_000_000 - 1, held: 0, carry: '0.2' }); // 4 calls × 0.3 (one before the cut): each settled
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toEqual({ fields: { limits: ['rpm', 'concurrency', 'tpm'], cause: expect.any(String) }, message: 'limits backend unavailable: request admitted without its limits (limits.failOpen)' });
    expect(await failOpenCount()).toBe(['rpm', 'concurrency', 'tpm'].map((limit) => `model_gateway_limits_fail_open_total{limit="${limit}"} 3`).join('\n'));
    expect(await ready('open')).toMatchObject({ status: 200, body: { status: 'degraded', checks: { redis: 'degraded' } } });

    proxy.restore();
    for (const until = Date.now() + 10_000; client.status !== 'ready' && Date.now() < until;) await sleep(20);
    expect(client.status).toBe('ready');
    expect(await ready('open')).toMatchObject({ status: 200, body: { status: 'ok', checks: { redis: 'ok' } } });
    const fresh = addCaller(open.store, { limits: { rpm: 2 } });
    const again = [];
    for (let i = 0; i < 3; i++) again.push((await call(fresh.key, 'claude-json', 64, open)).status);
    expect(again).toEqual([200, 200, 429]);
    expect(warnings).toHaveLength(3);
  });
});
