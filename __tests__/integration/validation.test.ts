/** Every invalid body is refused with 400 naming the field, before any upstream call; model resolution rules. */
import request from 'supertest';
import { cohereAdapter } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startFake, type FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels, startGateway, type RunningGateway } from '../helpers/gateway';

let upstream: FakeServer;
let rerankUpstream: FakeServer;
let gw: RunningGateway;
let key: string;
let limited: string;

const ok = { model: 'claude-json', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] };
const user = (content: unknown): unknown => ({ ...ok, messages: [{ role: 'user', content }] });

beforeAll(async () => {
  upstream = await startAnthropicFake();
  rerankUpstream = await startFake((_req, res) => void res.end('{}'));
  gw = await startGateway({
    models: [
      ...llmModels(upstream.url, upstream.url, ['claude-json', 'claude-private']),
      { ...llmModels(upstream.url, upstream.url, ['claude-small'])[0]!, maxOutputTokens: 100 },
      { id: 'rr', capability: 'rerank', upstream: cohereAdapter({ baseURL: rerankUpstream.url }), pricing: { input: 100 } },
    ],
    rerank: { maxDocuments: 3, maxDocumentChars: 20, maxQueryChars: 30 },
  });
  ({ key } = addCaller(gw.store));
  ({ key: limited } = addCaller(gw.store, { models: ['claude-json', 'rr'] }));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
  await rerankUpstream.close();
});

const send = (path: string, body: unknown, k = key) =>
  request(gw.url).post(path).set({ 'x-api-key': k, 'anthropic-version': '2023-06-01' }).send(body as object);

const invalidMessages: Array<[string, unknown, RegExp]> = [
  ['missing model', { max_tokens: 5, messages: ok.messages }, /^model: Field required/],
  ['model not a string', { ...ok, model: 5 }, /^model: must be string/],
  ['missing max_tokens', { model: 'claude-json', messages: ok.messages }, /^max_tokens: Field required/],
  ['max_tokens zero', { ...ok, max_tokens: 0 }, /^max_tokens: must be >= 1/],
  ['max_tokens fractional', { ...ok, max_tokens: 1.5 }, /^max_tokens: must be integer/],
  ['messages empty', { ...ok, messages: [] }, /^messages: at least one message is required/],
  ['messages not array', { ...ok, messages: 'hi' }, /^messages: must be array/],
  ['role system', { ...ok, messages: [{ role: 'system', content: 'x' }] }, /^messages\.0\.role: must be one of "user", "assistant"/],
  ['content number', user(5), /^messages\.0\.content: must be string or array/],
  ['content blank', user('   '), /^messages\.0\.content: must contain non-whitespace text/],
  ['content empty list', user([]), /^messages\.0\.content: must have at least 1 item/],
  ['text block without text', user([{ type: 'text' }]), /^messages\.0\.content\.0\.text: Field required/],
  ['image block', user([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } }]), /^messages\.0\.content\.0\.type: only text content blocks are supported/],
  ['document block', user([{ type: 'text', text: 'a' }, { type: 'document', source: {} }]), /^messages\.0\.content\.1\.type: only text content blocks/],
  ['tool_result block', user([{ type: 'tool_result', tool_use_id: 't', content: 'x' }]), /^messages\.0\.content\.0\.type: only text/],
  ['unknown block', user([{ type: 'made_up' }]), /^messages\.0\.content\.0\.type: only text/],
  ['cache_control on a block', user([{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }]), /^messages\.0\.content\.0\.cache_control: cache_control is not supported/],
  ['cache_control on system', { ...ok, system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }] }, /^system\.0\.cache_control: cache_control is not supported/],
  ['cache_control top level', { ...ok, cache_control: { type: 'ephemeral' } }, /^cache_control: cache_control is not supported/],
  ['tools', { ...ok, tools: [{ name: 'x', input_schema: { type: 'object' } }] }, /^tools: tools are not supported/],
  ['tool_choice', { ...ok, tool_choice: { type: 'auto' } }, /^tool_choice: tool_choice is not supported/],
  ['thinking', { ...ok, thinking: { type: 'enabled', budget_tokens: 2000 } }, /^thinking: extended thinking is not supported/],
  ['top_k', { ...ok, top_k: 5 }, /^top_k: top_k is not supported/],
  ['stop_sequences', { ...ok, stop_sequences: ['x'] }, /^stop_sequences: stop_sequences is not supported/],
  ['unknown field', { ...ok, frobnicate: true }, /^frobnicate: Extra inputs are not permitted/],
  ['__proto__ key', JSON.parse('{"model":"claude-json","max_tokens":5,"messages":[{"role":"user","content":"x"}],"__proto__":{"admin":true}}'), /^__proto__: Extra inputs are not permitted/],
  ['temperature too high', { ...ok, temperature: 1.5 }, /^temperature: must be <= 1/],
  ['temperature string', { ...ok, temperature: 'hot' }, /^temperature: must be number/],
  ['stream not boolean', { ...ok, stream: 'yes' }, /^stream: must be boolean/],
  ['system number', { ...ok, system: 5 }, /^system: must be string or array/],
  ['metadata extra', { ...ok, metadata: { user_id: 'u', other: 1 } }, /^metadata\.other: Extra inputs are not permitted/],
];

describe('Messages validation', () => {
  it.each(invalidMessages)('refuses %s with a message naming the field, without calling upstream', async (_name, body, message) => {
    const before = upstream.calls;
    const res = await send('/v1/messages', body);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toMatch(message);
    expect(upstream.calls).toBe(before);
  });

  it('accepts text blocks, a system list, metadata and an assistant prefill', async () => {
    const res = await send('/v1/messages', {
      ...ok, system: [{ type: 'text', text: 'Be brief.' }], metadata: { user_id: 'u-1' }, temperature: 0, top_p: 0.9,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'Again' }],
    });
    expect(res.status).toBe(200);
  });
});

const rr = { model: 'rr', query: 'what is it', documents: ['a', 'b'] };
const invalidRerank: Array<[string, unknown, RegExp]> = [
  ['missing query', { model: 'rr', documents: ['a'] }, /^query: Field required/],
  ['blank query', { ...rr, query: '  ' }, /^query: must contain non-whitespace text/],
  ['query too long', { ...rr, query: 'q'.repeat(31) }, /^query: must NOT have more than 30 characters/],
  ['documents empty', { ...rr, documents: [] }, /^documents: must have at least 1 item/],
  ['documents objects', { ...rr, documents: [{ text: 'a' }] }, /^documents\.0: must be string/],
  ['too many documents', { ...rr, documents: ['a', 'b', 'c', 'd'] }, /^documents: must NOT have more than 3 items/],
  ['document too long', { ...rr, documents: ['x'.repeat(21)] }, /^documents\.0: must NOT have more than 20 characters/],
  ['document of 21 emoji', { ...rr, documents: ['a', '\u{1F600}'.repeat(21)] }, /^documents\.1: must NOT have more than 20 characters/],
  ['top_n zero', { ...rr, top_n: 0 }, /^top_n: must be >= 1/],
  ['return_documents string', { ...rr, return_documents: 'yes' }, /^return_documents: must be boolean/],
  ['user number', { ...rr, user: 5 }, /^user: must be string/],
  ['unknown field', { ...rr, rank_fields: ['text'] }, /^rank_fields: Extra inputs are not permitted/],
];

describe('Rerank validation', () => {
  it.each(invalidRerank)('refuses %s before any upstream call', async (_name, body, message) => {
    const before = rerankUpstream.calls;
    const res = await send('/v1/rerank', body);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toMatch(message);
    expect(rerankUpstream.calls).toBe(before);
  });

  it('counts characters as code points: 20 emoji (40 UTF-16 units) pass a 20-character bound', async () => {
    const before = rerankUpstream.calls;
    const res = await send('/v1/rerank', { ...rr, query: '\u{1F600}'.repeat(30), documents: ['\u{1F600}'.repeat(20)] });
    expect(res.status).not.toBe(400);
    expect(rerankUpstream.calls).toBe(before + 1);
  });
});

describe('model resolution', () => {
  it('unknown model: 404 not_found_error naming it', async () => {
    const res = await send('/v1/messages', { ...ok, model: 'nope' });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ type: 'not_found_error', message: 'model: "nope" was not found; GET /v1/models lists the models this key can use' });
  });

  it('wrong capability: 400 saying which capability the endpoint needs', async () => {
    const a = await send('/v1/messages', { ...ok, model: 'rr' });
    expect(a.status).toBe(400);
    expect(a.body.error.message).toMatch(/needs a model with capability "llm"/);
    const b = await send('/v1/rerank', { ...rr, model: 'claude-json' });
    expect(b.status).toBe(400);
    expect(b.body.error.message).toMatch(/needs a model with capability "rerank"/);
  });

  it('a model outside the caller allow-list looks like an unknown one, in calls and in the list', async () => {
    const before = upstream.calls;
    const res = await send('/v1/messages', { ...ok, model: 'claude-private' }, limited);
    expect(res.status).toBe(404);
    expect(upstream.calls).toBe(before);
    const list = await request(gw.url).get('/v1/models').set('x-api-key', limited);
    expect(list.body.data.map((m: { id: string }) => m.id)).toEqual(['claude-json', 'rr']);
    expect((await request(gw.url).get('/v1/models/claude-private').set('x-api-key', limited)).status).toBe(404);
  });

  it('max_tokens over the model maximum: 400', async () => {
    const res = await send('/v1/messages', { ...ok, model: 'claude-small', max_tokens: 101 });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('max_tokens: 101 > 100, which is the maximum allowed number of output tokens for claude-small');
  });
});

describe('model list', () => {
  it('lists every model with id and capability, filters by capability, and serves one model', async () => {
    const all = await request(gw.url).get('/v1/models').set('authorization', `Bearer ${key}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false, first_id: 'claude-json', last_id: 'rr' });
    expect(all.body.data.map((m: { id: string; capability: string }) => [m.id, m.capability])).toEqual([
      ['claude-json', 'llm'], ['claude-private', 'llm'], ['claude-small', 'llm'], ['rr', 'rerank'],
    ]);
    const rerankOnly = await request(gw.url).get('/v1/models?capability=rerank').set('x-api-key', key);
    expect(rerankOnly.body.data.map((m: { id: string }) => m.id)).toEqual(['rr']);
    const bad = await request(gw.url).get('/v1/models?capability=vision').set('x-api-key', key);
    expect(bad.status).toBe(400);
    const one = await request(gw.url).get('/v1/models/rr').set('x-api-key', key);
    expect(one.body).toMatchObject({ id: 'rr', capability: 'rerank', type: 'model', object: 'model' });
  });
});
