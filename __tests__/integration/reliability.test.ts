/** Leases that live as long as their request, bounded usage figures, writes set aside, the drain after message_stop. */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { MemoryStore } from '../../lib';
import type { GatewayStore, ModelEntry, RequestLogEntry, ReserveRequest, Settlement, SetAsideWrite } from '../../lib';
import { anthropicAdapter } from '../../lib';
import { HUGE_OUTPUT, startAnthropicFake } from '../helpers/fake-anthropic';
import { sleep, UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { addCaller, logEntry, postMessages, startGateway, type RunningGateway } from '../helpers/gateway';
import { dropPrefix, pgStore, REDIS_URL, redisClient } from '../helpers/services';
import { startTcpProxy } from '../helpers/tcp-proxy';
import { usageOf } from '../helpers/usage';

jest.setTimeout(30_000);
let upstream: FakeServer;
/** One minor unit per token: a Messages call of "Hello" with max_tokens 64 holds 74 and is charged 40. */
const UNIT = { input: 1_000_000, output: 1_000_000 };
const HOLD = 74;
const CHARGE = 40;

beforeAll(async () => {
  upstream = await startAnthropicFake();
});
afterAll(async () => upstream.close());

function models(...names: string[]): ModelEntry[] {
  const adapter = anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY });
  return names.map((id) => ({ id, capability: 'llm' as const, upstream: adapter, pricing: UNIT }));
}

/** Starts a stream and resolves once its headers are in, with the rest of the body still coming. */
async function openStream(url: string, key: string, model: string): Promise<{ status: number; requestId: string; done: Promise<string> }> {
  const res = await postMessages(url, key, model, { stream: true });
  return { status: res.status, requestId: res.headers.get('request-id') as string, done: res.text() };
}

describe.each(['memory', 'postgres'] as const)('hold leases on %s', (kind) => {
  it('streams four times longer than the lease keep their holds: the caller cannot overspend', async () => {
    const pg = kind === 'postgres' ? await pgStore({ sweepIntervalMs: 100 }) : undefined;
    const store = (pg?.store ?? new MemoryStore()) as unknown as MemoryStore;
    const gw = await startGateway({ models: models('claude-long-4000', 'claude-json'), store, holdLeaseMs: 1000 });
    try {
      const key = `sk-lease-${randomBytes(8).toString('hex')}`;
      await store.addKey(key, { id: `lease-${kind}` });
      await store.credit({ callerId: `lease-${kind}`, amount: 3 * HOLD, idempotencyKey: `opening-lease-${kind}` });
      const streams = await Promise.all([0, 1, 2].map(() => openStream(gw.url, key, 'claude-long-4000')));
      expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
      await sleep(2500); // 2.5 leases: without renewal every hold would have lapsed
      const fourth = await postMessages(gw.url, key, 'claude-json');
      expect(fourth.status).toBe(402);
      await Promise.all(streams.map((s) => s.done));
      await gw.router.close();
      expect(await store.getAccount(`lease-${kind}`)).toEqual({ balance: 3 * (HOLD - CHARGE), held: 0, carry: '0', ledger: 3 * (HOLD - CHARGE) });
    } finally {
      await gw.close();
      await pg?.drop();
    }
  });
});

it('router.close() stops renewing the instance\'s holds: a closed router leaves no timer calling its store', async () => {
  const store = new MemoryStore();
  let renewals = 0;
  const renew = store.renewHolds.bind(store);
  store.renewHolds = (instanceId, expiresAt) => {
    renewals += 1;
    return renew(instanceId, expiresAt);
  };
  const gw = await startGateway({ models: models('claude-json'), store, holdLeaseMs: 100 }); // a renewal every 25 ms
  try {
    const { key } = addCaller(store);
    expect((await postMessages(gw.url, key, 'claude-json')).status).toBe(200);
    for (let i = 0; i < 250 && renewals === 0; i++) await sleep(20); // the renewals run
    expect(renewals).toBeGreaterThan(0);
    await gw.router.close();
    await sleep(50); // a renewal already under way when close() ran may still arrive
    const atClose = renewals;
    await sleep(500); // twenty renewal periods
    expect(renewals).toBe(atClose);
  } finally {
    await gw.close();
  }
});

describe('Redis concurrency slots', () => {
  let redis: Redis;
  const prefix = `slots-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    redis = await redisClient();
  });
  afterAll(async () => {
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  it('a limit holds for requests longer than the lease (the set never expires under them) and is never negative', async () => {
    const gw = await startGateway({ models: models('claude-long-3000', 'claude-json'), limits: { redis, keyPrefix: `${prefix}-a`, slotLeaseMs: 1000 } });
    try {
      const { key, id } = addCaller(gw.store, { limits: { concurrency: 2 } });
      const streams = await Promise.all([0, 1].map(() => openStream(gw.url, key, 'claude-long-3000')));
      expect(streams.map((s) => s.status)).toEqual([200, 200]);
      await sleep(2000); // two leases
      expect((await postMessages(gw.url, key, 'claude-json')).status).toBe(429);
      expect(await redis.zcard(`${prefix}-a:slots:${id}`)).toBe(2);
      await Promise.all(streams.map((s) => s.done));
      await gw.router.close();
      expect(await redis.zcard(`${prefix}-a:slots:${id}`)).toBe(0);
      expect((await postMessages(gw.url, key, 'claude-json')).status).toBe(529); // closed router: refused before the limits
    } finally {
      await gw.close();
    }
  });

  it('CLIENT KILL of the gateway\'s connection mid-request: the slot still comes back and the next request is admitted', async () => {
    const name = `mgw-kill-${randomBytes(4).toString('hex')}`;
    const own = new Redis(REDIS_URL, { connectionName: name, enableOfflineQueue: true, maxRetriesPerRequest: 3 });
    const gw = await startGateway({ models: models('claude-long-600', 'claude-json'), limits: { redis: own, keyPrefix: `${prefix}-b`, slotLeaseMs: 5000 } });
    try {
      const { key, id } = addCaller(gw.store, { limits: { concurrency: 1 } });
      const stream = await openStream(gw.url, key, 'claude-long-600');
      const clients = String(await redis.client('LIST'));
      const line = clients.split('\n').find((l) => l.includes(`name=${name}`)) as string;
      await redis.client('KILL', 'ID', /id=(\d+)/.exec(line)?.[1] as string);
      await stream.done;
      await logEntry(gw.store, stream.requestId);
      await gw.router.close();
      expect(await redis.zcard(`${prefix}-b:slots:${id}`)).toBe(0);
    } finally {
      await gw.close();
      own.disconnect();
    }
  });

  it('a give-back lost to a Redis outage locks the caller out for one lease at most', async () => {
    const proxy = await startTcpProxy(6379);
    const cut = new Redis({ host: '127.0.0.1', port: proxy.port, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    cut.on('error', () => undefined);
    const gw = await startGateway({ models: models('claude-long-500', 'claude-json'), limits: { redis: cut, keyPrefix: `${prefix}-c`, slotLeaseMs: 1500 } });
    try {
      const { key } = addCaller(gw.store, { limits: { concurrency: 1 } });
      await new Promise((resolve) => (cut.status === 'ready' ? resolve(undefined) : cut.once('ready', resolve)));
      const stream = await openStream(gw.url, key, 'claude-long-500');
      proxy.cut(); // the give-back at the end of the stream cannot reach Redis
      await stream.done;
      await logEntry(gw.store, stream.requestId);
      await sleep(800); // every give-back attempt has failed by now
      proxy.restore();
      const since = Date.now();
      let status = 0;
      while (status !== 200 && Date.now() - since < 15_000) {
        status = (await postMessages(gw.url, key, 'claude-json')).status;
        if (status !== 200) await sleep(100);
      }
      expect(status).toBe(200);
      expect(Date.now() - since).toBeLessThan(1500 + 8000); // the 1.5 s lease, not the default 60 s
    } finally {
      await gw.close();
      cut.disconnect();
      await proxy.close();
    }
  });
});

describe.each(['memory', 'postgres'] as const)('usage figures beyond any real request on %s', (kind) => {
  it.each([false, true])('stream=%s: observed in the detail, bounded in the usage, flagged needs_review, never billed, logged', async (stream) => {
    const pg = kind === 'postgres' ? await pgStore() : undefined;
    const store = (pg?.store ?? new MemoryStore()) as unknown as MemoryStore;
    const gw = await startGateway({ models: models('claude-huge-usage'), store });
    try {
      const key = `sk-huge-${randomBytes(8).toString('hex')}`;
      await store.addKey(key, { id: 'huge' });
      await store.credit({ callerId: 'huge', amount: 1000, idempotencyKey: 'opening-huge' });
      const res = await postMessages(gw.url, key, 'claude-huge-usage', { stream });
      expect(res.status).toBe(200);
      await res.text();
      await gw.router.close(); // completes: nothing retried forever
      const id = res.headers.get('request-id') as string;
      const entry = pg
        ? (await pg.pool.query(`SELECT usage, charge, billing_status, detail FROM ${pg.schema}.request_log WHERE request_id = $1`, [id])).rows[0]
        : await logEntry(store, id);
      const usage = (entry as { usage: { outputTokens: number; provenance: string } }).usage;
      expect(usage.provenance).toBe('implausible');
      // Every usage field holds what JSON, JavaScript and a bigint column hold exactly; the figure as it came is in the detail.
      expect(usage.outputTokens).toBe(Number.MAX_SAFE_INTEGER);
      expect((entry as { detail: string }).detail).toBe(`implausible usage: outputTokens ${String(HUGE_OUTPUT)} (beyond 2^53)`);
      expect(Number((entry as { charge: unknown }).charge)).toBe(0);
      expect(pg ? (entry as { billing_status: string }).billing_status : (entry as RequestLogEntry).billingStatus).toBe('needs_review');
      expect(await store.getAccount('huge')).toEqual({ balance: 1000, held: 0, carry: '0', ledger: 1000 });
    } finally {
      await gw.close();
      await pg?.drop();
    }
  });
});

/** A MemoryStore whose settle always fails for one caller. */
class RefusingStore implements GatewayStore {
  constructor(readonly inner: MemoryStore, readonly refused: string) {}
  findCaller(hash: string) { return this.inner.findCaller(hash); }
  reserve(r: ReserveRequest) { return this.inner.reserve(r); }
  renewHolds(instance: string, until: number) { return this.inner.renewHolds(instance, until); }
  settle(s: Settlement) { return s.callerId === this.refused ? Promise.reject(new Error('value out of range')) : Promise.resolve(this.inner.settle(s)); }
  release(id: string) { return this.inner.release(id); }
  appendLog(e: RequestLogEntry) { return Promise.resolve(this.inner.appendLog(e)); }
}

it('a settlement the store keeps refusing is set aside after bounded retries; others are stored and close() completes', async () => {
  const memory = new MemoryStore();
  const asides: SetAsideWrite[] = [];
  const store = new RefusingStore(memory, 'refused');
  const gw = await startGateway({
    models: models('claude-json'), store: store as unknown as MemoryStore,
    writes: { baseDelayMs: 5, maxDelayMs: 10, maxAttempts: 4, onSetAside: (w) => asides.push(w) },
  });
  try {
    const bad = addCaller(memory, { id: 'refused' });
    const good = addCaller(memory);
    const [a, b] = await Promise.all([postMessages(gw.url, bad.key, 'claude-json'), postMessages(gw.url, good.key, 'claude-json')]);
    await gw.router.close();
    expect(asides.map((w) => [w.kind, w.requestId, (w.record as Settlement).cost])).toEqual([['settle', a.headers.get('request-id'), String(CHARGE)]]);
    expect(await logEntry(memory, a.headers.get('request-id') as string)).toMatchObject({ billingStatus: 'needs_review', charge: 0, detail: expect.stringMatching(/settlement set aside/) });
    expect(await logEntry(memory, b.headers.get('request-id') as string)).toMatchObject({ billingStatus: 'billed', charge: CHARGE });
    expect(memory.getAccount('refused').held).toBe(0); // the hold went back with the set-aside settlement
  } finally {
    await gw.close();
  }
});

it('PostgreSQL: a settlement the database refuses is set aside; the one batched with it is billed; close() completes', async () => {
  const pg = await pgStore();
  // A real refusal by the database: a constraint this caller's settlements break.
  await pg.pool.query(`ALTER TABLE ${pg.schema}.settlements ADD CONSTRAINT refuse_one CHECK (caller_id <> 'refused')`);
  const asides: SetAsideWrite[] = [];
  const store = pg.store as unknown as MemoryStore;
  const gw = await startGateway({ models: models('claude-json'), store, writes: { baseDelayMs: 5, maxDelayMs: 10, maxAttempts: 3, onSetAside: (w) => asides.push(w) } });
  try {
    await pg.store.addKey('sk-pg-refused', { id: 'refused' });
    await pg.store.credit({ callerId: 'refused', amount: 1000, idempotencyKey: 'opening-refused' });
    await pg.store.addKey('sk-pg-good', { id: 'good' });
    await pg.store.credit({ callerId: 'good', amount: 1000, idempotencyKey: 'opening-good' });
    const [a, b] = await Promise.all([postMessages(gw.url, 'sk-pg-refused', 'claude-json'), postMessages(gw.url, 'sk-pg-good', 'claude-json')]);
    await gw.router.close();
    expect(asides.map((w) => [w.kind, w.requestId])).toEqual([['settle', a.headers.get('request-id')]]);
    const rows = await pg.pool.query(`SELECT request_id, charge, billing_status FROM ${pg.schema}.request_log ORDER BY billing_status`);
    expect(rows.rows).toEqual([
      { request_id: b.headers.get('request-id'), charge: String(CHARGE), billing_status: 'billed' },
      { request_id: a.headers.get('request-id'), charge: '0', billing_status: 'needs_review' },
    ]);
    expect(await pg.store.getAccount('good')).toEqual({ balance: 1000 - CHARGE, held: 0, carry: '0', ledger: 1000 - CHARGE });
  } finally {
    await gw.close();
    await pg.drop();
  }
});

it('PostgreSQL: a record the database refuses fails alone, not the others written in the same statement', async () => {
  const pg = await pgStore();
  try {
    await pg.store.addKey('sk-batch', { id: 'batch' });
    await pg.store.credit({ callerId: 'batch', amount: 1000, idempotencyKey: 'opening-batch' });
    const usage = usageOf({ inputTokens: 1, outputTokens: 1 });
    const settlement = (requestId: string, cost: string): Settlement => ({ requestId, callerId: 'batch', model: 'm', endpoint: 'messages', cost, billingStatus: 'billed', usage });
    const [bad, good] = await Promise.allSettled([pg.store.settle(settlement('req_bad', '100000000000000000000')), pg.store.settle(settlement('req_good', '7'))]);
    expect(bad.status).toBe('rejected');
    expect(good).toEqual({ status: 'fulfilled', value: { applied: true, charge: 7 } });
    expect(await pg.store.getAccount('batch')).toEqual({ balance: 993, held: 0, carry: '0', ledger: 993 });
  } finally {
    await pg.drop();
  }
});

describe('after message_stop', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ models: models('claude-trickle', 'claude-json') });
  });
  afterAll(async () => gw.close());

  it('the request settles at once and its slot comes back, while the upstream still trickles; the drain is cut after DRAIN_MS', async () => {
    const { key } = addCaller(gw.store, { limits: { concurrency: 1 } });
    const abortedBefore = upstream.aborted.length;
    const res = await postMessages(gw.url, key, 'claude-trickle', { stream: true });
    expect(await res.text()).toMatch(/event: message_stop\n/);
    const entry = await logEntry(gw.store, res.headers.get('request-id') as string, 800);
    expect(entry).toMatchObject({ billingStatus: 'billed', charge: CHARGE });
    expect((await postMessages(gw.url, key, 'claude-json')).status).toBe(200);
    for (let i = 0; i < 60 && upstream.aborted.length === abortedBefore; i++) await sleep(50);
    expect(upstream.aborted.length).toBe(abortedBefore + 1); // cut at the drain bound, not after the 10 s trickle
  });
});
