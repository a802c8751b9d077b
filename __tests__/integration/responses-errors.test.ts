/**
 * Errors in OpenAI's terms on both OpenAI routes (chat and Responses), as the openai SDK and Codex
 * act on them: an exhausted balance is 429 insufficient_quota that is not retried, a prompt over the
 * context is context_length_exceeded, a refusal names its field (`param`); what the Responses route
 * refuses by name; the WebSocket upgrade (426); and keep-alive events on a silent Responses stream.
 */
import http from 'node:http';
import OpenAI from 'openai';
import { anthropicAdapter, openaiChatAdapter, type ModelEntry } from '../../lib';
import { gate } from '../helpers/fake-server';
import { startScripted, type ScriptedTurn, type ScriptedUpstream } from '../helpers/fake-scripted';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { responsesViolations } from '../helpers/responses-grammar';
import { parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
const PRICING = { input: 1_000_000, output: 2_000_000 };
const HELLO: ScriptedTurn = { text: ['Hi', ' there'], usage: { input: 9, output: 3 } };
const TOO_LONG = { anthropic: 'prompt is too long: 250000 tokens > 200000 maximum', openai: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens." };
const silences = { before: gate(), pause: gate() };

/** Answers HELLO; `TOO LONG` in the request gets the format's context refusal; `SILENT-…` holds the stream. */
const script = (format: 'anthropic' | 'openai') => (body: Json): ScriptedTurn => {
  const text = JSON.stringify(body.messages);
  if (text.includes('TOO LONG')) return { ...HELLO, status: { code: 400, message: TOO_LONG[format] } };
  if (text.includes('SILENT-BEFORE')) return { ...HELLO, before: silences.before.wait() };
  if (text.includes('SILENT-MID')) return { ...HELLO, pause: silences.pause.wait() };
  if (text.includes('PINGS')) return { ...HELLO, thinking: { text: ['Long thought.'], signature: 'sig' }, pings: 20 };
  if (text.includes('FAIL-500')) return { ...HELLO, status: { code: 500, message: 'upstream broke' } };
  if (text.includes('BAD-400')) return { ...HELLO, status: { code: 400, message: 'messages.0.content: the upstream does not like it' } };
  return HELLO;
};

let claude: ScriptedUpstream;
let gpt: ScriptedUpstream;
let gw: RunningGateway;
let key: string;

beforeAll(async () => {
  [claude, gpt] = await Promise.all([startScripted('anthropic', script('anthropic')), startScripted('openai', script('openai'))]);
  const models: ModelEntry[] = [
    { id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: claude.url }), agentReady: true, autoCache: false, pricing: PRICING }, // translation, not caching (auto-cache.test.ts)
    { id: 'claude-v1', capability: 'llm', upstream: anthropicAdapter({ baseURL: claude.url }), pricing: PRICING, maxOutputTokens: 1000 },
    { id: 'gpt', capability: 'llm', upstream: openaiChatAdapter({ baseURL: gpt.url }), agentReady: true, pricing: PRICING },
  ];
  gw = await startGateway({ models, keepAliveMs: 40 });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  silences.before.open();
  silences.pause.open();
  await gw.close();
  await Promise.all([claude.close(), gpt.close()]);
});

const post = (path: string, body: Json, auth = key, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const chat = (model: string, content: string): Json => ({ model, messages: [{ role: 'user', content }] });
const responses = (model: string, input: unknown, extra: Json = {}): Json => ({ model, input, ...extra });

describe('an exhausted balance: 429 insufficient_quota, x-should-retry false, no upstream call', () => {
  it.each([['/v1/responses', responses('claude', 'Hello')], ['/v1/chat/completions', chat('claude', 'Hello')]])('%s', async (path, body) => {
    const { key: broke, id } = addCaller(gw.store, { balance: 1 });
    const calls = claude.calls().length;
    const res = await post(path, body, broke);
    expect(res.status).toBe(429);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(await res.json()).toEqual({ error: { message: expect.stringContaining('Insufficient balance'), type: 'insufficient_quota', code: 'insufficient_quota', param: null } });
    // The SDK (2 retries by default) takes x-should-retry: one request, and a RateLimitError with the code.
    const sdk = new OpenAI({ apiKey: broke, baseURL: `${gw.url}/v1` });
    const failure = await sdk.responses.create({ model: 'claude', input: 'Hello' }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('insufficient_quota');
    expect(gw.store.getLog().filter((e) => e.callerId === id)).toHaveLength(2);
    expect(claude.calls().length).toBe(calls);
    expect(await logEntry(gw.store, String(res.headers.get('request-id')))).toMatchObject({ status: 429, errorCode: 'billing_error', billingStatus: 'not_billed' });
  });
});

describe('a prompt over the context: 400 context_length_exceeded, not retried', () => {
  it.each([
    ['Responses, agent-ready, Anthropic words', '/v1/responses', responses('claude', 'TOO LONG'), TOO_LONG.anthropic],
    ['Responses, V1, the safe text', '/v1/responses', responses('claude-v1', 'TOO LONG'), 'The upstream rejected the request.'],
    ['Responses, an OpenAI-format upstream', '/v1/responses', responses('gpt', 'TOO LONG'), TOO_LONG.openai],
    ['chat, agent-ready', '/v1/chat/completions', chat('claude', 'TOO LONG'), TOO_LONG.anthropic],
    ['chat, V1', '/v1/chat/completions', chat('claude-v1', 'TOO LONG'), 'The upstream rejected the request.'],
  ])('%s', async (_name, path, body, message) => {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(await res.json()).toEqual({ error: { message, type: 'invalid_request_error', code: 'context_length_exceeded', param: null } });
  });
});

it("an upstream's 400 keeps its words on an agent-ready model but names no param: only the gateway's own refusals name a field", async () => {
  for (const [path, body] of [['/v1/responses', responses('gpt', 'BAD-400')], ['/v1/chat/completions', chat('claude', 'BAD-400')]] as const) {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: 'messages.0.content: the upstream does not like it', type: 'invalid_request_error', code: null, param: null } });
  }
});

it('an upstream 5xx is a 500 server_error the client may retry', async () => {
  const res = await post('/v1/responses', responses('claude', 'FAIL-500'));
  expect(res.status).toBe(500);
  expect(res.headers.get('x-should-retry')).toBe('true');
  expect(await res.json()).toEqual({ error: { message: 'Internal server error.', type: 'server_error', code: 'server_error', param: null } });
});

describe('refusals name their field (param), before any upstream call', () => {
  it.each<[string, Json, string, string]>([
    ['no input', { model: 'claude' }, 'input', 'missing_required_parameter'],
    ['a tool without a name', responses('claude', 'Hi', { tools: [{ type: 'function', parameters: {} }] }), 'tools.0.name', 'missing_required_parameter'],
    ['max_output_tokens 0', responses('claude', 'Hi', { max_output_tokens: 0 }), 'max_output_tokens', 'invalid_value'],
    ['max_output_tokens over the model\'s', responses('claude-v1', 'Hi', { max_output_tokens: 5000 }), 'max_output_tokens', 'invalid_value'],
    ['previous_response_id (nothing is stored)', responses('claude', 'Hi', { previous_response_id: 'resp_1' }), 'previous_response_id', 'invalid_value'],
    ['conversation', responses('claude', 'Hi', { conversation: 'conv_1' }), 'conversation', 'invalid_value'],
    ['background: true', responses('claude', 'Hi', { background: true }), 'background', 'invalid_value'],
    ['arguments that are no JSON object', responses('claude', [{ role: 'user', content: 'Hi' }, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '[1]' }]), 'input.1.arguments', 'invalid_value'],
    ['an item_reference to nothing', responses('claude', [{ type: 'item_reference', id: 'msg_gone' }, { role: 'user', content: 'Hi' }]), 'input.0.id', 'invalid_value'],
    ['an uploaded image by id', responses('claude', [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }]), 'input.0.content.0.image_url', 'invalid_value'],
    ['json_object output', responses('claude', 'Hi', { text: { format: { type: 'json_object' } } }), 'text.format.type', 'invalid_value'],
    ['V1: tools', responses('claude-v1', 'Hi', { tools: [{ type: 'function', name: 'f' }] }), 'tools', 'invalid_value'],
    ['V1: reasoning', responses('claude-v1', 'Hi', { reasoning: { effort: 'low' } }), 'reasoning', 'invalid_value'],
    ['V1: a function call item', responses('claude-v1', [{ type: 'function_call_output', call_id: 'c', output: 'x' }]), 'input.0.type', 'invalid_value'],
    ['V1: an image', responses('claude-v1', [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }]), 'input.0.content.0.type', 'invalid_value'],
  ])('%s', async (_name, body, param, code) => {
    const calls = claude.calls().length;
    const res = await post('/v1/responses', body);
    expect(res.status).toBe(400);
    const error = ((await res.json()) as { error: Json }).error;
    expect(error).toMatchObject({ type: 'invalid_request_error', param, code });
    expect(String(error.message).startsWith(`${param}: `)).toBe(true);
    if (_name.startsWith('V1')) expect(error.message).toContain('agentReady: true');
    expect(claude.calls().length).toBe(calls);
  });

  // What the upstream would be asked about a body the client never sent (a native Responses upstream judges these itself).
  it.each<[string, (model: string) => Json, string]>([
    ['an include value the API does not have', (model) => responses(model, 'Hi', { include: ['reasoning.encrypted_content', 'bogus.x'] }), 'include.1'],
    ['a function_call_output answering no call', (model) => responses(model, [{ role: 'user', content: 'Hi' }, { type: 'function_call_output', call_id: 'call_9', output: 'x' }]), 'input.1.call_id'],
    ['a tool output before its call', (model) => responses(model, [
      { role: 'user', content: 'Hi' }, { type: 'custom_tool_call_output', call_id: 'call_1', output: 'x' }, { type: 'custom_tool_call', call_id: 'call_1', name: 'f', input: 'y' },
    ]), 'input.1.call_id'],
  ])('%s: refused by name on both upstream formats, before any upstream call', async (_name, body, param) => {
    for (const [model, upstream] of [['claude', claude], ['gpt', gpt]] as const) {
      const calls = upstream.calls().length;
      const res = await post('/v1/responses', body(model));
      expect([model, res.status]).toEqual([model, 400]);
      const error = ((await res.json()) as { error: Json }).error;
      expect(error).toMatchObject({ type: 'invalid_request_error', param, code: 'invalid_value' });
      expect(String(error.message).startsWith(`${param}: `)).toBe(true);
      expect(upstream.calls().length).toBe(calls);
    }
  });

  it('a tool output after its call, and every include value the API has, go up', async () => {
    const include = ['reasoning.encrypted_content', 'message.output_text.logprobs', 'web_search_call.action.sources', 'web_search_call.results', 'file_search_call.results',
      'code_interpreter_call.outputs', 'message.input_image.image_url', 'computer_call_output.output.image_url'];
    const input = [{ role: 'user', content: 'Hi' }, { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'call_1', output: 'x' }];
    const tools = [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} } }];
    for (const model of ['claude', 'gpt']) expect([model, (await post('/v1/responses', responses(model, input, { include, tools }))).status]).toEqual([model, 200]);
  });

  it('on the chat route too', async () => {
    const res = await post('/v1/chat/completions', { model: 'claude', messages: [{ role: 'user' }] });
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'messages.0.content', code: 'missing_required_parameter' } });
  });

  it('an unknown model: 404 model_not_found; a bad key: 401 invalid_api_key; x-api-key works as Bearer does', async () => {
    expect(await (await post('/v1/responses', responses('nope', 'Hi'))).json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'model_not_found', param: 'model' } });
    const bad = await post('/v1/responses', responses('claude', 'Hi'), 'sk-nope');
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(responses('claude', 'Hi')) });
    expect(res.status).toBe(200);
  });
});

describe('the route itself', () => {
  it('a WebSocket upgrade gets 426 (Codex falls back to HTTP); a plain GET 405; a stored response 404, all in OpenAI\'s shape', async () => {
    // What Codex sends with supports_websockets = true (fetch cannot send an Upgrade).
    const upgrade = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = http.request(`${gw.url}/v1/responses`, { headers: { authorization: `Bearer ${key}`, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'openai-beta': 'responses_websockets=2026-02-06' } });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => { body += c.toString(); }).on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.on('error', reject);
      req.end();
    });
    expect(upgrade.status).toBe(426);
    expect(upgrade.headers['x-should-retry']).toBe('false');
    expect(JSON.parse(upgrade.body)).toMatchObject({ error: { code: 'websocket_not_supported' } });
    expect(await logEntry(gw.store, String(upgrade.headers['request-id']))).toMatchObject({ status: 426, endpoint: 'responses' });
    const get = await fetch(`${gw.url}/v1/responses`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(await get.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'method_not_allowed' } });
    const stored = await fetch(`${gw.url}/v1/responses/resp_123`, { headers: { authorization: `Bearer ${key}` } });
    expect(stored.status).toBe(404);
    expect(await stored.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('keep-alive: a silent upstream gets response.in_progress events, never comments', () => {
  /** Reads a stream, opening `silence` once `count` in_progress events beyond the first came. */
  async function silentStream(model: string, marker: string, silence: { open(): void }, count: number): Promise<string> {
    const res = await post('/v1/responses', responses(model, marker, { stream: true }));
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    let opened = false;
    for (;;) {
      if (!opened && text.split('event: response.in_progress').length - 2 >= count) {
        opened = true;
        silence.open();
      }
      const { done, value } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
    }
  }

  it.each(['claude', 'gpt'])('%s: mid-stream, each carrying the output so far; the grammar and the SDK\'s snapshot hold', async (model) => {
    const text = await silentStream(model, 'SILENT-MID', silences.pause, 2);
    const frames = parseFrames(text);
    expect(responsesViolations(frames)).toEqual([]);
    expect(text).not.toMatch(/^:/m);
    expect(frames.filter((f) => f.event === 'response.in_progress').length).toBeGreaterThanOrEqual(3);
    const kept = frames.filter((f) => f.event === 'response.in_progress').at(-1)?.data as Json;
    expect(kept.response).toMatchObject({ status: 'in_progress', output: [{ type: 'message', status: 'in_progress', content: [{ type: 'output_text', text: 'Hi' }] }] });
    expect((frames.at(-1)?.data as Json).response).toMatchObject({ status: 'completed', output: [{ type: 'message', content: [{ text: 'Hi there' }] }] });
    // The SDK replaces its snapshot with each in_progress response: the deltas after it still land.
    let seen = '';
    const watching: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const decoder = new TextDecoder();
      const watch = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += decoder.decode(chunk, { stream: true });
          if (seen.split('event: response.in_progress').length - 2 >= 2) silences.pause.open();
          controller.enqueue(chunk);
        },
      });
      return new Response((res.body as ReadableStream<Uint8Array>).pipeThrough(watch), { status: res.status, headers: res.headers });
    };
    const sdk = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, fetch: watching });
    expect(await sdk.responses.stream({ model, input: 'SILENT-MID' }).finalResponse()).toMatchObject({ status: 'completed', output_text: 'Hi there' });
    expect(responsesViolations(parseFrames(seen))).toEqual([]);
  });

  it('an upstream that only pings (a long thinking phase whose text is not asked for) is silence too', async () => {
    const res = await post('/v1/responses', responses('claude', 'PINGS', { stream: true, reasoning: { effort: 'low' } }));
    const frames = parseFrames(await res.text());
    expect(responsesViolations(frames)).toEqual([]);
    // 20 pings over about 300 ms, keepAliveMs 40: in_progress events beyond the opening one, none for the pings themselves.
    expect(frames.filter((f) => f.event === 'response.in_progress').length).toBeGreaterThanOrEqual(3);
  });

  it('before the first event: response.created and response.in_progress go out at once, then the answer', async () => {
    const text = await silentStream('claude', 'SILENT-BEFORE', silences.before, 1);
    const frames = parseFrames(text);
    expect(responsesViolations(frames)).toEqual([]);
    expect(frames.slice(0, 2).map((f) => f.event)).toEqual(['response.created', 'response.in_progress']);
  });
});
