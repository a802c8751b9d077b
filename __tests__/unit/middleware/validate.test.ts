/** lib/middleware/validate.ts: the body checked against its model's profile; chat translated; the output bound. */
import request from 'supertest';
import { resolveModel, validate } from '../../../lib';
import { refused } from '../../helpers/config-error';
import { MODELS, stageApp } from './stage-app';

const messages = stageApp([resolveModel({ models: MODELS, capability: 'llm' }), validate('messages', { models: MODELS })]);
const chat = stageApp([resolveModel({ models: MODELS, capability: 'llm' }), validate('chat', { models: MODELS })], { format: 'openai' });
const text = [{ role: 'user', content: 'hi' }];

describe('validate()', () => {
  it('passes a valid Messages body and records stream and the user tag', async () => {
    const res = await request(messages).post('/v1/messages').send({ model: 'plain', max_tokens: 10, messages: text, stream: true, metadata: { user_id: 'u1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ reached: true, stream: true, user: 'u1' });
  });

  it('names the field of a bad body', async () => {
    const res = await request(messages).post('/v1/messages').send({ model: 'plain', max_tokens: 'ten', messages: text });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toMatch(/^max_tokens/);
  });

  it("refuses V1's unsupported features naming the agentReady switch, and takes them on an agent-ready model", async () => {
    const tools = [{ name: 't', input_schema: { type: 'object' } }];
    const v1 = await request(messages).post('/v1/messages').send({ model: 'plain', max_tokens: 10, messages: text, tools });
    expect(v1.status).toBe(400);
    expect(v1.body.error.message).toMatch(/^tools: .*agentReady: true$/);
    expect((await request(messages).post('/v1/messages').send({ model: 'agent', max_tokens: 10, messages: text, tools })).status).toBe(200);
  });

  it("refuses max_tokens over the model's bound in the vendor's words, or clamps it where the model says so", async () => {
    const over = await request(messages).post('/v1/messages').send({ model: 'agent', max_tokens: 500, messages: text });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toBe('max_tokens: 500 > 100, which is the maximum allowed number of output tokens for agent');
    const clamped = await request(messages).post('/v1/messages').send({ model: 'clamped', max_tokens: 500, messages: text });
    expect(clamped.status).toBe(200);
    expect(clamped.body.body.max_tokens).toBe(100);
    expect(clamped.body.detail).toBe("max_tokens 500 clamped to 100 (the model's maxOutputTokens)");
  });

  it('hands a chat body on as a Messages body with the default output bound, and answers in OpenAI shape', async () => {
    const res = await request(chat).post('/v1/chat').send({ model: 'plain', messages: [{ role: 'system', content: 'be brief' }, ...text], user: 'u2' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user: 'u2', body: { model: 'plain', max_tokens: 4096, system: 'be brief', messages: [{ role: 'user', content: 'hi' }] } });
    const bad = await request(chat).post('/v1/chat').send({ model: 'plain', messages: text, n: 2 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringMatching(/^n: /) });
  });

  it('checks its kind and rerank bounds at construction, by code', () => {
    expect(() => validate('embeddings' as never)).toThrow(refused('ERR_MGW_INVALID_OPTION'));
    expect(() => validate('rerank', { rerank: { maxDocuments: 0 } })).toThrow(refused('ERR_MGW_INVALID_INTEGER'));
  });
});
