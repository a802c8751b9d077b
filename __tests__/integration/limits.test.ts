/** Per-caller rpm, tpm and concurrency: each refuses with 429 + retry-after and recovers after its window. */
import { randomBytes } from 'node:crypto';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { sleep, type GatedFake } from '../helpers/fake-server';
import { addCaller, llmModels, logEntry, postMessages, startGateway, type RunningGateway } from '../helpers/gateway';
import { dropPrefix, redisClient } from '../helpers/services';

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
