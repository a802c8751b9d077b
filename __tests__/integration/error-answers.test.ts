/** Answers in the right shape: unknown paths and methods as JSON errors, each route's own wire format at shutdown, auth messages naming the header sent. */
import express from 'express';
import OpenAI from 'openai';
import request from 'supertest';
import { createAdminRouter, MemoryStore, openaiResponsesAdapter, type ModelEntry } from '../../lib';
import { listen } from '../helpers/local';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startResponsesFake } from '../helpers/fake-responses';
import type { GatedFake } from '../helpers/fake-server';
import { addCaller, llmModels, PRICING, startGateway, type RunningGateway } from '../helpers/gateway';
import { responsesViolations } from '../helpers/responses-grammar';
import { parseFrames } from '../helpers/stream-grammar';
import { refused } from '../helpers/config-error';

let upstream: GatedFake;
beforeAll(async () => {
  upstream = await startAnthropicFake();
});
afterAll(() => upstream.close());

describe('unknown paths and methods', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ models: llmModels(upstream.url, upstream.url, ['claude-json']) });
  });
  afterAll(() => gw.close());

  it.each([
    ['GET', '/v1/messages', 'POST'], ['GET', '/v1/messages/count_tokens', 'POST'],
    ['DELETE', '/v1/rerank', 'POST'], ['GET', '/v2/rerank', 'POST'], ['POST', '/v1/models', 'GET, HEAD'], ['DELETE', '/v1/models/claude-json', 'GET, HEAD'],
  ])('%s %s: 405 with allow, in the standard shape with a request id', async (method, path, allow) => {
    const res = await request(gw.url)[method.toLowerCase() as 'get'](path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ type: 'error', error: { type: 'method_not_allowed', message: `${method} ${path}: this path takes ${allow}` }, request_id: res.headers['request-id'] });
  });

  it('a path the router does not serve: 404 not_found_error in JSON', async () => {
    const res = await request(gw.url).get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'not_found_error' }, request_id: res.headers['request-id'] });
  });

  it.each([
    ['POST', '/v1/chat/completion'], ['GET', '/v1/chat/completions/chatcmpl-1'], ['POST', '/v1/embeddings'], ['POST', '/v1/completions'], ['GET', '/v1/responses/resp_1/nothing'],
  ])('%s %s, an OpenAI path not served: 404 in OpenAI\'s error shape', async (method, path) => {
    const res = await request(gw.url)[method.toLowerCase() as 'get'](path);
    expect(res.status).toBe(404);
    expect(res.headers['request-id']).toMatch(/^req_/);
    expect(res.body).toEqual({ error: { type: 'invalid_request_error', code: 'not_found', param: null, message: `${method} ${path} was not found` } });
  });

  it('the openai SDK reads it: a NotFoundError with its message, code and type', async () => {
    const client = new OpenAI({ apiKey: 'sk-none', baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const error = await client.embeddings.create({ model: 'x', input: 'Hi' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const { message, code, type } = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect([message, code, type]).toEqual(['404 POST /v1/embeddings was not found', 'not_found', 'invalid_request_error']);
  });

  it('PUT /v1/chat/completions: 405 with allow, in OpenAI\'s error shape', async () => {
    const res = await request(gw.url).put('/v1/chat/completions');
    expect([res.status, res.headers.allow]).toEqual([405, 'POST']);
    expect(res.body).toEqual({ error: { type: 'invalid_request_error', code: 'method_not_allowed', param: null, message: 'PUT /v1/chat/completions: this path takes POST' } });
  });
});

describe('the admin API: unknown paths and methods, unknown options', () => {
  const tokens = [{ name: 'ops', token: 'answers-admin-token-0123', access: 'write' as const }];
  let admin: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    admin = await listen(express().use('/admin', createAdminRouter({ store: new MemoryStore(), tokens })));
  });
  afterAll(() => admin.close());
  const auth = { authorization: `Bearer ${tokens[0]?.token}` };

  it.each([
    ['DELETE', '/admin/keys', 'POST, GET, HEAD'], ['GET', '/admin/keys/key_1/disable', 'POST'], ['POST', '/admin/accounts/acme', 'GET, HEAD'],
    ['DELETE', '/admin/models', 'GET, PUT, HEAD'],
  ])('%s %s: 405 with allow', async (method, path, allow) => {
    const res = await request(admin.url)[method.toLowerCase() as 'get'](path).set(auth);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'method_not_allowed' }, request_id: res.headers['request-id'] });
  });

  it('an unknown path is a JSON 404; an unknown option is refused at construction, naming the nearest', async () => {
    const res = await request(admin.url).get('/admin/nothing').set(auth);
    expect(res.status).toBe(404);
    expect(res.body.error.type).toBe('not_found_error');
    expect(() => createAdminRouter({ store: new MemoryStore(), tokens, dashbord: false } as never)).toThrow(refused('ERR_MGW_UNKNOWN_OPTION', /^createAdminRouter: unknown option "dashbord"; did you mean "dashboard"\?$/));
  });
});

describe('the key refused names the header that carried it', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ models: llmModels(upstream.url, upstream.url, ['claude-json']) });
  });
  afterAll(() => gw.close());
  const chat = { model: 'claude-json', messages: [{ role: 'user', content: 'Hi' }] };

  it('Bearer on chat completions: "authorization: invalid bearer key", in OpenAI\'s shape', async () => {
    const res = await request(gw.url).post('/v1/chat/completions').set('authorization', 'Bearer sk-wrong').send(chat);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { message: 'authorization: invalid bearer key', type: 'invalid_request_error', code: 'invalid_api_key', param: null } });
  });

  it('x-api-key on Messages: "invalid x-api-key"; a too-long Bearer key names its header too', async () => {
    const bad = await request(gw.url).post('/v1/messages').set({ 'x-api-key': 'sk-wrong', 'anthropic-version': '2023-06-01' }).send({ ...chat, max_tokens: 5 });
    expect(bad.body.error.message).toBe('invalid x-api-key');
    const long = await request(gw.url).post('/v1/messages').set({ authorization: `Bearer ${'k'.repeat(600)}` }).send({ ...chat, max_tokens: 5 });
    expect(long.body.error.message).toBe('authorization: invalid bearer key');
  });
});

describe('shutdown ends each route in its own wire format', () => {
  it('a chat stream gets a data: error frame, a pending chat JSON answer an OpenAI error body; Messages keep theirs', async () => {
    const gw = await startGateway({ models: llmModels(upstream.url, upstream.url, ['claude-gated', 'claude-stall']) });
    const { key } = addCaller(gw.store);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    try {
      const before = upstream.calls;
      const stream = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: 'claude-gated', stream: true, messages: [{ role: 'user', content: 'Hi' }] }) });
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
      await reader.read(); // the stream is open
      const pending = fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: 'claude-stall', messages: [{ role: 'user', content: 'Hi' }] }) });
      const messages = fetch(`${gw.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ model: 'claude-stall', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }) });
      while (upstream.calls < before + 3) await new Promise((r) => setTimeout(r, 5)); // all three in flight upstream
      await gw.router.close({ graceMs: 0 });
      let rest = '';
      for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
      expect(rest).toMatch(/data: \{"error":\{"message":"The gateway is shutting down; retry.","type":"server_error","code":"overloaded","param":null\}\}\n\n$/);
      expect(rest).not.toContain('event: error');
      const json = await pending;
      expect(json.status).toBe(529);
      expect(await json.json()).toEqual({ error: { message: 'The gateway is shutting down; retry.', type: 'server_error', code: 'overloaded', param: null } });
      expect(await (await messages).json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    } finally {
      upstream.openGates();
      await gw.close();
    }
  });

  it('a Responses stream ends with response.failed, numbered in turn, over a translated and a native upstream', async () => {
    const native = await startResponsesFake(() => ({ hang: true })); // headers, then silence: the gateway's keep-alive opens the stream
    const models: ModelEntry[] = [...llmModels(upstream.url, upstream.url, ['claude-gated']),
      { id: 'gpt-native', capability: 'llm', upstream: openaiResponsesAdapter({ baseURL: native.url }), agentReady: true, pricing: PRICING }];
    const gw = await startGateway({ models, keepAliveMs: 50 });
    const { key } = addCaller(gw.store);
    try {
      const readers = await Promise.all(['claude-gated', 'gpt-native'].map(async (model) => {
        const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, input: 'Hi', stream: true }) });
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        let text = '';
        while (!text.includes('event: response.in_progress')) text += Buffer.from((await reader.read()).value ?? []).toString(); // the stream is open
        return { reader, text };
      }));
      await gw.router.close({ graceMs: 0 });
      for (const { reader, text: start } of readers) {
        let text = start;
        for (let r = await reader.read(); !r.done; r = await reader.read()) text += Buffer.from(r.value).toString();
        const frames = parseFrames(text);
        expect(responsesViolations(frames)).toEqual([]);
        expect(frames.at(-1)?.data).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'The gateway is shutting down; retry.' } } });
        expect(text).not.toContain('data: {"error"');
      }
    } finally {
      upstream.openGates();
      await gw.close();
      await native.close();
    }
  });
});
