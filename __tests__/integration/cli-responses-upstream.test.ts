/** The binary's `type: openai-responses` upstream: validate and serve print its endpoint (from either base URL form), the
 * Responses route passes through to it and the Messages route reaches it translated. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { processEnv, runBinaryAsync, startBinary } from '../helpers/binary';
import { message, responsesUsage, startResponsesFake, type ResponsesFake } from '../helpers/fake-responses';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { tempDirs } from '../helpers/local';

const dirs = tempDirs();
let upstream: ResponsesFake;
beforeAll(async () => {
  upstream = await startResponsesFake(() => ({ output: [message('Hi from Responses')], usage: responsesUsage({ input: 10, cached: 4, cacheWrite: 0, output: 3, reasoning: 0 }) }));
});
afterAll(() => upstream.close());

const ADMIN = 'responses-admin-token-0123456789';
const config = `
server: { port: 0 }
upstreams:
  native: { type: openai-responses, baseURL: "\${OPENAI_BASE_URL}", apiKey: "\${OPENAI_API_KEY}" }
models:
  - { id: gpt, capability: llm, upstream: native, upstreamModel: gpt-5.5, agentReady: true, pricing: { input: 100, output: 400 } }
admin: { tokens: [{ name: ops, token: ${ADMIN}, access: write }] }
`;

it.each([['with /v1', '/v1'], ['without the version', '']])('OPENAI_BASE_URL %s: validate prints /v1/responses; Responses and Messages clients are served', async (_, tail) => {
  const file = path.join(await dirs.make(), 'gateway.yaml');
  writeFileSync(file, config);
  const env = processEnv({ OPENAI_BASE_URL: `${upstream.url}${tail}`, OPENAI_API_KEY: UPSTREAM_KEY, MODEL_GATEWAY_CONFIG: undefined });
  expect(JSON.parse((await runBinaryAsync(['validate', '--config', file, '--json'], env)).out)).toEqual({ valid: true, models: 1, upstreams: { native: `POST ${upstream.url}/v1/responses` } });

  const gw = startBinary(['serve', '--config', file], env);
  try {
    const url = (await gw.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
    await gw.waitFor(/mounts: .*\n/);
    expect(gw.out()).not.toContain(UPSTREAM_KEY);
    const created = await fetch(`${url}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ callerId: 'c' }) });
    const { key } = (await created.json()) as { key: string };
    const credited = await fetch(`${url}/admin/accounts/c/credits`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'idempotency-key': 'opening' }, body: JSON.stringify({ amount: 1_000_000, createAccount: true }),
    });
    expect(credited.status).toBeLessThan(300);
    const response = await new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 }).responses.create({ model: 'gpt', input: 'Hi', store: false });
    expect(response).toMatchObject({ model: 'gpt', output_text: 'Hi from Responses' });
    expect(upstream.answers.at(-1)?.request.body).toEqual({ model: 'gpt-5.5', input: 'Hi', store: false });
    const made = await new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 }).messages.create({ model: 'gpt', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] });
    expect(made.content).toEqual([{ type: 'text', text: 'Hi from Responses' }]);
    expect(upstream.answers.at(-1)?.request.path).toBe('/v1/responses');
  } finally {
    expect(await gw.stop()).toBe(0);
  }
});
