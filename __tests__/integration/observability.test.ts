/** Structured logs (pino), Prometheus metrics and health handlers, over real HTTP on MemoryStore and PostgresStore. */
import express from 'express';
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import Redis from 'ioredis';
import { createGatewayRouter, createMetrics, health, MemoryStore, PostgresStore, VERSION, type GatewayMetrics, type GatewayRouter, type GatewayStore } from '../../lib';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { llmModels, postMessages, useFakeUpstreams } from '../helpers/gateway';
import { BOTH_STORES, pgStore, redisClient, uniqueSchema } from '../helpers/services';

const fakes = useFakeUpstreams();

/** A pino logger whose JSON lines are kept. */
function capturedLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>); done(); } });
  return { logger: pino({ level: 'info' }, sink), lines };
}

interface Running { url: string; router: GatewayRouter; metrics: GatewayMetrics; lines: Array<Record<string, unknown>>; close(): Promise<void> }

async function serve(store: GatewayStore & { ready(): unknown }, metrics = createMetrics()): Promise<Running> {
  const { logger, lines } = capturedLogger();
  const models = llmModels(fakes.anthropic.url, fakes.openai.url, ['claude-json', 'claude-stream', 'claude-stall-midstream', 'claude-status-500']);
  const router = createGatewayRouter({ store, models, logger, metrics, limits: { keyPrefix: `obs-${Math.random()}` } });
  const checks = health({ store, router });
  const app = express();
  app.get('/metrics', metrics.handler());
  app.get('/livez', checks.live);
  app.get('/readyz', checks.ready);
  app.use(router);
  const server = await new Promise<http.Server>((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, router, metrics, lines,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await router.close({ graceMs: 0 });
    },
  };
}

/** The value of the exposition line `name{…}` holding every label given (undefined when absent). */
function metric(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

const scrape = async (url: string): Promise<string> => (await fetch(`${url}/metrics`)).text();
const until = async (ok: () => boolean | Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 1000 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 10));
};

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let gw: Running;
  let store: MemoryStore | PostgresStore;
  let drop: () => Promise<void>;
  const key = `sk-obs-${Math.random().toString(36).slice(2)}`;
  beforeAll(async () => {
    ({ store, drop } = await make());
    await store.addKey(key, { id: 'obs', limits: { rpm: 7 } }); // 2 requests in the first test, 5 in the second, then 429
    await store.credit({ callerId: 'obs', amount: 1_000_000, idempotencyKey: 'obs-opening' });
    gw = await serve(store);
  });
  afterAll(async () => {
    await gw.close();
    await drop();
  });

  it('logs one line per finished request, failures at warn with their private detail, never a key', async () => {
    const ok = await postMessages(gw.url, key, 'claude-json');
    const failed = await postMessages(gw.url, key, 'claude-status-500');
    const ids = [ok.headers.get('request-id'), failed.headers.get('request-id')];
    await Promise.all([ok.text(), failed.text()]);
    await until(() => ids.every((id) => gw.lines.some((l) => l.requestId === id)));
    const [good, bad] = ids.map((id) => gw.lines.filter((l) => l.requestId === id));
    expect(good).toEqual([expect.objectContaining({
      level: 30, msg: 'request finished', callerId: 'obs', endpoint: 'messages', model: 'claude-json', status: 200, billingStatus: 'billed',
      cost: '0.3', charge: expect.any(Number), upstream: 'anthropic', usage: expect.objectContaining({ inputTokens: 25, outputTokens: 15, provenance: 'confirmed' }),
    })]);
    expect(bad).toEqual([expect.objectContaining({ level: 40, msg: 'request failed', status: 500, errorCode: 'api_error', detail: expect.stringContaining('[redacted]') })]);
    const all = JSON.stringify(gw.lines);
    expect(all).not.toContain(key);
    expect(all).not.toContain(UPSTREAM_KEY);
  });

  it('serves Prometheus metrics: the GenAI names with their labels, requests, billing, charges, refusals, failures, store calls', async () => {
    for (let i = 0; i < 5; i++) await (await postMessages(gw.url, key, 'claude-stream', { stream: true })).text(); 
    const limited = await postMessages(gw.url, key, 'claude-json');
    expect(limited.status).toBe(429);
    // A request is observed once settled, which with PostgreSQL may come after its answer.
    await until(async () => {
      const text = await scrape(gw.url);
      return metric(text, 'model_gateway_rate_limited_total', { endpoint: 'messages' }) === 1
        && metric(text, 'model_gateway_requests_total', { endpoint: 'messages', model: 'claude-stream', status: '200' }) === 5;
    });
    const text = await scrape(gw.url);
    const genAi = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'anthropic', gen_ai_request_model: 'claude-stream', error_type: '' };
    expect(metric(text, 'gen_ai_server_request_duration_seconds_count', genAi)).toBe(5);
    expect(metric(text, 'gen_ai_server_time_to_first_token_seconds_count', genAi)).toBe(5);
    expect(metric(text, 'gen_ai_client_token_usage_sum', { ...genAi, gen_ai_token_type: 'input' })).toBe(125);
    expect(metric(text, 'gen_ai_client_token_usage_sum', { ...genAi, gen_ai_token_type: 'output' })).toBe(75);
    expect(metric(text, 'gen_ai_server_request_duration_seconds_bucket', { ...genAi, le: '81.92' })).toBe(5); // the semantic conventions' buckets
    expect(metric(text, 'model_gateway_requests_total', { endpoint: 'messages', model: 'claude-stream', status: '200' })).toBe(5);
    expect(metric(text, 'model_gateway_requests_total', { endpoint: 'messages', status: '429' })).toBe(1);
    expect(metric(text, 'model_gateway_billing_outcomes_total', { billing_status: 'billed' })).toBe(6);
    expect(metric(text, 'model_gateway_charged_total', { model: 'claude-stream' })).toBeGreaterThanOrEqual(1); // 5 × 0.3 through the carry
    expect(metric(text, 'model_gateway_upstream_failures_total', { upstream: 'anthropic', code: 'api_error' })).toBe(1);
    // Store latency is timed for asynchronous stores; MemoryStore answers in the call and waits on nothing.
    if (store instanceof PostgresStore) {
      expect(metric(text, 'model_gateway_store_call_duration_seconds_count', { operation: 'settle' })).toBeGreaterThanOrEqual(6);
      expect(metric(text, 'model_gateway_store_call_duration_seconds_count', { operation: 'findCaller' })).toBeGreaterThanOrEqual(8);
    } else {
      expect(text).not.toContain('model_gateway_store_call_duration_seconds_count{');
    }
    expect(text).not.toContain('obs"'); // no caller label by default
  });

  it('counts holds and open streams while a stream is open', async () => {
    const other = `${key}-2`;
    await store.addKey(other, { id: 'obs-2' });
    await store.credit({ callerId: 'obs-2', amount: 1_000_000, idempotencyKey: 'obs-2-opening' });
    const controller = new AbortController();
    const res = await postMessages(gw.url, other, 'claude-stall-midstream', { stream: true, signal: controller.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the stream is open, and stays open: the upstream stalls after its first delta
    const during = await scrape(gw.url);
    expect(metric(during, 'model_gateway_open_streams')).toBe(1);
    expect(metric(during, 'model_gateway_holds_open')).toBe(1);
    controller.abort();
    await until(async () => metric(await scrape(gw.url), 'model_gateway_holds_open') === 0);
    expect(metric(await scrape(gw.url), 'model_gateway_open_streams')).toBe(0);
  });

  it('health: live with the version; ready while the store is reachable and migrated and the router is not draining', async () => {
    expect(await (await fetch(`${gw.url}/livez`)).json()).toEqual({ status: 'ok', version: VERSION });
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', version: VERSION, checks: { router: 'ok', store: 'ok' } });
  });
});

it('a failed store call is logged at warn and counted; a caller label is opt-in and hashed', async () => {
  const inner = new MemoryStore();
  let failNext = true;
  const flaky: GatewayStore & { ready(): void } = {
    findCaller: (hash) => inner.findCaller(hash), reserve: (r) => inner.reserve(r), renewHolds: (id, at) => inner.renewHolds(id, at),
    settle: (s) => inner.settle(s), release: (id) => inner.release(id), ready: () => undefined,
    appendLog: (entry) => {
      if (failNext) { failNext = false; throw new Error('log store down (injected)'); }
      return inner.appendLog(entry);
    },
  };
  inner.addKey('sk-flaky', { id: 'flaky-caller' });
  inner.credit({ callerId: 'flaky-caller', amount: 10_000, idempotencyKey: 'flaky-opening' });
  const gw = await serve(flaky, createMetrics({ callerLabel: 'hashed' }));
  try {
    const res = await postMessages(gw.url, 'sk-flaky', 'claude-json');
    await res.text();
    await until(() => inner.getLog().length === 1);
    expect(gw.lines).toContainEqual(expect.objectContaining({ level: 40, msg: 'store call failed', operation: 'appendLog', cause: 'Error: log store down (injected)' }));
    const text = await scrape(gw.url);
    expect(metric(text, 'model_gateway_store_errors_total', { operation: 'appendLog' })).toBe(1);
    const hashed = createHash('sha256').update('flaky-caller').digest('hex').slice(0, 12);
    expect(metric(text, 'model_gateway_requests_total', { caller: hashed, status: '200' })).toBe(1);
    expect(text).not.toContain('flaky-caller');
  } finally {
    await gw.close();
  }
});

it('paths the router does not serve share one endpoint label, so a client cannot mint metric series; the log keeps the path', async () => {
  const store = new MemoryStore();
  const gw = await serve(store);
  try {
    for (const path of ['/v1/aaa', '/v1/bbb/ccc', '/v2/ddd', '/v1/constructor']) expect((await fetch(`${gw.url}${path}`)).status).toBe(404);
    await until(() => store.getLog().length === 4);
    const text = await scrape(gw.url);
    expect(metric(text, 'model_gateway_requests_total', { endpoint: 'unknown', status: '404' })).toBe(4);
    for (const label of ['aaa', 'bbb', 'ddd', 'constructor']) expect(text).not.toContain(`endpoint="${label}"`);
    expect(store.getLog().map((e) => [e.endpoint, e.detail])).toEqual(expect.arrayContaining([['unknown', expect.stringContaining('/v1/bbb/ccc')]]));
  } finally {
    await gw.close();
  }
});

it('health: not ready while the router drains, the schema is not migrated, or Redis does not answer', async () => {
  const made = await pgStore();
  const unmigrated = new PostgresStore({ pool: made.pool, schema: uniqueSchema(), sweepIntervalMs: 0 });
  const redis = await redisClient();
  const deadRedis = new Redis('redis://127.0.0.1:9', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  const router = { draining: false };
  const probe = async (options: Parameters<typeof health>[0]): Promise<{ status: number; body: unknown }> => {
    const app = express().get('/readyz', health({ ...options, timeoutMs: 500 }).ready);
    const server = await new Promise<http.Server>((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`);
      return { status: res.status, body: await res.json() };
    } finally {
      server.close();
    }
  };
  try {
    expect(await probe({ store: made.store, redis, router })).toEqual({ status: 200, body: { status: 'ok', version: VERSION, checks: { router: 'ok', store: 'ok', redis: 'ok' } } });
    router.draining = true;
    expect(await probe({ store: made.store, router })).toMatchObject({ status: 503, body: { status: 'unavailable', checks: { router: 'draining', store: 'ok' } } });
    expect(await probe({ store: unmigrated })).toMatchObject({ status: 503, body: { checks: { store: 'unavailable' } } });
    expect(await probe({ redis: deadRedis })).toMatchObject({ status: 503, body: { checks: { redis: 'unavailable' } } });
    const real = createGatewayRouter({ store: new MemoryStore(), models: llmModels(fakes.anthropic.url, fakes.openai.url, ['claude-json']) });
    const closing = real.close({ graceMs: 0 });
    expect(real.draining).toBe(true);
    await closing;
  } finally {
    deadRedis.disconnect();
    redis.disconnect();
    await unmigrated.close();
    await made.drop();
  }
});
