/** failover(): retries before the first byte, never after; out of rotation and back; retry-after; every attempt logged. */
import { anthropicAdapter, failover, type MessagesAdapter } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { failWith, startFake, UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { addCaller, logEntry, postMessages, PRICING, startGateway, type RunningGateway } from '../helpers/gateway';
import { refused } from '../helpers/config-error';

let good: FakeServer;
let bad: FakeServer;
let flaky: FakeServer;
let flakyLong: FakeServer;
let gw: RunningGateway;
let key: string;
let flakyCalls = 0;

beforeAll(async () => {
  good = await startAnthropicFake();
  bad = await startFake((_req, res) => failWith(res, 503));
  // Answers 429 with retry-after on every odd call, then behaves like the good upstream.
  const flakyFake = (retryAfter: string) => startFake((_req, res) => {
    flakyCalls++;
    if (flakyCalls % 2 === 1) return failWith(res, 429, { 'retry-after': retryAfter });
    res.writeHead(307, { location: `${good.url}/v1/messages` }).end();
  });
  flaky = await flakyFake('1');
  flakyLong = await flakyFake('60');
  const a = (url: string, name: string) => anthropicAdapter({ baseURL: url, apiKey: UPSTREAM_KEY, name });
  const entry = (id: string, upstream: MessagesAdapter, upstreamModel = 'claude-stream') => ({ id, capability: 'llm' as const, upstream, upstreamModel, pricing: PRICING });
  gw = await startGateway({
    models: [
      entry('pair', failover([a(bad.url, 'bad'), a(good.url, 'good')], { backoffMs: 1, failureThreshold: 2, cooldownMs: 2000 })),
      entry('pair-midstream', failover([a(good.url, 'good'), a(good.url, 'good-2')], { backoffMs: 1 }), 'claude-midstream-error'),
      entry('all-bad', failover([a(bad.url, 'bad-1'), a(bad.url, 'bad-2')], { attempts: 3, backoffMs: 1 })),
      entry('flaky', failover([a(flakyLong.url, 'flaky'), a(good.url, 'good')], { attempts: 2, maxRetryAfterMs: 0, backoffMs: 1 })),
      entry('flaky-wait', failover([a(flaky.url, 'flaky')], { attempts: 2, maxRetryAfterMs: 2000, backoffMs: 1 })),
    ],
  });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([good.close(), bad.close(), flaky.close(), flakyLong.close()]);
});

async function call(model: string, stream = false): Promise<{ status: number; text: string; requestId: string }> {
  const res = await postMessages(gw.url, key, model, { stream });
  return { status: res.status, text: await res.text(), requestId: res.headers.get('request-id') as string };
}

it('retries a failing upstream on the next one before the first byte, logging every attempt', async () => {
  for (const stream of [false, true]) {
    const res = await call('pair', stream);
    expect(res.status).toBe(200);
    const entry = await logEntry(gw.store, res.requestId);
    expect(entry.attempts.map((a) => [a.upstream, a.ok, a.code])).toEqual([['bad', false, 'overloaded_error'], ['good', true, undefined]]);
    expect(entry.upstream).toBe('good');
    expect(entry.billingStatus).toBe('billed');
  }
});

it('takes an upstream that keeps failing out of rotation, then brings it back after the cool-down', async () => {
  const before = bad.calls;
  await call('pair');
  expect(bad.calls).toBe(before); // two failures in a row (previous test): out of rotation
  const entry = await logEntry(gw.store, (await call('pair')).requestId);
  expect(entry.attempts.map((a) => a.upstream)).toEqual(['good']);
  await new Promise((r) => setTimeout(r, 2050)); // the cool-down is 2 s: long enough that a slow machine still sees it out
  await call('pair');
  expect(bad.calls).toBe(before + 1); // tried again by itself
});

it('never retries once bytes were streamed to the client', async () => {
  const before = good.calls;
  const res = await call('pair-midstream', true);
  expect(res.text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error"/);
  expect(good.calls).toBe(before + 1);
  const entry = await logEntry(gw.store, res.requestId);
  expect(entry.attempts).toHaveLength(1);
});

it('bounded attempts: when every upstream fails the caller gets the last standard error', async () => {
  const res = await call('all-bad');
  expect(res.status).toBe(529);
  const entry = await logEntry(gw.store, res.requestId);
  expect(entry.attempts.map((a) => a.upstream)).toEqual(['bad-1', 'bad-2', 'bad-1']);
  expect(entry.billingStatus).toBe('not_billed');
});

it('a retry-after longer than maxRetryAfterMs moves on to the next upstream at once', async () => {
  flakyCalls = 0;
  const started = Date.now();
  const res = await call('flaky');
  expect(res.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(10_000); // waiting out the retry-after would take 60 s
  const entry = await logEntry(gw.store, res.requestId);
  expect(entry.attempts.map((a) => [a.upstream, a.code])).toEqual([['flaky', 'rate_limit_error'], ['good', undefined]]);
});

it('a retry-after within maxRetryAfterMs is waited for before the retry', async () => {
  flakyCalls = 0;
  const started = Date.now();
  const res = await call('flaky-wait');
  expect(res.status).toBe(200);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  const entry = await logEntry(gw.store, res.requestId);
  expect(entry.attempts.map((a) => [a.upstream, a.ok])).toEqual([['flaky', false], ['flaky', true]]);
});

it('checks its options', () => {
  expect(() => failover([])).toThrow(refused('ERR_MGW_MISSING_OPTION', /at least one adapter/));
  expect(() => failover([anthropicAdapter({ baseURL: 'http://x' })], { attempts: 0 })).toThrow(refused('ERR_MGW_INVALID_INTEGER', /option "attempts"/));
});
