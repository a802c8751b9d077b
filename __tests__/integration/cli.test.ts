/** The `model-gateway` binary as real processes: serve from a config (PostgreSQL, Redis), SDK clients, operator commands, SIGHUP, SIGTERM, zero-config. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processEnv, runBinary, startBinary } from '../helpers/binary';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';
import { PG_URL, pgPool, REDIS_URL, uniqueSchema } from '../helpers/services';

const ADMIN = 'cli-admin-token-0123456789';
let upstream: GatedFake;
let dir: string;
const schema = uniqueSchema();
beforeAll(async () => {
  upstream = await startAnthropicFake();
  dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-cli-'));
});
afterAll(async () => {
  await upstream.close();
  const pool = await pgPool(1);
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

/** The processes' environment; a variable given as undefined is left out. */
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv =>
  processEnv({ DATABASE_URL: PG_URL, REDIS_URL, ANTHROPIC_BASE_URL: upstream.url, ANTHROPIC_API_KEY: UPSTREAM_KEY, ADMIN_TOKEN: ADMIN, ...extra });
const config = (models: string[]): string => `
server: { port: 0 }
store: { type: postgres, url: "\${DATABASE_URL}", schema: ${schema}, keyCacheMs: 0 }
redis: { url: "\${REDIS_URL}" }
limits: { defaults: { rpm: 1000 }, keyPrefix: ${schema} }
upstreams:
  anthropic: { type: anthropic, baseURL: "\${ANTHROPIC_BASE_URL}", apiKey: "\${ANTHROPIC_API_KEY}" }
models:
${models.map((id) => `  - { id: ${id}, capability: llm, upstream: anthropic, upstreamModel: ${id === 'claude-slow' ? 'claude-slow' : 'claude-json'}, pricing: { input: 300, output: 1500 } }`).join('\n')}
admin: { tokens: [{ name: ops, token: "\${ADMIN_TOKEN}", access: write }] }
metrics: {}
health: {}
`;

/** Runs an operator command to its end. */
const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runBinary(args, env(extra));
/** A running `serve`. */
const start = (args: string[], extra: NodeJS.ProcessEnv = {}) => startBinary(['serve', ...args], env(extra));

it('serves from a config with PostgreSQL and Redis: operator commands, SDK clients, SIGHUP reload (and a refused one), SIGTERM drain', async () => {
  const file = path.join(dir, 'gateway.yaml');
  writeFileSync(file, config(['claude', 'claude-slow']));
  const gw = start(['--config', file]);
  try {
    const url = `http://127.0.0.1:${(await gw.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`;
    await gw.waitFor(/mounts: .*\n/); // the summary's last line
    expect(gw.out()).toMatch(/store: postgres, schema \w+, migrations applied now: 1, 2, 3, .*; limits: redis/);
    expect(gw.out()).toContain('mounts: /v1 (public API), admin API /admin, metrics /metrics, health /livez /readyz');
    expect(gw.out()).not.toContain(UPSTREAM_KEY);
    expect(gw.out()).not.toContain(ADMIN);

    const created = cli(['keys', 'create', 'tester', '--config', file, '--json']);
    expect(created.code).toBe(0);
    const { key, record } = JSON.parse(created.out) as { key: string; record: { keyId: string } };
    expect(JSON.parse(cli(['credit', 'tester', '100000', '--idempotency-key', 'open', '--config', file, '--json']).out)).toMatchObject({ applied: true, account: { balance: 100000 } });
    expect(JSON.parse(cli(['credit', 'tester', '100000', '--idempotency-key', 'open', '--config', file, '--json']).out)).toMatchObject({ applied: false, account: { balance: 100000 } });
    expect(cli(['credit', 'tester', '5', '--config', file])).toMatchObject({ code: 2, err: expect.stringContaining('--idempotency-key is required') });

    const anthropic = new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    expect(message.model).toBe('claude');
    const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
    expect((await openai.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'Hi' }] })).choices[0]?.message.content).toBe('Hello from the fake upstream');
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${url}/admin/accounts/tester`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()).toMatchObject({ callerId: 'tester' });

    // SIGHUP: a new model serves at once; an invalid file is refused and the old config keeps serving.
    writeFileSync(file, config(['claude', 'claude-slow', 'claude-two']));
    gw.child.kill('SIGHUP');
    await gw.waitFor(/reloaded .*claude-two/);
    expect((await anthropic.messages.create({ model: 'claude-two', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] })).model).toBe('claude-two');
    writeFileSync(file, config(['claude']).replace('capability: llm', 'capability: vision'));
    gw.child.kill('SIGHUP');
    await gw.waitFor(/reload refused, the old config keeps serving: models\[0\]\.capability: must be one of "llm", "rerank"/);
    expect((await anthropic.messages.create({ model: 'claude-two', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] })).model).toBe('claude-two');
    writeFileSync(file, config(['claude', 'claude-slow', 'claude-two']));

    expect(cli(['keys', 'list', '--config', file]).out).toContain(record.keyId);
    expect(cli(['keys', 'disable', record.keyId, '--config', file]).code).toBe(0);
    await expect(anthropic.messages.create({ model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    expect(cli(['keys', 'enable', record.keyId, '--config', file]).code).toBe(0);
    const rotated = JSON.parse(cli(['keys', 'rotate', record.keyId, '--grace-seconds', '60', '--config', file, '--json']).out) as { key: string; record: { keyId: string } };
    expect((await new Anthropic({ apiKey: rotated.key, baseURL: url, maxRetries: 0 }).messages.create({ model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] })).model).toBe('claude');
    expect(JSON.parse(cli(['reviews', 'list', '--config', file, '--json']).out)).toEqual({ items: [], next: null });
    // A reply longer than its max_tokens is implausible: flagged for review, resolved from the command line.
    const flagged = await anthropic.messages.create({ model: 'claude', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    const flaggedId = flagged.response.headers.get('request-id') as string;
    let open: { items: Array<{ requestId: string }> } = { items: [] };
    for (let i = 0; i < 50 && open.items.length === 0; i++) open = JSON.parse(cli(['reviews', 'list', '--caller', 'tester', '--config', file, '--json']).out) as typeof open;
    expect(open.items.map((r) => r.requestId)).toEqual([flaggedId]);
    expect(cli(['reviews', 'resolve', flaggedId, '--waive', '--reason', 'test', '--config', file])).toMatchObject({ code: 0, out: expect.stringContaining(`resolved: ${flaggedId} waive`) });
    expect(cli(['reviews', 'resolve', flaggedId, '--config', file])).toMatchObject({ code: 2, err: expect.stringContaining('--reason is required') });
    expect(cli(['keys', 'revoke', rotated.record.keyId, '--config', file, '--json']).out).toContain('"status":"revoked"');
    expect(JSON.parse(cli(['migrate', '--config', file, '--json']).out)).toEqual({ applied: [] });

    // SIGTERM while a stream is open: it finishes, billing is flushed, the process exits 0.
    const streaming = anthropic.messages.stream({ model: 'claude-slow', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    const requestId = await new Promise<string>((resolve, reject) => {
      streaming.on('streamEvent', () => resolve(streaming.request_id as string));
      streaming.on('error', reject);
    });
    gw.child.kill('SIGTERM');
    expect((await streaming.finalMessage()).stop_reason).toBe('end_turn');
    expect(await gw.exited).toBe(0);
    expect(gw.out()).toContain('stopped');
    const pool = await pgPool(1);
    const row = await pool.query(`SELECT billing_status, cost::text FROM ${schema}.request_log WHERE request_id = $1`, [requestId]);
    await pool.end();
    expect(row.rows).toEqual([{ billing_status: 'billed', cost: '0.03' }]);
    expect(gw.out()).not.toContain(key);
  } catch (err) {
    throw new Error(`${String(err)}\n--- gateway output ---\n${gw.out().slice(-3000)}`);
  } finally {
    if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
  }
}, 90_000);

it('the sample config validates as shipped and starts (its ports set to 0 here)', async () => {
  const sample = path.join(__dirname, '..', '..', 'examples', 'gateway.yaml');
  const sampleEnv = { OPENAI_BASE_URL: upstream.url, OPENAI_API_KEY: 'sk-o', COHERE_BASE_URL: upstream.url, COHERE_API_KEY: 'sk-c', ADMIN_READ_TOKEN: 'cli-read-token-0123456789' };
  expect(cli(['validate', '--config', sample], sampleEnv)).toMatchObject({ code: 0, out: expect.stringContaining('valid (4 models)') });
  const copy = path.join(dir, 'sample.yaml');
  writeFileSync(copy, readFileSync(sample, 'utf8').replace(/port: (\d+|\$\{PORT:-\d+\})/g, 'port: 0').replace('schema: model_gateway', `schema: ${schema}`));
  const gw = start(['--config', copy], sampleEnv);
  try {
    await gw.waitFor(/mounts: .*admin API \/admin on :0, metrics \/metrics on :0, health \/livez \/readyz on :0/);
    expect(gw.out()).toContain('models: claude (llm, anthropic), gpt (llm, openai), any-chat (llm, failover to anthropic (claude-sonnet-4-5), then openai (gpt-4o-mini)), rerank (rerank, cohere)');
  } finally {
    await gw.stop();
  }
}, 30_000);

it('per-upstream timeouts and maxSockets from the config: an idle limit ends a stalled stream, one connection serves one call at a time', async () => {
  const file = path.join(dir, 'upstreams.yaml');
  writeFileSync(file, `
server: { port: 0 }
upstreams:
  impatient: { type: anthropic, baseURL: "\${ANTHROPIC_BASE_URL}", apiKey: "\${ANTHROPIC_API_KEY}", timeouts: { idleMs: 300 } }
  single: { type: anthropic, baseURL: "\${ANTHROPIC_BASE_URL}", apiKey: "\${ANTHROPIC_API_KEY}", maxSockets: 1 }
models:
  - { id: impatient, capability: llm, upstream: impatient, upstreamModel: claude-gated, free: true }
  - { id: single-gated, capability: llm, upstream: single, upstreamModel: claude-gated, free: true }
  - { id: single-json, capability: llm, upstream: single, upstreamModel: claude-json, free: true }
admin: { tokens: [{ name: ops, token: "\${ADMIN_TOKEN}", access: write }] }
`);
  const bad = path.join(dir, 'upstreams-bad.yaml');
  writeFileSync(bad, readFileSync(file, 'utf8').replace('idleMs: 300', 'idleMs: 0'));
  expect(cli(['validate', '--config', bad])).toMatchObject({ code: 2, err: expect.stringContaining('upstreams.impatient.timeouts.idleMs: must be >= 1') });
  const gw = start(['--config', file]);
  try {
    const url = `http://127.0.0.1:${(await gw.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`;
    const created = await fetch(`${url}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ callerId: 'upstreams' }) });
    const { key } = (await created.json()) as { key: string };
    const post = (model: string, stream: boolean): Promise<Response> => fetch(`${url}/v1/messages`, {
      method: 'POST', signal: AbortSignal.timeout(20_000), headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 64, stream, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    // The gated stream stalls after its first delta until the test opens the gates: idleMs 300 ends it.
    const stalled = await (await post('impatient', true)).text();
    expect(stalled).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"timeout_error"/);
    // With one connection, a JSON call waits for the stream holding it; without the cap it would answer at once.
    const streaming = await post('single-gated', true);
    const reader = (streaming.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the first delta: the stream holds the connection
    const order: string[] = [];
    const json = post('single-json', false).then((r) => { order.push('json'); return r.status; });
    await new Promise((r) => setTimeout(r, 1000)); // time for an uncapped call to come back
    upstream.openGates();
    while (!(await reader.read()).done);
    order.push('stream ended');
    expect(await json).toBe(200);
    expect(order).toEqual(['stream ended', 'json']);
  } catch (err) {
    throw new Error(`${String(err)}\n--- gateway output ---\n${gw.out().slice(-3000)}`);
  } finally {
    upstream.openGates();
    await gw.stop();
  }
}, 60_000);
