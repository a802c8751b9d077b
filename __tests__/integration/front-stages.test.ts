/** Foundation rules over real HTTP: request ids, auth, version header, errors, validation, model resolution. */
import request from 'supertest';
import { cohereAdapter } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startOpenAIFake } from '../helpers/fake-openai';
import type { FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels, startGateway, type RunningGateway } from '../helpers/gateway';

let anthropic: FakeServer;
let openai: FakeServer;
let rerankFake: FakeServer;
let gw: RunningGateway;
let key: string;

const V = { 'anthropic-version': '2023-06-01' };
const body = { model: 'claude-json', max_tokens: 32, messages: [{ role: 'user', content: 'Hi' }] };

beforeAll(async () => {
  anthropic = await startAnthropicFake();
  openai = await startOpenAIFake();
  rerankFake = await startAnthropicFake(); // any server: rerank bodies must never reach it here
  gw = await startGateway({
    models: [
      ...llmModels(anthropic.url, openai.url, ['claude-json', 'claude-secret']),
      { id: 'rr', capability: 'rerank', upstream: cohereAdapter({ baseURL: rerankFake.url }), pricing: { input: 100 } },
    ],
  });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([anthropic.close(), openai.close(), rerankFake.close()]);
});

const post = (path: string, b: unknown, headers: Record<string, string> = { 'x-api-key': key, ...V }) =>
  request(gw.url).post(path).set(headers).send(b as object);

function expectError(res: request.Response, status: number, type: string, messagePart?: string | RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/application\/json/);
  expect(res.body.type).toBe('error');
  expect(res.body.error.type).toBe(type);
  expect(res.body.request_id).toMatch(/^req_[0-9a-f]{32}$/);
  expect(res.headers['request-id']).toBe(res.body.request_id);
  if (messagePart) expect(res.body.error.message).toMatch(messagePart);
}

describe('request id', () => {
  it('is on success, errors and unknown paths, unique, and never taken from the client', async () => {
    const ok = await post('/v1/messages', body).set('request-id', 'req_client_chosen');
    expect(ok.status).toBe(200);
    expect(ok.headers['request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(Number(ok.headers['content-length'])).toBe(Buffer.byteLength(ok.text)); // a sized JSON answer, not chunked
    const bad = await post('/v1/messages', { ...body, max_tokens: 0 });
    const missing = await request(gw.url).get('/v1/nothing-here');
    expectError(missing, 404, 'not_found_error', /GET \/v1\/nothing-here was not found/);
    expect(new Set([ok.headers['request-id'], bad.headers['request-id'], missing.headers['request-id']]).size).toBe(3);
  });
});

describe('request log', () => {
  it('has exactly one line (one write) for a refused path parameter, a wrong method on a served path and an unknown path', async () => {
    const writes: string[] = [];
    const append = gw.store.appendLog.bind(gw.store);
    const spy = jest.spyOn(gw.store, 'appendLog').mockImplementation((entry) => {
      writes.push(entry.requestId);
      return append(entry);
    });
    const replies = [
      await request(gw.url).get('/v1/models/%E0%A4%A').set({ 'x-api-key': key }),
      await request(gw.url).post('/v1/models').set({ 'x-api-key': key, ...V }).send({}),
      await request(gw.url).get('/v2/nothing-here'),
    ];
    expect(replies.map((r) => r.status)).toEqual([400, 405, 404]);
    await new Promise((r) => setTimeout(r, 50)); // a second line, were one written, would be there by now
    for (const reply of replies) {
      const id = reply.headers['request-id'] as string;
      expect(id).toMatch(/^req_[0-9a-f]{32}$/);
      expect(reply.body.request_id).toBe(id);
      expect(gw.store.getLog().filter((e) => e.requestId === id).map((e) => e.status)).toEqual([reply.status]);
      expect(writes.filter((w) => w === id)).toHaveLength(1);
    }
    spy.mockRestore();
  });
});

describe('authentication', () => {
  it.each([
    ['no key', {}],
    ['malformed bearer', { authorization: 'Basic abc' }],
    ['unknown key', { 'x-api-key': 'sk-nope' }],
    ['unknown bearer', { authorization: 'Bearer sk-nope' }],
  ])('refuses %s with 401 on every endpoint', async (_name, headers) => {
    const calls = anthropic.calls;
    expectError(await post('/v1/messages', body, { ...V, ...headers }), 401, 'authentication_error');
    expectError(await post('/v1/rerank', { model: 'rr', query: 'q', documents: ['a'] }, headers), 401, 'authentication_error');
    expectError(await request(gw.url).get('/v1/models').set(headers), 401, 'authentication_error');
    expect(anthropic.calls).toBe(calls);
  });

  it('refuses a disabled caller and two different keys, and never echoes a key', async () => {
    const disabled = addCaller(gw.store, { disabled: true });
    const res = await post('/v1/messages', body, { 'x-api-key': disabled.key, ...V });
    expectError(res, 401, 'authentication_error');
    const both = await post('/v1/messages', body, { 'x-api-key': key, authorization: `Bearer ${disabled.key}`, ...V });
    expectError(both, 401, 'authentication_error', /different keys/);
    for (const r of [res, both]) expect(JSON.stringify(r.body) + JSON.stringify(r.headers)).not.toContain(disabled.key);
    expect(JSON.stringify(gw.store.getLog())).not.toContain(disabled.key);
  });

  it('refuses two keys where one is a prefix of the other, in either header', async () => {
    const calls = anthropic.calls;
    expectError(await post('/v1/messages', body, { 'x-api-key': key, authorization: `Bearer ${key}x`, ...V }), 401, 'authentication_error', /different keys/);
    expectError(await post('/v1/messages', body, { 'x-api-key': `${key}x`, authorization: `Bearer ${key}`, ...V }), 401, 'authentication_error', /different keys/);
    expect(anthropic.calls).toBe(calls);
  });

  it('accepts Bearer without a version header, and the same key in both headers', async () => {
    expect((await post('/v1/messages', body, { authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await post('/v1/messages', body, { authorization: `Bearer ${key}`, 'x-api-key': key, ...V })).status).toBe(200);
  });
});

describe('version header', () => {
  it('is required with x-api-key and named in the error', async () => {
    expectError(await post('/v1/messages', body, { 'x-api-key': key }), 400, 'invalid_request_error', /anthropic-version: header is required/);
  });

  it.each(['2023-06-01', '2023-01-01', '2026-10-21'])('accepts %s, as anthropic-version and as compat-version, with temperature', async (v) => {
    const withTemp = { ...body, temperature: 0.5 };
    expect((await post('/v1/messages', withTemp, { 'x-api-key': key, 'anthropic-version': v })).status).toBe(200);
    expect((await post('/v1/messages', withTemp, { 'x-api-key': key, 'compat-version': v })).status).toBe(200);
  });

  it.each(['2024-13-45', 'latest', '2023-06-01, 2023-06-01'])('refuses %j and lists the supported ones', async (v) => {
    const res = await post('/v1/messages', body, { 'x-api-key': key, 'anthropic-version': v });
    expectError(res, 400, 'invalid_request_error', /is not a valid version; supported: 2023-01-01, 2023-06-01, 2026-10-21/);
  });

  it('refuses compat-version and anthropic-version that disagree', async () => {
    const res = await post('/v1/messages', body, { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'compat-version': '2023-01-01' });
    expectError(res, 400, 'invalid_request_error', /disagree/);
  });
});

describe('errors of the HTTP layer', () => {
  it('malformed JSON, wrong content type, non-object body and an oversized body use the standard shape', async () => {
    const raw = await request(gw.url).post('/v1/messages').set({ 'x-api-key': key, ...V, 'content-type': 'application/json' }).send('{"model":');
    expectError(raw, 400, 'invalid_request_error', /not valid JSON/);
    const text = await request(gw.url).post('/v1/messages').set({ 'x-api-key': key, ...V, 'content-type': 'text/plain' }).send('hello');
    expectError(text, 400, 'invalid_request_error', /content-type/);
    const arr = await request(gw.url).post('/v1/messages').set({ 'x-api-key': key, ...V, 'content-type': 'application/json' }).send('[1,2]');
    expectError(arr, 400, 'invalid_request_error', /JSON object/);
    const empty = await request(gw.url).post('/v1/messages').set({ 'x-api-key': key, ...V, 'content-type': 'application/json' });
    expectError(empty, 400, 'invalid_request_error', /model: Field required/);
    const charset = await request(gw.url).post('/v1/messages').set({ 'x-api-key': key, ...V, 'content-type': 'Application/JSON; charset=utf-8' }).send(JSON.stringify(body));
    expect(charset.status).toBe(200);
    const big = await post('/v1/messages', { ...body, messages: [{ role: 'user', content: 'x'.repeat(33 * 1024 * 1024) }] });
    expectError(big, 413, 'request_too_large');
  });

  it('answers alike on the direct path (exact path, any query) and through the router (other case, trailing slash)', async () => {
    for (const path of ['/v1/messages?beta=true', '/v1/messages/', '/V1/Messages']) {
      const ok = await post(path, body);
      expect(ok.status).toBe(200);
      expect(ok.body.type).toBe('message');
      expect(ok.headers['request-id']).toMatch(/^req_[0-9a-f]{32}$/);
      expectError(await post(path, { ...body, max_tokens: 'many' }), 400, 'invalid_request_error', /max_tokens/);
    }
    for (const path of ['/v2/rerank?x=1', '/v1/rerank/', '/V2/RERANK']) {
      expectError(await post(path, { model: 'rr', query: 'q' }), 400, 'invalid_request_error', /documents/);
    }
    expectError(await request(gw.url).put('/v1/messages').set({ 'x-api-key': key, ...V }).send(body), 405, 'method_not_allowed');
  });

  it('works mounted under a prefix', async () => {
    const prefixed = await startGateway({ models: llmModels(anthropic.url, openai.url, ['claude-json']) }, '/gw');
    try {
      const caller = addCaller(prefixed.store);
      const ok = await request(prefixed.url).post('/v1/messages').set({ 'x-api-key': caller.key, ...V }).send(body);
      expect(ok.status).toBe(200);
      expectError(await request(prefixed.url).get('/v1/unknown'), 404, 'not_found_error');
    } finally {
      await prefixed.close();
    }
  });
});
