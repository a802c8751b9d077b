/**
 * The binary's config form of a model's names and failover members: `aliases`, `patterns` and `failover: [{ upstream,
 * upstreamModel, pricing }]` in the models section. A spawned `serve` answers Claude Code's default model name through
 * a pattern, sends each member its own model, bills at the serving member's prices, and shows them in the admin API.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { processEnv, runBinaryAsync, startBinary } from '../helpers/binary';
import { startOpenAIFake } from '../helpers/fake-openai';
import { failWith, startFake, type FakeServer } from '../helpers/fake-server';
import { tempDirs } from '../helpers/local';

const ADMIN = 'catalog-admin-token-0123456789';
const dirs = tempDirs();
let down: FakeServer;
let gpt: FakeServer;
beforeAll(async () => {
  down = await startFake((_req, res) => failWith(res, 503));
  gpt = await startOpenAIFake(); // usage: 30 prompt tokens of which 10 cached, 12 completion tokens
});
afterAll(async () => { await Promise.all([down.close(), gpt.close()]); });

const config = `
server: { port: 0 }
upstreams:
  anthropic: { type: anthropic, baseURL: "\${DOWN_URL}", apiKey: sk-a }
  openai: { type: openai, baseURL: "\${OPENAI_URL}", apiKey: sk-o }
models:
  - id: opus
    capability: llm
    aliases: ["claude-opus-4-8[1m]"]
    patterns: ["claude-opus-*"]
    failover:
      - { upstream: anthropic, upstreamModel: claude-opus-4-1, pricing: { input: 1500, output: 7500 } }
      - { upstream: openai, upstreamModel: gpt-5.1, pricing: { input: 2000000, output: 4000000, cacheRead: 500000 } }
  - { id: any-claude, capability: llm, upstream: anthropic, patterns: ["claude-*"], pricing: { input: 300, output: 1500 } }
admin: { tokens: [{ name: ops, token: ${ADMIN}, access: write }] }
`;

it('serve: a pattern answers a dated name, each member gets its own model, the bill is at the serving member\'s prices', async () => {
  const file = path.join(await dirs.make(), 'gateway.yaml');
  writeFileSync(file, config);
  const env = processEnv({ DOWN_URL: down.url, OPENAI_URL: gpt.url, MODEL_GATEWAY_CONFIG: undefined });
  expect(await runBinaryAsync(['validate', '--config', file], env)).toMatchObject({ code: 0, out: expect.stringContaining('valid (2 models)') });
  const gw = startBinary(['serve', '--config', file], env);
  try {
    const url = (await gw.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
    expect((await gw.waitFor(/models: .*\n/))[0]).toBe('models: opus (llm, failover to anthropic (claude-opus-4-1), then openai (gpt-5.1)), any-claude (llm, anthropic)\n');
    const admin = (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => fetch(`${url}/admin${route}`, {
      method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
    }).then((r) => r.json() as Promise<any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    // An allow-list names catalog ids (an alias is refused with the id to name); the model's other names are allowed with it.
    expect(await admin('POST', '/keys', { callerId: 'team', models: ['claude-opus-4-8[1m]'] })).toMatchObject({
      error: { type: 'invalid_request_error', message: 'models.0: "claude-opus-4-8[1m]" is another name of "opus"; an allow-list names catalog ids (its other names are allowed with it): use "opus"' },
    });
    const { key } = await admin('POST', '/keys', { callerId: 'team', models: ['opus'] });
    await admin('POST', '/accounts/team/credits', { amount: 1_000_000 }, { 'idempotency-key': 'opening' });
    const asked = 'claude-opus-4-8-20261201';
    const res = await fetch(`${url}/v1/messages`, {
      method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: asked, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect([res.status, ((await res.json()) as { model: string }).model]).toEqual([200, asked]);
    expect(down.received.at(-1)?.body.model).toBe('claude-opus-4-1');
    expect(gpt.received.at(-1)?.body.model).toBe('gpt-5.1');
    const entry = await admin('GET', `/requests/${res.headers.get('request-id') as string}`);
    // 20 × 2 + 10 cache reads × 0.5 + 12 × 4: the OpenAI member's own prices.
    expect(entry).toMatchObject({ model: 'opus', upstream: 'openai', cost: '93', charge: 93 });
    expect(entry.attempts.map((a: { upstream: string; ok: boolean; model: string }) => [a.upstream, a.ok, a.model])).toEqual([['anthropic', false, 'claude-opus-4-1'], ['openai', true, 'gpt-5.1']]);
    const models = (await admin('GET', '/models')).items as Array<{ id: string; aliases: string[]; patterns: string[]; members: Array<{ upstreamModel: string; prices: Record<string, string> }> | null }>;
    expect(models[0]).toMatchObject({ id: 'opus', aliases: ['claude-opus-4-8[1m]'], patterns: ['claude-opus-*'] });
    expect(models[0]?.members?.map((m) => [m.upstreamModel, m.prices.input, m.prices.cacheRead])).toEqual([['claude-opus-4-1', '1500', '150'], ['gpt-5.1', '2000000', '500000']]);
    // This key's allow-list holds opus only: another model's pattern is not found for it.
    const other = await fetch(`${url}/v1/messages`, {
      method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(other.status).toBe(404);
  } finally {
    await gw.stop();
  }
});
