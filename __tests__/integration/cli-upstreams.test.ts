/** The binary calls each upstream at its documented endpoint from either base URL form, and validate and serve say which URL (never a key). */
import OpenAI from 'openai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { processEnv, runBinaryAsync, startBinary } from '../helpers/binary';
import { startOpenAIFake } from '../helpers/fake-openai';
import { UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';
import { tempDirs } from '../helpers/local';

const dirs = tempDirs();
let upstream: GatedFake;
beforeAll(async () => { upstream = await startOpenAIFake(); });
afterAll(() => upstream.close());

const ADMIN = 'upstreams-admin-token-0123456789';
const config = `
server: { port: 0 }
upstreams:
  openai: { type: openai, baseURL: "\${OPENAI_BASE_URL}", apiKey: "\${OPENAI_API_KEY}" }
  anthropic: { type: anthropic, baseURL: "http://127.0.0.1:9/", apiKey: "\${OPENAI_API_KEY}" }
  cohere-v1: { type: cohere, baseURL: "http://127.0.0.1:9/v1" }
  cohere: { type: cohere, baseURL: "http://127.0.0.1:9" }
  jina: { type: jina, baseURL: "http://127.0.0.1:9/v1/" }
  tei: { type: tei, baseURL: "http://ops:s3cret@127.0.0.1:9" }
  either: { type: failover, of: [openai, anthropic] }
models:
  - { id: gpt, capability: llm, upstream: openai, upstreamModel: gpt-json, free: true }
admin: { tokens: [{ name: ops, token: ${ADMIN}, access: write }] }
`;

it.each([['with /v1', '/v1'], ['with /v1/', '/v1/'], ['without the version', '']])('OPENAI_BASE_URL %s: validate and serve print the endpoints, and a call reaches /v1/chat/completions', async (_, tail) => {
  const file = path.join(await dirs.make(), 'gateway.yaml');
  writeFileSync(file, config);
  const env = processEnv({ OPENAI_BASE_URL: `${upstream.url}${tail}`, OPENAI_API_KEY: UPSTREAM_KEY, MODEL_GATEWAY_CONFIG: undefined });
  const endpoints = {
    openai: `POST ${upstream.url}/v1/chat/completions`,
    anthropic: 'POST http://127.0.0.1:9/v1/messages',
    'cohere-v1': 'POST http://127.0.0.1:9/v1/rerank',
    cohere: 'POST http://127.0.0.1:9/v2/rerank',
    jina: 'POST http://127.0.0.1:9/v1/rerank',
    tei: 'POST http://***:***@127.0.0.1:9/rerank',
    either: 'failover to openai, then anthropic',
  };
  const lines = Object.entries(endpoints).map(([name, what]) => `  upstream ${name}: ${what}`).join('\n');

  const validated = await runBinaryAsync(['validate', '--config', file], env);
  expect(validated).toMatchObject({ code: 0, out: `${file}: valid (1 models)\n${lines}\n` });
  expect(JSON.parse((await runBinaryAsync(['validate', '--config', file, '--json'], env)).out)).toEqual({ valid: true, models: 1, upstreams: endpoints });

  const gw = startBinary(['serve', '--config', file], env);
  try {
    const url = (await gw.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
    await gw.waitFor(/mounts: .*\n/);
    expect(gw.out()).toContain(`models: gpt (llm, openai)\n${lines}\n  mounts:`);
    expect(gw.out()).not.toContain(UPSTREAM_KEY);
    expect(gw.out()).not.toContain('s3cret');

    const created = await fetch(`${url}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ callerId: 'c' }) });
    const { key } = (await created.json()) as { key: string };
    const before = upstream.received.length;
    const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
    const answer = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.choices[0]?.message.content).toBe('Hi there!');
    expect(upstream.received.slice(before).map((r) => r.path)).toEqual(['/v1/chat/completions']);
  } finally {
    expect(await gw.stop()).toBe(0);
  }
});
