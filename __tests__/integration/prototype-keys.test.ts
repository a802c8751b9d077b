/**
 * Names of Object.prototype (`constructor`, `toString`, `__proto__`…) arriving over the wire: as a
 * request's field (every route and profile), a model name, a header value, an upstream's finish
 * or stop reason, an upstream's error type, an admin body key or query parameter. Each is
 * answered as any unknown name is: never engine source in a message, never an answer without a
 * stop reason. The tables themselves get the same names in __tests__/unit/prototype-keys.test.ts.
 */
import express from 'express';
import { randomBytes } from 'node:crypto';
import { anthropicAdapter, cohereAdapter, createAdminRouter, createGatewayRouter, MemoryStore, openaiChatAdapter, openaiResponsesAdapter, type ModelEntry } from '../../lib';
import { addCaller, PRICING } from '../helpers/gateway';
import { listen } from '../helpers/local';
import {
  anthropicFrames, anthropicMessage, anthropicStream, openaiChunk, openaiCompletion, openaiFrames, openaiUsageChunk, startScriptedUpstream, type ScriptedUpstream,
} from '../helpers/scripted-upstream';
import { parseFrames } from '../helpers/stream-grammar';
import { PROTOTYPE_NAMES } from '../helpers/prototype-names';

const ADMIN = `admin-${randomBytes(12).toString('hex')}`;
let upstream: ScriptedUpstream;
let url: string;
let close: () => Promise<void>;
let key: string;
const store = new MemoryStore();

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  const anthropic = anthropicAdapter({ baseURL: upstream.url, apiKey: 'sk-up' });
  const openai = openaiChatAdapter({ baseURL: upstream.url, apiKey: 'sk-up' });
  const models: ModelEntry[] = [
    { id: 'v1-an', capability: 'llm', upstream: anthropic, upstreamModel: 'up-an', pricing: PRICING },
    { id: 'v1-oa', capability: 'llm', upstream: openai, upstreamModel: 'up-oa', pricing: PRICING },
    { id: 'agent-oa', capability: 'llm', upstream: openai, upstreamModel: 'up-oa', pricing: PRICING, agentReady: true },
    { id: 'agent-rs', capability: 'llm', upstream: openaiResponsesAdapter({ baseURL: upstream.url, apiKey: 'sk-up' }), upstreamModel: 'up-rs', pricing: PRICING, agentReady: true },
    { id: 'rerank', capability: 'rerank', upstream: cohereAdapter({ baseURL: upstream.url, apiKey: 'sk-up' }), pricing: { input: 1 } },
  ];
  const gateway = createGatewayRouter({ store, models });
  const app = express();
  app.use(gateway);
  app.use('/admin', createAdminRouter({ store, models: gateway.models, tokens: [{ name: 'ops', token: ADMIN, access: 'write' }] }));
  const running = await listen(app);
  url = running.url;
  close = async () => {
    await running.close();
    await gateway.close();
  };
  key = addCaller(store).key;
});
afterAll(async () => {
  await close();
  await upstream.close();
});

/** Engine source (`function Object() { [native code] }`) must never reach a message. */
const NO_ENGINE_TEXT = /native code|function /;

/** POSTs a body written as given (so `__proto__` is a key, as a client writes it). */
async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST', body,
    headers: { 'x-api-key': key, authorization: `Bearer ${key}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // a stream
  }
  return { status: res.status, json, text };
}

/** A body's JSON text with `name` added as its first own key. */
const withField = (name: string, body: Record<string, unknown>): string => `{${JSON.stringify(name)}:1,${JSON.stringify(body).slice(1)}`;

/** The error's type and message in either wire format. */
const errorOf = (json: Record<string, unknown>): { type: unknown; message: unknown } => {
  const error = json.error as { type?: unknown; message?: unknown } | undefined;
  return { type: error?.type, message: error?.message };
};

const messages = [{ role: 'user', content: 'Hi' }];

describe.each(PROTOTYPE_NAMES.map((n) => [n]))('%s over the wire', (name) => {
  it('as a top-level field: refused with a 400 naming it, on every route and profile, before any upstream call', async () => {
    const calls = upstream.calls;
    const cases: Array<[string, string, RegExp]> = [
      ['/v1/messages', withField(name, { model: 'v1-an', max_tokens: 5, messages }), /Extra inputs are not permitted/],
      ['/v1/messages', withField(name, { model: 'agent-oa', max_tokens: 5, messages }), /an OpenAI-format upstream has no such field/],
      ['/v1/messages', withField(name, { model: 'agent-rs', max_tokens: 5, messages }), /a Responses upstream has no such field/],
      ['/v1/messages/count_tokens', withField(name, { model: 'v1-an', messages }), /Extra inputs are not permitted/],
      ['/v1/chat/completions', withField(name, { model: 'v1-oa', messages }), /Extra inputs are not permitted/],
      ['/v1/chat/completions', withField(name, { model: 'agent-oa', messages }), /Extra inputs are not permitted/],
      ['/v1/rerank', withField(name, { model: 'rerank', query: 'q', documents: ['a'] }), /Extra inputs are not permitted/],
    ];
    for (const [path, body, reason] of cases) {
      const res = await post(path, body);
      expect([path, res.status, errorOf(res.json)]).toEqual([path, 400, { type: 'invalid_request_error', message: expect.stringMatching(reason) }]);
      expect(String(errorOf(res.json).message).startsWith(`${name}: `)).toBe(true);
      expect(res.text).not.toMatch(NO_ENGINE_TEXT);
    }
    expect(upstream.calls).toBe(calls);
  });

  it('as a model name: 404, on every route; as a version header: 400', async () => {
    for (const [path, body] of [
      ['/v1/messages', { model: name, max_tokens: 5, messages }], ['/v1/rerank', { model: name, query: 'q', documents: ['a'] }],
    ] as const) {
      const res = await post(path, JSON.stringify(body));
      expect([path, res.status, errorOf(res.json).type]).toEqual([path, 404, 'not_found_error']);
    }
    // The OpenAI routes answer in OpenAI's terms.
    for (const [path, body] of [['/v1/chat/completions', { model: name, messages }], ['/v1/responses', { model: name, input: 'Hi' }]] as const) {
      const res = await post(path, JSON.stringify(body));
      expect([path, res.status, (res.json.error as { code?: unknown } | undefined)?.code]).toEqual([path, 404, 'model_not_found']);
    }
    const models = await fetch(`${url}/v1/models/${encodeURIComponent(name)}`, { headers: { 'x-api-key': key } });
    expect(models.status).toBe(404);
    const version = await post('/v1/messages', JSON.stringify({ model: 'v1-an', max_tokens: 5, messages }), { 'anthropic-version': name });
    expect([version.status, errorOf(version.json).type]).toEqual([400, 'invalid_request_error']);
    expect(version.text).not.toMatch(NO_ENGINE_TEXT);
  });

  it("as an OpenAI upstream's finish_reason: end_turn (Messages) and stop (chat), JSON and stream", async () => {
    const usage = '{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}';
    upstream.answer('up-oa', {
      json: openaiCompletion('{"role":"assistant","content":"Hi"}', JSON.stringify(name), usage),
      sse: openaiFrames([openaiChunk('{"role":"assistant","content":"Hi"}'), openaiChunk('{}', JSON.stringify(name)), openaiUsageChunk(usage)]),
    });
    expect((await post('/v1/messages', JSON.stringify({ model: 'v1-oa', max_tokens: 5, messages }))).json).toMatchObject({ stop_reason: 'end_turn' });
    const stream = parseFrames((await post('/v1/messages', JSON.stringify({ model: 'v1-oa', max_tokens: 5, messages, stream: true }))).text);
    expect(stream.find((f) => f.event === 'message_delta')?.data).toMatchObject({ delta: { stop_reason: 'end_turn' } });
    expect((await post('/v1/chat/completions', JSON.stringify({ model: 'v1-oa', messages }))).json).toMatchObject({ choices: [{ finish_reason: 'stop' }] });
    const chunks = parseFrames((await post('/v1/chat/completions', JSON.stringify({ model: 'v1-oa', messages, stream: true }))).text);
    expect(chunks.map((f) => (f.data as { choices?: Array<{ finish_reason: unknown }> }).choices?.[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
  });

  it("as an Anthropic upstream's stop_reason: stop on chat, JSON and stream; as its stream error's type: api_error", async () => {
    const text = '{"type":"text","text":""}';
    upstream.answer('up-an', {
      json: anthropicMessage('[{"type":"text","text":"Hi"}]', JSON.stringify(name), '{"input_tokens":3,"output_tokens":2}'),
      sse: anthropicStream([[text, ['{"type":"text_delta","text":"Hi"}']]], JSON.stringify(name), '{"input_tokens":3,"output_tokens":1}', '{"output_tokens":2}'),
    });
    expect((await post('/v1/chat/completions', JSON.stringify({ model: 'v1-an', messages }))).json).toMatchObject({ choices: [{ finish_reason: 'stop' }] });
    const chunks = parseFrames((await post('/v1/chat/completions', JSON.stringify({ model: 'v1-an', messages, stream: true }))).text);
    expect(chunks.map((f) => (f.data as { choices?: Array<{ finish_reason: unknown }> }).choices?.[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);

    upstream.answer('up-an', {
      sse: anthropicFrames([
        ['message_start', '{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}'],
        ['error', `{"type":"error","error":{"type":${JSON.stringify(name)},"message":"x"}}`],
      ]),
    });
    const failed = parseFrames((await post('/v1/messages', JSON.stringify({ model: 'v1-an', max_tokens: 5, messages, stream: true }))).text);
    expect(failed.at(-1)?.data).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });

  it('as an admin body key: 400 naming it; as an admin query parameter: ignored, as any unknown one', async () => {
    const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    const res = await fetch(`${url}/admin/keys`, { method: 'POST', headers, body: withField(name, { callerId: 'proto' }) });
    const body = (await res.json()) as Record<string, unknown>;
    expect([res.status, errorOf(body).type]).toEqual([400, 'invalid_request_error']);
    expect(String(errorOf(body).message).startsWith(`${name}: `)).toBe(true);
    const unknown = await fetch(`${url}/admin/requests?unknown_parameter=1`, { headers });
    const proto = await fetch(`${url}/admin/requests?${encodeURIComponent(name)}=1`, { headers });
    expect(proto.status).toBe(unknown.status);
  });
});
