/** Property-based bad input on every endpoint: never a 5xx, never a crash, never an upstream call when invalid. */
import fc from 'fast-check';
import http from 'node:http';
import { cohereAdapter } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startRerankFake } from '../helpers/fake-rerank';
import type { FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels, startGateway, type RunningGateway } from '../helpers/gateway';

/** Cases per property: 300 in `npm test` (a fresh seed each run; 1000 cost 6 s more of the suite); `npm run fuzz` runs 20000. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
jest.setTimeout(Math.max(60_000, RUNS * 60));

let llm: FakeServer;
let rerank: FakeServer;
let gw: RunningGateway;
let key: string;
let other: string;
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

beforeAll(async () => {
  llm = await startAnthropicFake();
  rerank = await startRerankFake('cohere');
  gw = await startGateway({
    models: [...llmModels(llm.url, llm.url, ['claude-json']), ...llmModels(llm.url, llm.url, ['claude-json']).map((m) => ({ ...m, id: 'claude-agent', upstreamModel: 'claude-json', agentReady: true })), { id: 'rr', capability: 'rerank', upstream: cohereAdapter({ baseURL: rerank.url }), pricing: { input: 1 } }],
  });
  ({ key } = addCaller(gw.store));
  ({ key: other } = addCaller(gw.store));
});
afterAll(async () => {
  agent.destroy();
  await gw.close();
  await Promise.all([llm.close(), rerank.close()]);
});

interface Reply { status: number; headers: http.IncomingHttpHeaders; body: string }
function send(method: string, path: string, headers: Record<string, string | string[]>, body: string | undefined): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${gw.url}${path}`, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const weird = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constant('\u0000\uFFFF\uD800'),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString'), fc.string({ maxLength: 1 }).map((s) => s.repeat(200_000)),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), weird,
    fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(weird, tie('value'), { maxKeys: 4 })),
})).value;
const deep = fc.integer({ min: 100, max: 100_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`);
const protoKeys = fc.constantFrom('{"__proto__":{"admin":true},"model":"claude-json"}', '{"constructor":{"prototype":{"x":1}}}', '{"messages":[{"__proto__":{"role":"user"},"content":"x"}]}');

const validMessages = { model: 'claude-json', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] };
const validRerank = { model: 'rr', query: 'q', documents: ['a', 'b'] };
/** A valid body with one field replaced, removed or added. */
const mutated = (base: Record<string, unknown>) => fc.tuple(fc.constantFrom(...Object.keys(base), 'stream', 'tools', 'system', 'top_n', 'extra'), fc.option(json))
  .map(([field, value]) => {
    const copy: Record<string, unknown> = { ...base };
    if (value === null) delete copy[field];
    else copy[field] = value;
    return JSON.stringify(copy);
  });

const bodies = (base: Record<string, unknown>) => fc.oneof(
  mutated(base), json.map((v) => JSON.stringify(v)), deep, protoKeys, weird,
  fc.constant('{"model":'), fc.constant(''), fc.constant(JSON.stringify(base)),
);
const auth = fc.oneof(
  fc.constant({}), fc.constant({ 'x-api-key': 'KEY' }), fc.constant({ authorization: 'Bearer KEY' }),
  fc.constant({ 'x-api-key': 'KEY', authorization: 'Bearer OTHER' }), fc.constant({ 'x-api-key': ['KEY', 'KEY'] }),
  fc.string({ maxLength: 30 }).filter((s) => /^[\x21-\x7e]*$/.test(s)).map((s) => ({ authorization: s })),
);
const version = fc.oneof(fc.constant({}), fc.constantFrom('2023-06-01', '2026-10-21', 'x', '2023-06-01, 2023-06-01').map((v) => ({ 'anthropic-version': v })),
  fc.constant({ 'anthropic-version': ['2023-06-01', '2023-01-01'] }));
const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin-9', '');

function resolveKeys(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const swap = (v: string) => v.replace('OTHER', other).replace('KEY', key);
    out[name] = Array.isArray(value) ? value.map(swap) : swap(value);
  }
  return out;
}

async function check(method: string, path: string, headers: Record<string, string | string[]>, body: string | undefined, upstream: FakeServer): Promise<void> {
  const calls = upstream.calls;
  const reply = await send(method, path, resolveKeys(headers), body);
  expect(reply.status).toBeLessThan(500);
  expect(reply.headers['request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  if (reply.status >= 400) {
    const parsed = JSON.parse(reply.body) as { type: string; error: { type: string; message: string }; request_id: string };
    expect(parsed.type).toBe('error');
    expect(typeof parsed.error.type).toBe('string');
    expect(typeof parsed.error.message).toBe('string');
    expect(parsed.request_id).toBe(reply.headers['request-id']);
    expect(upstream.calls).toBe(calls);
  }
}

it.each([
  ['/v1/messages', validMessages, 'llm'],
  ['/v1/rerank', validRerank, 'rerank'],
  ['/v2/rerank', validRerank, 'rerank'],
] as const)('POST %s: any body and headers get a 2xx or a standard 4xx, and an invalid one never reaches upstream', async (path, base, kind) => {
  await fc.assert(fc.asyncProperty(bodies(base), auth, version, contentType, async (body, a, v, type) => {
    const headers: Record<string, string | string[]> = { ...a, ...v } as Record<string, string | string[]>;
    if (type) headers['content-type'] = type;
    await check('POST', path, headers, body, kind === 'llm' ? llm : rerank);
  }), { numRuns: RUNS });
});

/** Input items of every type the Responses route reads, their fields anything. */
const item = fc.record({
  type: fc.oneof(fc.constantFrom('message', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'reasoning', 'item_reference', 'additional_tools', 'web_search_call'), weird),
  role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'developer'), weird),
  content: fc.oneof(json, fc.array(fc.record({ type: fc.oneof(fc.constantFrom('input_text', 'input_image', 'input_file', 'output_text', 'refusal'), weird), text: json, image_url: json, file_data: json }, { requiredKeys: [] }), { maxLength: 3 })),
  id: json, call_id: fc.oneof(weird, json), name: fc.oneof(weird, json), namespace: json, arguments: fc.oneof(weird, json.map((v) => JSON.stringify(v))), input: json, output: json,
  summary: json, encrypted_content: fc.oneof(weird, weird.map((w) => `mgw.v1.${w}`), weird.map((w) => `mgw.v2.${w}`)), tools: json,
}, { requiredKeys: [] });
const validResponses = { model: 'claude-agent', input: [{ role: 'user', content: 'hi' }], max_output_tokens: 8 };
const responsesBodies = fc.oneof(
  bodies(validResponses), bodies({ ...validResponses, model: 'claude-json' }),
  fc.tuple(fc.array(item, { maxLength: 5 }), fc.constantFrom('claude-agent', 'claude-json'), fc.option(json), fc.option(json))
    .map(([input, model, tools, choice]) => JSON.stringify({ model, input, max_output_tokens: 8, ...(tools === null ? {} : { tools }), ...(choice === null ? {} : { tool_choice: choice }) })),
);

it.each(['/v1/responses', '/v1/responses/input_tokens'])('POST %s: any body and headers get a 2xx or a 4xx in OpenAI\'s shape, and an invalid one never reaches upstream', async (path) => {
  await fc.assert(fc.asyncProperty(responsesBodies, auth, contentType, async (body, a, type) => {
    const headers: Record<string, string | string[]> = { ...a } as Record<string, string | string[]>;
    if (type) headers['content-type'] = type;
    const calls = llm.calls;
    const reply = await send('POST', path, resolveKeys(headers), body);
    expect(reply.status).toBeLessThan(500);
    expect(reply.headers['request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    if (reply.status < 400) return;
    const { error } = JSON.parse(reply.body) as { error: { type: unknown; message: unknown; code: unknown; param: unknown } };
    expect(typeof error.type).toBe('string');
    expect(typeof error.message).toBe('string');
    expect(error.param === null || typeof error.param === 'string').toBe(true);
    expect(llm.calls).toBe(calls);
  }), { numRuns: RUNS });
});

it('GET models and unknown paths: any headers and query get a 2xx or a standard 4xx', async () => {
  const paths = fc.oneof(fc.constantFrom('/v1/models', '/v1/models/claude-json', '/v1/models/%E0%A4%A', '/v1/nope', '/v2/models'),
    fc.string({ maxLength: 20 }).map((q) => `/v1/models?capability=${encodeURIComponent(q)}`));
  await fc.assert(fc.asyncProperty(paths, auth, fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'), async (path, a, method) => {
    await check(method, path, a as Record<string, string | string[]>, undefined, llm);
  }), { numRuns: Math.ceil(RUNS / 2) });
});
