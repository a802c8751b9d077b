/**
 * Translation is its own stage (chatToMessages(), responsesToMessages()): validate('chat') and
 * validateResponses() with `translate: false` check only, the stage after them hands on the
 * Messages body and keeps the client's body as `ctx.clientBody`; mounted alone (their default),
 * the validators still translate, and a translation stage after them leaves the body as it is.
 */
import express from 'express';
import request from 'supertest';
import {
  anthropicAdapter, authenticate, chatToMessages, errorHandler, gatewayContext, jsonBody, MemoryStore, requestId, resolveModel,
  responsesToMessages, validate, validateResponses, type ModelEntry,
} from '../../lib';
import { addCaller } from '../helpers/gateway';
import { listen } from '../helpers/local';

const store = new MemoryStore();
const caller = addCaller(store);
const models: ModelEntry[] = [{ id: 'm', capability: 'llm', upstream: anthropicAdapter({ baseURL: 'http://127.0.0.1:9' }), maxOutputTokens: 100, pricing: { input: 1 } }];
const head = [requestId(), jsonBody(), authenticate({ store }), resolveModel({ models, capability: 'llm' })];
/** Answers what the next stage would see: the body handed on, the client's body kept, the answer's plan. */
const seen = (req: express.Request, res: express.Response): void => {
  const ctx = gatewayContext(res);
  res.json({ body: req.body, clientBody: ctx.clientBody ?? null, planned: res.locals.responses !== undefined, stream: ctx.stream, includeUsage: ctx.includeUsage });
};

let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  const app = express();
  app.post('/chat/alone', ...head, validate('chat', { models }), seen);
  app.post('/chat/staged', ...head, validate('chat', { models, translate: false }), chatToMessages({ models }), seen);
  app.post('/chat/checked-only', ...head, validate('chat', { models, translate: false }), seen);
  app.post('/chat/twice', ...head, validate('chat', { models }), chatToMessages({ models }), seen);
  app.post('/responses/alone', ...head, validateResponses({ models }), seen);
  app.post('/responses/staged', ...head, validateResponses({ models, translate: false }), responsesToMessages({ models }), seen);
  app.post('/responses/checked-only', ...head, validateResponses({ models, translate: false }), seen);
  app.post('/responses/twice', ...head, validateResponses({ models }), responsesToMessages({ models }), seen);
  app.use(errorHandler({ format: 'openai' }));
  server = await listen(app);
});
afterAll(() => server.close());

const post = (path: string, body: object) => request(server.url).post(path).set('authorization', `Bearer ${caller.key}`).send(body);
const CHAT = { model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] };
const RESPONSES = { model: 'm', instructions: 'Be brief.', input: 'Hi', stream: true };

describe('chat: validate() checks, chatToMessages() translates', () => {
  it.each(['/chat/alone', '/chat/staged', '/chat/twice'])('%s hands on one Messages body (its bound the default) and keeps the chat body', async (path) => {
    const res = await post(path, CHAT);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      body: { model: 'm', system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100, stream: true },
      clientBody: CHAT, planned: false, stream: true, includeUsage: true,
    });
  });

  it('validate({ translate: false }) alone hands on the chat body, checked', async () => {
    expect((await post('/chat/checked-only', CHAT)).body).toMatchObject({ body: CHAT, clientBody: null });
    expect((await post('/chat/checked-only', { ...CHAT, messages: 'x' })).status).toBe(400);
  });

  it('the output bound is the translation stage\'s: over the model\'s maximum, 400', async () => {
    const res = await post('/chat/staged', { ...CHAT, max_completion_tokens: 101 });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('max_tokens: 101 > 100, which is the maximum allowed number of output tokens for m');
  });
});

describe('Responses: validateResponses() checks, responsesToMessages() translates', () => {
  it.each(['/responses/alone', '/responses/staged', '/responses/twice'])('%s hands on one Messages body and its plan, and keeps the Responses body', async (path) => {
    const res = await post(path, RESPONSES);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ body: { model: 'm', system: 'Be brief.', max_tokens: 100, stream: true }, clientBody: RESPONSES, planned: true, stream: true });
  });

  it('validateResponses({ translate: false }) alone hands on the Responses body, checked: a bound over the maximum is still its 400', async () => {
    expect((await post('/responses/checked-only', RESPONSES)).body).toMatchObject({ body: RESPONSES, clientBody: null, planned: false });
    const over = await post('/responses/checked-only', { ...RESPONSES, max_output_tokens: 101 });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toBe('max_output_tokens: 101 > 100, which is the maximum allowed number of output tokens for m');
  });
});
