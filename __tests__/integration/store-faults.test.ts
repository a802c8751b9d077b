/** The store failing or stalling at each step: clear errors, fail-closed reserve, settle and log never lost. */
import { Pool } from 'pg';
import { MemoryStore, PostgresStore } from '../../lib';
import type { GatewayStore, RequestLogEntry, ReserveRequest, Settlement } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import type { FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels, logEntry, postMessages, startGateway, type RunningGateway } from '../helpers/gateway';
import { pgStore } from '../helpers/services';
import { startTcpProxy } from '../helpers/tcp-proxy';

type Step = 'findCaller' | 'reserve' | 'settle' | 'appendLog';

/**
 * A host store with injected faults: the next `fail` calls of a step reject, `throw` calls throw
 * synchronously (a sync store failing), `stall` calls hang, the next call waits `delayMs` or `until` a
 * promise resolves. Without a fault it answers synchronously.
 */
class FaultyStore implements GatewayStore {
  readonly faults: Partial<Record<Step, { fail?: number; throw?: number; stall?: number; delayMs?: number; until?: Promise<void> }>> = {};
  /** Calls of each step so far. */
  readonly calls: Record<Step, number> = { findCaller: 0, reserve: 0, settle: 0, appendLog: 0 };
  /** Request ids whose holds were given back. */
  readonly released: string[] = [];
  constructor(readonly inner: MemoryStore) {}
  private run<T>(step: Step, work: () => T): T | Promise<T> {
    this.calls[step]++;
    const fault = this.faults[step];
    if (fault?.stall && fault.stall-- > 0) return new Promise<T>(() => undefined);
    if (fault?.fail && fault.fail-- > 0) return Promise.reject(new Error(`${step} failed (injected)`));
    if (fault?.throw && fault.throw-- > 0) throw new Error(`${step} threw (injected)`);
    if (fault?.until) {
      const until = fault.until;
      delete fault.until;
      return until.then(work);
    }
    if (fault?.delayMs) {
      const ms = fault.delayMs;
      fault.delayMs = 0;
      return new Promise<T>((resolve) => setTimeout(() => resolve(work()), ms));
    }
    return work();
  }
  findCaller(hash: string) { return this.run('findCaller', () => this.inner.findCaller(hash)); }
  reserve(r: ReserveRequest) { return this.run('reserve', () => this.inner.reserve(r)); }
  settle(s: Settlement) { return this.run('settle', () => this.inner.settle(s)); }
  renewHolds(instance: string, until: number) { return this.inner.renewHolds(instance, until); }
  release(id: string) {
    this.released.push(id);
    return this.inner.release(id);
  }
  appendLog(e: RequestLogEntry) { return this.run('appendLog', () => this.inner.appendLog(e)); }
}

let upstream: FakeServer;
let memory: MemoryStore;
let store: FaultyStore;
let gw: RunningGateway;
let open: RunningGateway;

beforeAll(async () => {
  upstream = await startAnthropicFake();
  memory = new MemoryStore();
  store = new FaultyStore(memory);
  const models = llmModels(upstream.url, upstream.url, ['claude-json', 'claude-slow']);
  const common = { models, storeTimeoutMs: 200, writes: { baseDelayMs: 10, attemptTimeoutMs: 200 } };
  gw = await startGateway({ ...common, store: store as unknown as MemoryStore });
  open = await startGateway({ ...common, store: store as unknown as MemoryStore, failOpen: true });
});
afterAll(async () => {
  await gw.close();
  await open.close();
  await upstream.close();
});

/** The request-log entry of a caller's only request, once written. */
async function callerEntry(callerId: string): Promise<RequestLogEntry> {
  for (let i = 0; i < 500; i++) {
    const entry = memory.getLog().find((e) => e.callerId === callerId);
    if (entry) return entry;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no log entry for caller ${callerId}`);
}

async function call(url: string, key: string, model = 'claude-json', stream = false): Promise<{ status: number; body: string; requestId: string; ms: number }> {
  const started = Date.now();
  const res = await postMessages(url, key, model, { stream });
  return { status: res.status, body: await res.text(), requestId: res.headers.get('request-id') as string, ms: Date.now() - started };
}

it.each([['fails', { fail: 1 }], ['throws', { throw: 1 }], ['stalls', { stall: 1 }]] as const)('key lookup %s: a clear 500 in bounded time, logged, no upstream call', async (_how, fault) => {
  const { key } = addCaller(memory);
  const before = upstream.calls;
  store.faults.findCaller = { ...fault };
  const res = await call(gw.url, key);
  expect(res.status).toBe(500);
  expect(JSON.parse(res.body).error).toEqual({ type: 'api_error', message: 'The key store is unavailable; retry later.' });
  expect(res.ms).toBeLessThan(3000); // the configured 200 ms, not the default 5 s
  expect(upstream.calls).toBe(before);
  expect(await logEntry(memory, res.requestId)).toMatchObject({ status: 500, errorCode: 'api_error' });
});

it.each([['fails', { fail: 1 }], ['throws', { throw: 1 }], ['stalls', { stall: 1 }]] as const)('reserve %s: fails closed with a clear 500, no upstream call', async (_how, fault) => {
  const { key } = addCaller(memory);
  const before = upstream.calls;
  store.faults.reserve = { ...fault };
  const res = await call(gw.url, key);
  expect(res.status).toBe(500);
  expect(JSON.parse(res.body).error.message).toBe('The balance store is unavailable; retry later.');
  expect(upstream.calls).toBe(before);
});

it('a client that leaves while its hold is being taken: no upstream call, the hold is given back, the log says 499', async () => {
  // A gateway that waits for its store as long as this test needs, however slow the machine.
  const patient = await startGateway({ models: llmModels(upstream.url, upstream.url, ['claude-json']), storeTimeoutMs: 30_000, store: store as unknown as MemoryStore });
  try {
    const { key, id } = addCaller(memory, { balance: 1000 });
    const before = upstream.calls;
    const reserves = store.calls.reserve;
    let answer = (): void => undefined;
    store.faults.reserve = { until: new Promise<void>((resolve) => { answer = resolve; }) };
    const controller = new AbortController();
    const pending = postMessages(patient.url, key, 'claude-json', { signal: controller.signal }).catch(() => undefined);
    for (let i = 0; i < 500 && store.calls.reserve === reserves; i++) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await pending;
    const { requestId, status, billingStatus } = await callerEntry(id); // the gateway saw the client leave
    expect([status, billingStatus]).toEqual([499, 'not_billed']);
    answer(); // only now does the store take the hold
    for (let i = 0; i < 500 && !store.released.includes(requestId); i++) await new Promise((r) => setTimeout(r, 10));
    expect(upstream.calls).toBe(before);
    expect(memory.getAccount(id)).toEqual({ balance: 1000, held: 0, carry: '0', ledger: 1000 });
    expect(memory.getLog().filter((e) => e.callerId === id)).toHaveLength(1);
  } finally {
    await patient.close();
  }
});

it('a reserve that answers after its timeout: a clear 500, and the hold it took late is given back', async () => {
  const { key, id } = addCaller(memory, { balance: 1000 });
  const before = upstream.calls;
  let answer = (): void => undefined;
  store.faults.reserve = { until: new Promise<void>((resolve) => { answer = resolve; }) };
  const res = await call(gw.url, key); // the store timeout is 200 ms
  expect(res.status).toBe(500);
  expect(JSON.parse(res.body).error.message).toBe('The balance store is unavailable; retry later.');
  answer(); // the store takes the hold now; this instance would renew it for as long as it runs
  for (let i = 0; i < 500 && store.released.filter((r) => r === res.requestId).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  expect(upstream.calls).toBe(before);
  expect(memory.getAccount(id)).toEqual({ balance: 1000, held: 0, carry: '0', ledger: 1000 });
});

it('reserve fails with failOpen: admitted without a hold and still billed on confirmed usage', async () => {
  const { key, id } = addCaller(memory, { balance: 1000 });
  store.faults.reserve = { fail: 1 };
  const res = await call(open.url, key);
  expect(res.status).toBe(200);
  expect(await logEntry(memory, res.requestId)).toMatchObject({ billingStatus: 'billed', cost: '0.3', charge: 0 });
  expect(memory.getAccount(id)).toMatchObject({ balance: 1000, carry: '0.3' });
});

it.each([['fails 3 times', { fail: 3 }], ['throws twice', { throw: 2 }], ['stalls once', { stall: 1 }]] as const)('settle %s: retried until stored, charged exactly once', async (_how, fault) => {
  const { key, id } = addCaller(memory, { balance: 1000 });
  store.faults.settle = { ...fault };
  const res = await call(gw.url, key);
  expect(res.status).toBe(200);
  const entry = await logEntry(memory, res.requestId);
  expect(entry).toMatchObject({ cost: '0.3', charge: 0 });
  expect(memory.getAccount(id)).toEqual({ balance: 1000, held: 0, carry: '0.3', ledger: 1000 }); // once: carried 0.3, not 0.6
});

it.each([['fails', { fail: 2 }], ['throws', { throw: 2 }]] as const)('request log write %s twice: retried, stored exactly once', async (_how, fault) => {
  const { key } = addCaller(memory);
  store.faults.appendLog = { ...fault };
  const res = await call(gw.url, key);
  await logEntry(memory, res.requestId);
  await gw.router.close({ graceMs: 0 }).catch(() => undefined);
  expect(memory.getLog().filter((e) => e.requestId === res.requestId)).toHaveLength(1);
});

it('PostgreSQL briefly unreachable while a stream settles: the bill and the log line arrive once it is back', async () => {
  const base = await pgStore();
  const proxy = await startTcpProxy(5432);
  const pool = new Pool({ connectionString: `postgres://postgres@127.0.0.1:${proxy.port}/test`, max: 4, connectionTimeoutMillis: 200 });
  pool.on('error', () => undefined); // idle clients die with the cut; the pool replaces them
  const reported: unknown[] = [];
  const pg = new PostgresStore({ pool, schema: base.schema, keyCacheMs: 60_000, sweepIntervalMs: 0, onError: (err) => reported.push(err) });
  const server = await startGateway({ models: llmModels(upstream.url, upstream.url, ['claude-slow']), store: pg as unknown as MemoryStore, writes: { baseDelayMs: 20, maxDelayMs: 100 } });
  try {
    await pg.addKey('sk-pg-outage', { id: 'outage' });
    await pg.credit({ callerId: 'outage', amount: 1000, idempotencyKey: 'opening-outage' });
    const reqId = await new Promise<string>((resolve, reject) => {
      void fetch(`${server.url}/v1/messages`, {
        method: 'POST', headers: { 'x-api-key': 'sk-pg-outage', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-slow', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
      }).then(async (res) => {
        proxy.cut(); // the database goes away while the stream is still running
        await res.text();
        resolve(res.headers.get('request-id') as string);
      }, reject);
    });
    await new Promise((r) => setTimeout(r, 400));
    const during = await base.pool.query(`SELECT count(*)::int AS n FROM ${base.schema}.request_log WHERE request_id = $1`, [reqId]);
    expect(during.rows[0].n).toBe(0);
    proxy.restore();
    await server.router.close({ graceMs: 0 }); // flushes the pending writes
    const row = await base.pool.query(`SELECT cost::text, charge FROM ${base.schema}.request_log WHERE request_id = $1`, [reqId]);
    expect(row.rows).toEqual([{ cost: '0.3', charge: '0' }]);
    expect(await base.store.getAccount('outage')).toEqual({ balance: 1000, held: 0, carry: '0.3', ledger: 1000 });
    // The idle connections the cut ended were reported to the store's onError, and nothing else was.
    expect(reported.length).toBeGreaterThan(0);
    expect(reported.map((e) => String(e))).toEqual(reported.map(() => 'Error: Connection terminated unexpectedly'));
  } finally {
    await server.close();
    await pg.close();
    await pool.end();
    await proxy.close();
    await base.drop();
  }
});
