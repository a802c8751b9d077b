/**
 * The agent-ready contract on an Anthropic upstream: the request reaches the upstream as the caller sent it (every field,
 * known or not, its version and betas verbatim), the answer comes back with every block, event and delta type in order,
 * the upstream's own words about a bad request reach the caller, count_tokens takes the whole body; V1 models are unchanged.
 */
import Anthropic from '@anthropic-ai/sdk';
import request from 'supertest';
import { anthropicAdapter, type ModelEntry } from '../../lib';
import { agentRequest, ANSWER_CONTENT, ANSWER_USAGE, answerEvents, SIGNATURE } from '../helpers/agent-fixtures';
import { sendJson, startAgentServer, type AgentServer } from '../helpers/fake-agent-server';
import { sse, UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';

const UPSTREAM_MODEL = 'claude-upstream-9';
let upstream: AgentServer;
let gw: RunningGateway;
let key: string;

/** The upstream: errors by model name, a count for count_tokens, else the whole answer (JSON or SSE). */
async function startUpstream(): Promise<AgentServer> {
  return startAgentServer((req, res) => {
    const model = String(req.body?.model ?? '');
    if (req.path.startsWith('/v1/messages/count_tokens')) return sendJson(res, 200, { input_tokens: 4321 });
    if (model.endsWith('too-long')) {
      return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: 210000 tokens > 200000 maximum for ${model}` }, request_id: 'req_upstream_secret' });
    }
    if (model.endsWith('too-large')) return sendJson(res, 413, { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } });
    if (model.endsWith('bad-key')) return sendJson(res, 401, { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${UPSTREAM_KEY} at upstream.internal` } });
    if (req.body?.stream !== true) return sendJson(res, 200, { id: 'msg_agent', type: 'message', role: 'assistant', model, content: ANSWER_CONTENT, stop_reason: 'tool_use', stop_sequence: null, usage: ANSWER_USAGE });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const events = answerEvents(model);
    for (const event of model.endsWith('midstream') ? events.slice(0, 4) : events) sse(res, event, event.type);
    if (model.endsWith('midstream')) sse(res, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded at upstream.internal' } }, 'error');
    res.end();
  });
}

const PRICING = { input: 300, output: 1500, webSearch: 1000 };
beforeAll(async () => {
  upstream = await startUpstream();
  const adapter = anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY });
  const model = (id: string, upstreamModel: string, agentReady = true): ModelEntry => ({ id, capability: 'llm', upstream: adapter, upstreamModel, pricing: PRICING, agentReady });
  gw = await startGateway({
    models: [
      model('agent', UPSTREAM_MODEL), model('agent-too-long', 'x-too-long'), model('agent-too-large', 'x-too-large'), model('agent-bad-key', 'x-bad-key'),
      model('agent-midstream', 'x-midstream'), model('plain', UPSTREAM_MODEL, false), model('plain-too-long', 'x-too-long', false),
    ],
  });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
});

const BETAS = 'claude-code-20250219,interleaved-thinking-2025-05-14,made-up-beta-2027-01-01';
const post = (path: string, body: object) => request(gw.url).post(path)
  .set({ 'x-api-key': key, 'anthropic-version': '2023-06-01', 'anthropic-beta': BETAS, 'content-type': 'application/json' })
  .send(JSON.stringify(body));

/** The frames of an SSE body, parsed. */
const eventsOf = (text: string): Array<{ event: string; data: Record<string, unknown> }> => text.split('\n\n').filter(Boolean)
  .map((frame) => ({ event: /^event: ([^\n]*)$/m.exec(frame)?.[1] ?? '', data: JSON.parse(/^data: ([^\n]*)$/m.exec(frame)?.[1] ?? 'null') as Record<string, unknown> }));

describe('the request reaches an Anthropic upstream as the caller sent it', () => {
  it.each([false, true])('stream %s: every field in its place, the model name the upstream\'s, version and betas verbatim', async (stream) => {
    const body = agentRequest('agent', stream);
    const res = await post('/v1/messages?beta=true', body);
    expect(res.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    const sent = upstream.requests[0];
    // Byte for byte what the caller's JSON says, but the model: key order, strings (the signature), unknown fields and blocks.
    expect(sent?.text).toBe(JSON.stringify({ ...body, model: UPSTREAM_MODEL }));
    expect(sent?.text).toContain(JSON.stringify(SIGNATURE));
    expect(sent?.headers).toMatchObject({ 'anthropic-version': '2023-06-01', 'anthropic-beta': BETAS, 'x-api-key': UPSTREAM_KEY });
  });

  it('a version the gateway accepts is forwarded as the caller sent it (not replaced by the adapter\'s own)', async () => {
    const res = await request(gw.url).post('/v1/messages').set({ 'x-api-key': key, 'anthropic-version': '2026-10-21' }).send(agentRequest('agent', false));
    expect(res.status).toBe(200);
    expect(upstream.requests[0]?.headers['anthropic-version']).toBe('2026-10-21');
    expect(upstream.requests[0]?.headers['anthropic-beta']).toBeUndefined();
  });
});

describe('the answer comes back whole', () => {
  it('JSON: every block in order, unknown ones included; only the model is the public name', async () => {
    const res = await post('/v1/messages', agentRequest('agent', false));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'msg_agent', type: 'message', role: 'assistant', model: 'agent', content: ANSWER_CONTENT, stop_reason: 'tool_use', stop_sequence: null, usage: ANSWER_USAGE });
  });

  it('SSE: every event and delta type in order, content frames as the upstream wrote them, the signature unchanged', async () => {
    const res = await post('/v1/messages', agentRequest('agent', true)).buffer(true).parse((r, done) => {
      let text = '';
      r.on('data', (c: Buffer) => { text += c.toString(); });
      r.on('end', () => done(null, text));
    });
    expect(res.status).toBe(200);
    const got = eventsOf(res.body as string);
    const expected = answerEvents(UPSTREAM_MODEL);
    const start = expected[0] as unknown as { message: object };
    start.message = { ...start.message, model: 'agent' };
    expect(got.map((e) => e.data)).toEqual(expected);
    // Frame for frame what the upstream wrote, but the public model name in message_start.
    expect(res.body).toBe(expected.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''));
    expect(res.body as string).toContain(JSON.stringify({ type: 'signature_delta', signature: SIGNATURE }));
  });

  it('bills every figure at its own price: cache reads, 5-minute and 1-hour writes, output and web searches', async () => {
    const res = await post('/v1/messages', agentRequest('agent', true));
    const entry = await logEntry(gw.store, res.headers['request-id'] as string);
    expect(entry.usage).toEqual({
      inputTokens: 12, cacheReadInputTokens: 50_000, cacheWrite5mInputTokens: 1000, cacheWrite1hInputTokens: 2000, outputTokens: 420,
      webSearchRequests: 2, searchUnits: 0, provenance: 'confirmed',
    });
    // (12×300 + 50,000×30 + 1,000×375 + 2,000×600 + 420×1,500) per million tokens, plus 2 searches at 1,000 per thousand.
    expect(entry.cost).toBe('5.7086');
  });
});

describe('the Anthropic SDK on an agent-ready model', () => {
  const client = (): Anthropic => new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
  const params = (): Anthropic.MessageCreateParamsNonStreaming => {
    const { stream: _, frobnicate_2027: __, ...body } = agentRequest('agent', false);
    return body as unknown as Anthropic.MessageCreateParamsNonStreaming;
  };

  it('messages.stream(): tools with tool_choice, thinking with its signature, images, documents, cache_control; finalMessage() has every block, tool inputs parsed', async () => {
    const message = await client().messages.stream(params(), { headers: { 'anthropic-beta': BETAS } }).finalMessage();
    expect(message.content).toEqual(ANSWER_CONTENT);
    expect(message.usage).toMatchObject({ cache_read_input_tokens: 50_000, cache_creation: { ephemeral_1h_input_tokens: 2000 }, server_tool_use: { web_search_requests: 2 } });
    const sent = upstream.requests[0]?.body as Record<string, unknown>;
    expect(sent).toMatchObject({ tool_choice: params().tool_choice, thinking: params().thinking, system: params().system, messages: params().messages, stream: true });
  });

  it('messages.create(): the same message as JSON', async () => {
    const message = await client().messages.create(params(), { timeout: 30_000 });
    expect(message).toMatchObject({ model: 'agent', content: ANSWER_CONTENT, stop_reason: 'tool_use' });
  });
});

describe('errors agents act on', () => {
  it.each([false, true])('stream %s: an upstream 400 about the request keeps its type and wording, the upstream model told as the public one', async (stream) => {
    const res = await post('/v1/messages', agentRequest('agent-too-long', stream));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum for agent-too-long' }, request_id: res.headers['request-id'] });
    expect(JSON.stringify(res.body)).not.toContain('req_upstream_secret');
  });

  it('an upstream 413 keeps its type and wording', async () => {
    const res = await post('/v1/messages', agentRequest('agent-too-large', false));
    expect(res.status).toBe(413);
    expect(res.body.error).toEqual({ type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' });
  });

  it('anything else from the upstream stays hidden: its credentials refused, a failure mid-stream', async () => {
    const refused = await post('/v1/messages', agentRequest('agent-bad-key', false));
    expect(refused.status).toBe(500);
    expect(refused.body.error).toEqual({ type: 'api_error', message: 'Internal server error.' });
    expect(JSON.stringify(refused.body)).not.toMatch(/upstream\.internal|sk-upstream/);
    const cut = await post('/v1/messages', agentRequest('agent-midstream', true));
    expect(cut.status).toBe(200);
    expect(cut.text).toContain('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"The upstream is overloaded; retry later."}}');
    expect(cut.text).not.toContain('upstream.internal');
  });

  it('a V1 model keeps the safe text for the same upstream 400', async () => {
    const res = await post('/v1/messages', { model: 'plain-too-long', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('The upstream rejected the request.');
  });
});

describe('what the gateway still checks on an agent-ready model', () => {
  const base = agentRequest('agent', false);
  it.each([
    ['no max_tokens', { ...base, max_tokens: undefined }, /^max_tokens: Field required/],
    ['a role it does not know', { ...base, messages: [{ role: 'tool', content: 'x' }] }, /^messages\.0\.role: must be one of "user", "assistant", "system"/],
    ['a block without a type', { ...base, messages: [{ role: 'user', content: [{ text: 'x' }] }] }, /^messages\.0\.content\.0\.type: Field required/],
    ['a body nested too deep', { ...base, tools: [{ name: 't', input_schema: JSON.parse(`${'{"a":'.repeat(70)}1${'}'.repeat(70)}`) as object }] }, /^tools\.0\.input_schema(\.a)+: nested deeper than 64 levels/],
    ['tools that are not a list', { ...base, tools: { name: 'x' } }, /^tools: must be array/],
  ])('refuses %s before any upstream call', async (_name, body, message) => {
    const res = await post('/v1/messages', body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
    expect(upstream.requests).toHaveLength(0);
  });

  it('a V1 model refuses the same body by name, naming the switch an operator turns on', async () => {
    const res = await post('/v1/messages', agentRequest('plain', false));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('tools: tools are not supported by this gateway (V1 accepts plain text only); an operator accepts it by marking the model agentReady: true');
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('count_tokens and models for agents', () => {
  it('count_tokens forwards the whole body (tools, system blocks, images) with the betas; never billed', async () => {
    const { max_tokens: _, stream: __, ...body } = agentRequest('agent', false);
    const res = await post('/v1/messages/count_tokens?beta=true', body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ input_tokens: 4321 });
    expect(res.headers['x-token-count-source']).toBe('upstream');
    expect(upstream.requests[0]?.text).toBe(JSON.stringify({ ...body, model: UPSTREAM_MODEL }));
    expect(upstream.requests[0]?.headers['anthropic-beta']).toBe(BETAS);
    const entry = await logEntry(gw.store, res.headers['request-id'] as string);
    expect(entry).toMatchObject({ endpoint: 'count_tokens', charge: 0, billingStatus: 'not_billed' });
  });

  it('GET /v1/models?limit=1000 (Claude Code\'s discovery) lists agent-ready models as such, with no redirect', async () => {
    const res = await request(gw.url).get('/v1/models?limit=1000').set({ 'x-api-key': key, 'anthropic-version': '2023-06-01' });
    expect(res.status).toBe(200);
    const byId = new Map((res.body.data as Array<{ id: string; agent_ready?: boolean; display_name: string }>).map((m) => [m.id, m]));
    expect(byId.get('agent')).toMatchObject({ agent_ready: true, display_name: 'agent' });
    expect(byId.get('plain')).not.toHaveProperty('agent_ready');
  });
});
