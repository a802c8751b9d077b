/**
 * The README's TypeScript, as written: the quick start serves the SDK client's call through its three upstreams
 * (fakes named by the environment variables it reads) and drains on SIGTERM; the store interface is the exported
 * one; the PostgresStore lines migrate a database; the operations lines serve metrics, health and the admin API.
 */
import { randomBytes } from 'node:crypto';
import { compile, scratch, snippetsUnder, start, runToEnd, type Started } from '../helpers/snippets';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startOpenAIFake } from '../helpers/fake-openai';
import { startRerankFake } from '../helpers/fake-rerank';
import { UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { PG_URL, pgPool, REDIS_URL } from '../helpers/services';

jest.setTimeout(90_000);
const work = scratch('readme');
const [quickStart, sdkClient] = snippetsUnder('README.md', 'Quick start') as [string, string];
const [storeInterface, postgresStore] = snippetsUnder('README.md', 'Stores') as [string, string];
const [operations] = snippetsUnder('README.md', 'Operations') as [string];
let files: Record<string, string>;
let anthropic: FakeServer;
let openai: FakeServer;
let cohere: FakeServer;

/** The environment of a user's shell: none of jest's npm variables, no upstream of the developer's. */
const env = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_|^(ANTHROPIC|OPENAI|COHERE)_|^GATEWAY_/i.test(name)) base[name] = value;
  return { ...base, ...extra };
};

beforeAll(async () => {
  [anthropic, openai, cohere] = await Promise.all([startAnthropicFake(), startOpenAIFake(), startRerankFake('cohere')]);
  files = compile(work.dir, [
    { name: 'quick-start', code: quickStart,
      after: "server.once('listening', () => console.log(`listening ${JSON.stringify(server.address())}`));" },
    { name: 'sdk-client', code: sdkClient,
      after: "console.log(JSON.stringify({ text: message.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), usage: message.usage }));" },
    { name: 'store-interface', code: storeInterface,
      before: "import type { Awaitable, Caller, ReserveRequest, ReserveResult, Settlement, RequestLogEntry, GatewayStore as Exported } from 'model-gateway';",
      after: [
        '// The README\'s interface and the exported one accept the same stores.',
        'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
        'export const same: Same<GatewayStore, Exported> = true;',
      ].join('\n') },
    { name: 'postgres-store', code: postgresStore,
      before: "import { Pool } from 'pg';\nimport { PostgresStore } from 'model-gateway';\nconst connectionString = process.env.DATABASE_URL;",
      after: [
        "await store.addKey('sk-snippet', { id: 'snippet' });",
        "const digest = (await import('node:crypto')).createHash('sha256').update('sk-snippet').digest('hex');",
        "console.log(JSON.stringify({ caller: (await store.findCaller(digest))?.id }));",
        'await store.close();',
        'process.exit(0);',
      ].join('\n') },
    { name: 'operations', code: operations,
      before: [
        "import express from 'express';",
        "import pino from 'pino';",
        "import { Redis } from 'ioredis';",
        "import { createAdminRouter, createGatewayRouter, createMetrics, health, localStandIn, MemoryStore, type ModelEntry } from 'model-gateway';",
        'const store = new MemoryStore();',
        "store.addKey('sk-ops', { id: 'ops-caller' });",
        "store.credit({ callerId: 'ops-caller', amount: 1000, idempotencyKey: 'ops-opening' });",
        "const models: ModelEntry[] = [{ id: 'demo', capability: 'llm', upstream: localStandIn(), pricing: { input: 1, output: 1 } }];",
        'const redis = new Redis(process.env.REDIS_URL as string);',
        'const app = express();',
        'const ops = express();',
      ].join('\n'),
      after: [
        "const publicServer = app.listen(0, '127.0.0.1', () => {",
        "  const opsServer = ops.listen(0, '127.0.0.1', () => console.log(`ports ${JSON.stringify([publicServer.address(), opsServer.address()])}`));",
        "  process.once('SIGTERM', () => { publicServer.close(); opsServer.close(); void router.close().then(() => { redis.disconnect(); }); });",
        '});',
      ].join('\n') },
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([anthropic.close(), openai.close(), cohere.close()]);
  work.remove();
});

async function stop(running: Started): Promise<number | string | null> {
  running.child.kill('SIGTERM');
  const bound = new Promise<string>((resolve) => { setTimeout(() => resolve('still running 15 s after SIGTERM'), 15_000).unref(); });
  const result = await Promise.race([running.exited, bound]);
  if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
  return result;
}

it('the quick start serves the SDK client\'s stream, each model through the upstream it names, and exits on SIGTERM', async () => {
  const gateway = start(files['quick-start'] as string, env({
    PORT: '0', ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: UPSTREAM_KEY, VLLM_URL: openai.url, COHERE_BASE_URL: cohere.url, COHERE_API_KEY: UPSTREAM_KEY,
  }));
  try {
    const { port } = JSON.parse((await gateway.waitFor(/^listening (.*)$/m))[1] as string) as { port: number };
    const url = `http://127.0.0.1:${port}`;
    const answer = JSON.parse(await runToEnd(files['sdk-client'] as string, env({ GATEWAY_URL: url }))) as { text: string; usage: { output_tokens: number } };
    expect(answer).toMatchObject({ text: 'Hello from the fake upstream', usage: { output_tokens: 15 } });
    expect(anthropic.received.at(-1)).toMatchObject({ path: '/v1/messages', body: { model: 'claude-sonnet-4-5', stream: true }, headers: { 'x-api-key': UPSTREAM_KEY } });

    const headers = { 'x-api-key': 'sk-live-example-key', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
    const qwen = await fetch(`${url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ model: 'qwen', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }) });
    expect(qwen.status).toBe(200);
    expect(openai.received.at(-1)?.body).toMatchObject({ model: 'Qwen/Qwen3-8B' });
    const rerank = await fetch(`${url}/v1/rerank`, { method: 'POST', headers, body: JSON.stringify({ model: 'rerank', query: 'q', documents: ['a', 'b'] }) });
    expect(rerank.status).toBe(200);
    expect(cohere.received.at(-1)?.body).toMatchObject({ model: 'rerank-v3.5' });
    const models = await (await fetch(`${url}/v1/models`, { headers })).json() as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(['claude-sonnet', 'qwen', 'rerank']);
  } finally {
    expect(await stop(gateway)).toBe(0);
  }
});

it('the store interface the README shows is the exported GatewayStore (checked by the compiler above)', () => {
  expect(storeInterface).toContain('interface GatewayStore');
  expect(files['store-interface']).toBeDefined();
});

it('the PostgresStore lines migrate a fresh database and serve keys', async () => {
  const admin = await pgPool(1);
  const database = `mgw_snippet_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${database}`);
  try {
    const url = new URL(PG_URL);
    url.pathname = `/${database}`;
    const out = await runToEnd(files['postgres-store'] as string, env({ DATABASE_URL: url.toString() }));
    expect(JSON.parse(out)).toEqual({ caller: 'snippet' });
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
});

it('the operations lines serve the router, metrics, health with its checks, and the admin API on the operator app', async () => {
  const token = `admin-${randomBytes(12).toString('hex')}`;
  const running = start(files.operations as string, env({ ADMIN_TOKEN: token, REDIS_URL }));
  try {
    const [pub, ops] = (JSON.parse((await running.waitFor(/^ports (.*)$/m))[1] as string) as Array<{ port: number }>).map((a) => `http://127.0.0.1:${a.port}`);
    const served = await fetch(`${pub}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'sk-ops', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] }) });
    expect(served.status).toBe(200);
    expect(await (await fetch(`${ops}/metrics`)).text()).toMatch(/model_gateway_requests_total\{endpoint="messages",model="demo",status="200"\} 1/);
    expect(await (await fetch(`${ops}/readyz`)).json()).toMatchObject({ checks: { store: 'ok', redis: 'ok', router: 'ok' } });
    expect((await fetch(`${ops}/livez`)).status).toBe(200);
    const account = await fetch(`${ops}/admin/accounts/ops-caller`, { headers: { authorization: `Bearer ${token}` } });
    expect(await account.json()).toMatchObject({ callerId: 'ops-caller' });
    expect(running.out()).toMatch(/"msg":"request finished"/); // pino(): one JSON line per request
  } finally {
    expect(await stop(running)).toBe(0);
  }
});
