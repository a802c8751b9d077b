/** `model-gateway serve` with Redis unreachable (a TCP proxy to the real Redis, cut): `limits.failOpen` serves and bills without the limits; without it the start fails. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { processEnv, runBinaryAsync, startBinary, type Running } from '../helpers/binary';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { tempDirs } from '../helpers/local';
import { dropPrefix, REDIS_URL, redisClient } from '../helpers/services';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(60_000);
const dirs = tempDirs();
const TOKEN = 'cli-redis-down-ops-0123456789';
const keyPrefix = `test-down-${process.pid}`;
let upstream: FakeServer;
let proxy: TcpProxy;
let dir: string;

const config = (failOpen: boolean): string => {
  const file = path.join(dir, `gateway-${failOpen}.yaml`);
  writeFileSync(file, `
server: { port: 0 }
store: { type: memory }
redis: { url: "redis://127.0.0.1:${proxy.port}" }
limits: { defaults: { rpm: 2 }, keyPrefix: ${keyPrefix}${failOpen ? ', failOpen: true' : ''} }
upstreams: { anthropic: { type: anthropic, baseURL: "${upstream.url}", apiKey: ${UPSTREAM_KEY} } }
models:
  - { id: claude-json, capability: llm, upstream: anthropic, pricing: { input: 1000000, output: 2000000 } }
admin: { tokens: [{ name: ops, token: ${TOKEN}, access: write }] }
metrics: { path: /metrics }
`);
  return file;
};

beforeAll(async () => {
  upstream = await startAnthropicFake();
  const target = new URL(REDIS_URL);
  proxy = await startTcpProxy(Number(target.port || 6379), target.hostname);
  proxy.cut();
  dir = await dirs.make();
});
afterAll(async () => {
  await Promise.all([upstream.close(), proxy.close()]);
  const redis = await redisClient();
  await dropPrefix(redis, keyPrefix);
  redis.disconnect();
});

it('without limits.failOpen, a Redis that cannot be reached fails the start, naming it', async () => {
  const out = await runBinaryAsync(['serve', '--config', config(false)], processEnv());
  expect(out.code).toBe(1);
  expect(out.err).toMatch(/redis\.url: Redis could not be reached: .*; check redis\.url and that Redis is running/);
});

it('with limits.failOpen: serves and bills without the limits (a warning, a metric, readiness degraded), and applies them once Redis is reached', async () => {
  const gw: Running = startBinary(['serve', '--config', config(true)], processEnv());
  try {
    const url = `http://127.0.0.1:${(await gw.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`;
    expect(gw.out()).toMatch(/redis: Redis could not be reached: .*; serving with the limits failing open \(limits\.failOpen\) until it is reached/);
    const admin = async (method: string, route: string, body?: unknown): Promise<any> => { // eslint-disable-line @typescript-eslint/no-explicit-any
      const res = await fetch(`${url}/admin${route}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': `k-${route}` }, body: body === undefined ? undefined : JSON.stringify(body) });
      return res.json();
    };
    const newKey = async (callerId: string): Promise<string> => {
      const { key } = await admin('POST', '/keys', { callerId });
      await admin('POST', `/accounts/${callerId}/credits`, { amount: 1000, createAccount: true });
      return key as string;
    };
    const call = async (key: string): Promise<{ status: number; requestId: string }> => {
      const res = await fetch(`${url}/v1/messages`, {
        method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-json', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
      });
      await res.text();
      return { status: res.status, requestId: res.headers.get('request-id') as string };
    };
    const logged = async (requestId: string): Promise<any> => { // eslint-disable-line @typescript-eslint/no-explicit-any
      for (let i = 0; i < 300; i++) {
        const res = await fetch(`${url}/admin/requests/${requestId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
        if (res.status === 200) return res.json();
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no log entry for ${requestId}`);
    };

    const key = await newKey('down');
    const served = [await call(key), await call(key), await call(key)]; // rpm 2 would refuse the third
    expect(served.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const r of served) expect(await logged(r.requestId)).toMatchObject({ billingStatus: 'billed', charge: 55, detail: expect.stringMatching(/admitted without rpm \(limits\.failOpen\)$/) });
    expect((await admin('GET', '/accounts/down')).balance).toBe(1000 - 3 * 55);
    expect(gw.out()).toMatch(/"level":"warn".*"msg":"limits backend unavailable: request admitted without its limits \(limits\.failOpen\)"/);
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('model_gateway_limits_fail_open_total{limit="rpm"} 3');
    const ready = await fetch(`${url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, expect.objectContaining({ status: 'degraded', checks: expect.objectContaining({ redis: 'degraded', store: 'ok' }) })]);

    proxy.restore();
    await gw.waitFor(/redis: reached; the limits apply again/, 15_000);
    const again = await fetch(`${url}/readyz`);
    expect([again.status, await again.json()]).toEqual([200, expect.objectContaining({ status: 'ok', checks: expect.objectContaining({ redis: 'ok' }) })]);
    const limited = await newKey('limited');
    expect([(await call(limited)).status, (await call(limited)).status, (await call(limited)).status]).toEqual([200, 200, 429]);
  } catch (err) {
    throw new Error(`${String(err)}\n--- gateway output ---\n${gw.out().slice(-3000)}`);
  } finally {
    expect(await gw.stop()).toBe(0);
  }
});
