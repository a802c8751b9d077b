/** `serve` as a process: SIGTERM drains with the ports open for the configured grace; every port answers what it does not serve in the standard JSON error. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { processEnv, startBinary, type Running } from '../helpers/binary';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';

const ADMIN = 'serve-admin-token-0123456789';
const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-serve-'));
let upstream: GatedFake;
beforeAll(async () => { upstream = await startAnthropicFake(); });
afterAll(async () => { await upstream.close(); });

/**
 * Starts serve on `yaml` (OPS_PORT replaced by a port of its own), with the fake upstream, a gated
 * free model and the admin API on that port; resolves with the public and the operator URLs.
 */
async function serve(name: string, yaml: string): Promise<{ gw: Running; url: string; ops: string }> {
  const port = await freePort();
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, `${yaml.replaceAll('OPS_PORT', String(port))}
upstreams: { anthropic: { type: anthropic, baseURL: "${upstream.url}", apiKey: ${UPSTREAM_KEY} } }
models: [{ id: gated, capability: llm, upstream: anthropic, upstreamModel: claude-gated, free: true }]
admin: { port: ${port}, tokens: [{ name: ops, token: ${ADMIN}, access: write }] }
`);
  const gw = startBinary(['serve', '--config', file], processEnv({}));
  const url = (await gw.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
  await gw.waitFor(/ports: \d+, \d+\n/);
  return { gw, url, ops: `http://127.0.0.1:${port}` };
}

/** A port nothing listens on now (for a mount on a port of its own). */
const freePort = (): Promise<number> => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as net.AddressInfo;
    s.close(() => resolve(port));
  });
});

async function keyFor(ops: string): Promise<string> {
  const res = await fetch(`${ops}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ callerId: 'drain' }) });
  return ((await res.json()) as { key: string }).key;
}
const ask = (url: string, key: string): Promise<Response> => fetch(`${url}/v1/messages`, {
  method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gated', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
});

it('SIGTERM: the ports stay open while a stream finishes (new requests 529, /readyz 503 draining, /livez 200: health is on with no health section), then exit 0', async () => {
  const { gw, url, ops } = await serve('drain', 'server: { port: 0, drainGraceMs: 600000 }\nmetrics: {}');
  try {
    const key = await keyFor(ops);
    const open = await ask(url, key);
    const reader = (open.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the stream is in flight, held by the upstream until the gates open

    gw.child.kill('SIGTERM');
    await gw.waitFor(/draining: new requests get 529/);
    const refused = await ask(url, key);
    expect(refused.status).toBe(529);
    expect(refused.headers.get('x-should-retry')).toBe('true');
    expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'unavailable', checks: { router: 'draining' } });
    expect((await fetch(`${url}/livez`)).status).toBe(200);
    expect(gw.child.exitCode).toBeNull();

    upstream.openGates();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
    expect(rest).toContain('event: message_stop');
    expect(rest).not.toContain('event: error');
    expect(await gw.exited).toBe(0);
    expect(gw.out()).toMatch(/stopped\n$/);
  } catch (err) {
    throw new Error(`${String(err)}\n--- gateway output ---\n${gw.out().slice(-3000)}`);
  } finally {
    upstream.openGates();
    await gw.stop();
  }
});

it('health: false turns the checks off (404 on the public port); health: true is the default', async () => {
  for (const [health, status] of [['false', 404], ['true', 200]] as const) {
    const { gw, url } = await serve(`health-${health}`, `server: { port: 0 }\nhealth: ${health}`);
    try {
      expect([health, (await fetch(`${url}/livez`)).status, (await fetch(`${url}/readyz`)).status]).toEqual([health, status, status]);
      expect(gw.out().includes('health /livez /readyz')).toBe(status === 200);
    } finally {
      expect(await gw.stop()).toBe(0);
    }
  }
});

it('server.drainGraceMs bounds the drain: with 0, a stream in flight ends at once with an overloaded_error event and the process exits 0', async () => {
  const { gw, url, ops } = await serve('no-grace', 'server: { port: 0, drainGraceMs: 0 }');
  try {
    const open = await ask(url, await keyFor(ops));
    const reader = (open.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    gw.child.kill('SIGTERM');
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
    expect(rest).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error"/);
    expect(await gw.exited).toBe(0);
  } finally {
    upstream.openGates();
    await gw.stop();
  }
});

it('every port answers an unknown path with 404 and a known path\'s wrong method with 405, in the standard JSON error with a request id', async () => {
  const { gw, url, ops } = await serve('ports', 'server: { port: 0 }\nhealth: { port: OPS_PORT }\nmetrics: { port: OPS_PORT }');
  try {
    const expectError = async (res: Response, status: number, type: string): Promise<void> => {
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { request_id: string };
      expect(body).toMatchObject({ type: 'error', error: { type }, request_id: expect.stringMatching(/^req_/) });
      expect(res.headers.get('request-id')).toBe(body.request_id);
    };
    for (const [base, at] of [[url, '/'], [url, '/admin/keys'], [url, '/livez'], [url, '/metrics'], [ops, '/'], [ops, '/v1/models'], [ops, '/livez/more']]) {
      await expectError(await fetch(`${base}${at}`), 404, 'not_found_error');
    }
    await expectError(await fetch(`${url}/v1/nope`, { method: 'DELETE' }), 404, 'not_found_error');
    for (const [at, method] of [['/livez', 'POST'], ['/readyz', 'DELETE'], ['/metrics', 'PUT']]) {
      const res = await fetch(`${ops}${at}`, { method });
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      await expectError(res, 405, 'method_not_allowed');
    }
    // The Responses route is the router's, so the binary's: its errors in OpenAI's shape.
    const responses = await fetch(`${url}/v1/responses`, { method: 'POST', headers: { authorization: 'Bearer sk-nope', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gated', input: 'Hi' }) });
    expect(responses.status).toBe(401);
    expect(await responses.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    expect((await fetch(`${url}/v1/responses`)).headers.get('allow')).toBe('POST');
    expect((await fetch(`${ops}/livez`)).status).toBe(200);
    expect((await fetch(`${ops}/metrics`)).status).toBe(200);
    expect((await fetch(`${ops}/admin/keys`, { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
  } finally {
    await gw.stop();
  }
});
