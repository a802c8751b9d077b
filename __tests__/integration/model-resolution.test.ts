/**
 * The model is resolved before the body is checked against its profile: an unknown model with tools
 * (Claude Code without --model) is the documented 404, on every route, and its log entry names the
 * model asked for. Each middleware still composes alone. A model may clamp Claude Code's max_tokens
 * to its own bound instead of refusing it, visibly in the log line.
 */
import Anthropic from '@anthropic-ai/sdk';
import express from 'express';
import OpenAI from 'openai';
import request from 'supertest';
import { anthropicAdapter, authenticate, billingHook, createMetrics, DEFAULT_MAX_TOKENS, errorHandler, jsonBody, MemoryStore, requestId, resolveModel, validate, type ModelEntry } from '../../lib';
import { agentRequest } from '../helpers/agent-fixtures';
import { sendJson, startAgentServer, type AgentServer } from '../helpers/fake-agent-server';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { listen } from '../helpers/local';

let upstream: AgentServer;
let gw: RunningGateway;
let key: string;
const metrics = createMetrics();
const lines: Array<{ level: string; fields: Record<string, unknown> }> = [];
const logger = {
  info: (fields: object) => void lines.push({ level: 'info', fields: fields as Record<string, unknown> }),
  warn: (fields: object) => void lines.push({ level: 'warn', fields: fields as Record<string, unknown> }),
  error: (fields: object) => void lines.push({ level: 'error', fields: fields as Record<string, unknown> }),
};
const ANSWER = { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 2 } };
const TOOLS = [{ name: 'Write', description: 'Writes a file', input_schema: { type: 'object' as const, properties: { file_path: { type: 'string' } } } }];

beforeAll(async () => {
  upstream = await startAgentServer((_req, res) => sendJson(res, 200, ANSWER));
  const adapter = anthropicAdapter({ baseURL: upstream.url });
  const model = (id: string, extra: Partial<ModelEntry> = {}): ModelEntry => ({ id, capability: 'llm', upstream: adapter, agentReady: true, pricing: { input: 1 }, ...extra });
  gw = await startGateway({ models: [model('agent'), model('capped', { maxOutputTokens: 16384 }), model('clamped', { maxOutputTokens: 16384, clampMaxTokens: true })], logger, metrics });
  ({ key } = addCaller(gw.store, { models: ['agent', 'capped', 'clamped'] }));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
});

describe('an unknown model with tools is a 404, not a V1 refusal', () => {
  it('the Anthropic SDK gets not_found_error, and the log entry names the model asked for', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
    const error = await client.messages.create({ model: 'claude-not-in-the-catalog', max_tokens: 1024, tools: TOOLS, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    const { status, requestID, error: body } = error as InstanceType<typeof Anthropic.NotFoundError>;
    expect(status).toBe(404);
    expect((body as { error: { type: string; message: string } }).error).toEqual({
      type: 'not_found_error', message: 'model: "claude-not-in-the-catalog" was not found; GET /v1/models lists the models this key can use',
    });
    expect(await logEntry(gw.store, requestID as string)).toMatchObject({ model: 'claude-not-in-the-catalog', status: 404, errorCode: 'not_found_error', billingStatus: 'not_billed' });
    expect(upstream.requests).toHaveLength(0);
    // Metrics give a name a client made up no series of its own.
    expect(await metrics.registry.metrics()).not.toContain('claude-not-in-the-catalog');
  });

  it('the openai SDK gets model_not_found on chat completions with tools', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const tools = [{ type: 'function' as const, function: { name: 'Write', parameters: { type: 'object' } } }];
    const error = await client.chat.completions.create({ model: 'gpt-unknown', tools, messages: [{ role: 'user', content: 'Hi' }] }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const { status, code, param, headers, error: body } = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect([status, code, param]).toEqual([404, 'model_not_found', 'model']); // OpenAI's terms
    expect((body as { message: string }).message).toBe('model: "gpt-unknown" was not found; GET /v1/models lists the models this key can use');
    const entry = await logEntry(gw.store, headers.get('request-id') as string);
    expect(entry).toMatchObject({ model: 'gpt-unknown', endpoint: 'chat_completions', status: 404 });
  });

  it('the openai SDK gets the same on Responses', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const error = await client.responses.create({ model: 'claude-sonnet', input: 'Hi' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const { code, param, error: body } = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect([code, param, (body as { message: string }).message]).toEqual(['model_not_found', 'model', 'model: "claude-sonnet" was not found; GET /v1/models lists the models this key can use']);
  });

  it('count_tokens and a model outside the allow-list: 404 too; a long name is logged at most 256 characters', async () => {
    const headers = { 'x-api-key': key, 'anthropic-version': '2023-06-01' };
    const counted = await request(gw.url).post('/v1/messages/count_tokens').set(headers).send({ model: 'nope', tools: TOOLS, messages: [{ role: 'user', content: 'x' }] });
    expect(counted.status).toBe(404);
    const long = 'm'.repeat(300);
    const res = await request(gw.url).post('/v1/messages').set(headers).send({ model: long, max_tokens: 5, thinking: { type: 'enabled' }, messages: [] });
    expect(res.status).toBe(404);
    expect((await logEntry(gw.store, res.headers['request-id'] as string)).model).toBe('m'.repeat(256));
  });

  it('a body whose model is missing or not a string is still a 400 naming model, on every route', async () => {
    const headers = { 'x-api-key': key, 'anthropic-version': '2023-06-01' };
    for (const path of ['/v1/messages', '/v1/chat/completions', '/v1/rerank', '/v1/messages/count_tokens']) {
      const missing = await request(gw.url).post(path).set(headers).send({ tools: TOOLS, messages: [] });
      expect([missing.status, JSON.stringify(missing.body)]).toEqual([400, expect.stringContaining('model: Field required')]);
      const number = await request(gw.url).post(path).set(headers).send({ model: 5 });
      expect([number.status, JSON.stringify(number.body)]).toEqual([400, expect.stringContaining('model: must be string')]);
    }
  });
});

describe('each middleware composes alone', () => {
  it('validate() without resolveModel() looks the model up itself (agent profile), or checks V1 without a catalog', async () => {
    const store = new MemoryStore();
    const caller = addCaller(store);
    const models: ModelEntry[] = [{ id: 'agent', capability: 'llm', upstream: anthropicAdapter({ baseURL: upstream.url }), agentReady: true, pricing: { input: 1 } }];
    const head = [requestId(), billingHook({ store }), jsonBody(), authenticate({ store })];
    const ok = (_req: express.Request, res: express.Response) => void res.json({ ok: true });
    const app = express();
    app.post('/with-catalog', ...head, validate('messages', { models }), ok);
    app.post('/without', ...head, validate('messages'), ok);
    app.post('/old-order', ...head, validate('messages', { models }), resolveModel({ models, capability: 'llm' }), ok);
    app.use(errorHandler());
    const server = await listen(app);
    try {
      const body = { model: 'agent', max_tokens: 5, tools: TOOLS, messages: [{ role: 'user', content: 'x' }] };
      const post = (path: string, b: object) => request(server.url).post(path).set('x-api-key', caller.key).send(b);
      expect((await post('/with-catalog', body)).status).toBe(200);
      expect((await post('/without', body)).body.error.message).toMatch(/^tools: tools are not supported.*agentReady: true$/);
      expect((await post('/old-order', body)).status).toBe(200);
      expect((await post('/old-order', { ...body, model: 'nope', tools: undefined })).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('max_tokens over the model bound: refused, or clamped where the model says so', () => {
  const post = (model: string, body: object) => request(gw.url).post('/v1/messages')
    .set({ 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }).send(JSON.stringify({ ...body, model }));

  it("Claude Code's request (max_tokens 32000) to a model capped at 16384: 400 without the clamp", async () => {
    const res = await post('capped', agentRequest('capped', false));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('max_tokens: 32000 > 16384, which is the maximum allowed number of output tokens for capped');
    expect(upstream.requests).toHaveLength(0);
  });

  it('with clampMaxTokens the upstream gets 16384 and every other byte as sent; the log line says so', async () => {
    const body = agentRequest('clamped', false);
    const res = await post('clamped', body);
    expect(res.status).toBe(200);
    // The thinking budget (31999) is lowered below the new bound, as Claude Code does itself under CLAUDE_CODE_MAX_OUTPUT_TOKENS.
    const thinking = { ...(body.thinking as object), budget_tokens: 16383 };
    expect(upstream.requests[0]?.text).toBe(JSON.stringify({ ...body, model: 'clamped', max_tokens: 16384, thinking }));
    const requestId = res.headers['request-id'] as string;
    const detail = 'max_tokens 32000 clamped to 16384 (the model\'s maxOutputTokens); thinking.budget_tokens 31999 to 16383';
    expect(await logEntry(gw.store, requestId)).toMatchObject({ status: 200, billingStatus: 'billed', detail });
    expect(lines.find((l) => l.fields.requestId === requestId)).toMatchObject({ level: 'info', fields: { detail } });
  });

  it('the chat route clamps max_completion_tokens the same way', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'clamped', max_completion_tokens: 32000, messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.choices[0]?.message.content).toBe('ok');
    expect(upstream.requests[0]?.body?.max_tokens).toBe(16384);
  });
});

describe('a request that names no output bound (chat, Responses): the model default', () => {
  const client = (): OpenAI => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

  it("the model's maxOutputTokens where it has one, 4096 where not, on chat and on Responses (Codex sends none)", async () => {
    await client().chat.completions.create({ model: 'capped', messages: [{ role: 'user', content: 'Hi' }] });
    await client().chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'Hi' }] });
    await client().responses.create({ model: 'capped', input: 'Hi' });
    await client().responses.create({ model: 'agent', input: 'Hi' });
    expect(upstream.requests.map((r) => r.body?.max_tokens)).toEqual([16384, DEFAULT_MAX_TOKENS, 16384, DEFAULT_MAX_TOKENS]);
  });

  it('Responses clamps max_output_tokens where the model says so, and refuses it over the bound where not', async () => {
    await client().responses.create({ model: 'clamped', input: 'Hi', max_output_tokens: 32000 });
    expect(upstream.requests[0]?.body?.max_tokens).toBe(16384);
    const refused = await client().responses.create({ model: 'capped', input: 'Hi', max_output_tokens: 32000 }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ status: 400, param: 'max_output_tokens' });
    expect(upstream.requests).toHaveLength(1);
  });
});
