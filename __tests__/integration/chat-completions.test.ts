/** POST /v1/chat/completions through the official openai SDK (Anthropic and OpenAI upstreams), and count_tokens through the Anthropic SDK. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ANTHROPIC_USAGE, DELTAS, startAnthropicFake } from '../helpers/fake-anthropic';
import { OPENAI_DELTAS, OPENAI_USAGE, startOpenAIFake } from '../helpers/fake-openai';
import { SECRET_MARKER, UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels, logEntry, postMessages, startGateway, type RunningGateway } from '../helpers/gateway';

let anthropic: FakeServer;
let openai: FakeServer;
let gw: RunningGateway;
let key: string;
let callerId: string;
// Only output is priced (one unit a token), so a hold of max_tokens covers a request exactly.
const PRICE = { input: 0, output: 1_000_000 };
const NAMES = ['claude-json', 'claude-stream', 'claude-midstream-error', 'gpt-json', 'gpt-stream', 'gpt-length'];

beforeAll(async () => {
  anthropic = await startAnthropicFake();
  openai = await startOpenAIFake();
  gw = await startGateway({ models: llmModels(anthropic.url, openai.url, NAMES).map((m) => ({ ...m, pricing: PRICE })) });
  ({ key, id: callerId } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([anthropic.close(), openai.close()]);
});

const client = (apiKey = key): OpenAI => new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const upstreamCalls = (): number => anthropic.received.length + openai.received.length;

describe.each([
  ['an Anthropic upstream (translated both ways)', 'claude', DELTAS.join(''), { prompt: ANTHROPIC_USAGE.input_tokens, completion: ANTHROPIC_USAGE.output_tokens, cached: 0 }],
  ['an OpenAI upstream', 'gpt', OPENAI_DELTAS.join(''), { prompt: OPENAI_USAGE.prompt_tokens, completion: OPENAI_USAGE.completion_tokens, cached: 10 }],
] as const)('chat.completions over %s', (_name, prefix, text, usage) => {
  it('create(): a chat.completion with the public model, the text, the finish reason and the usage, billed on it', async () => {
    const { data, response } = await client().chat.completions.create({
      model: `${prefix}-json`, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }], max_completion_tokens: 64, user: 'end-user-7',
    }).withResponse();
    expect(data).toMatchObject({ object: 'chat.completion', model: `${prefix}-json`, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] });
    expect(data.usage).toEqual({ prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion, prompt_tokens_details: { cached_tokens: usage.cached } });
    const requestId = response.headers.get('request-id') as string;
    expect(data.id).toBe(`chatcmpl-${requestId}`);
    const entry = await logEntry(gw.store, requestId);
    expect(entry).toMatchObject({ endpoint: 'chat_completions', stream: false, status: 200, billingStatus: 'billed', user: 'end-user-7', charge: usage.completion, cost: String(usage.completion) });
  });

  it('a stream with include_usage: role, text deltas, finish reason, then a usage chunk; finalChatCompletion() reads it whole', async () => {
    const stream = await client().chat.completions.create({ model: `${prefix}-stream`, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 64, stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe(text);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion } });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);

    const runner = client().chat.completions.stream({ model: `${prefix}-stream`, messages: [{ role: 'user', content: 'Hello' }], stream_options: { include_usage: true } });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe(text);
    expect(final.choices[0]?.finish_reason).toBe('stop');
    expect(final.usage?.completion_tokens).toBe(usage.completion);
  });

  it('a stream without include_usage sends no usage chunk and is still billed on the confirmed usage', async () => {
    const { data, response } = await client().chat.completions.create({ model: `${prefix}-stream`, messages: [{ role: 'user', content: 'Hello' }], stream: true }).withResponse();
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of data) chunks.push(chunk);
    expect(chunks.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
    const entry = await logEntry(gw.store, response.headers.get('request-id') as string);
    expect(entry).toMatchObject({ endpoint: 'chat_completions', stream: true, billingStatus: 'billed', charge: usage.completion });
  });
});

it('maps finish reasons (length) and keeps max_tokens or max_completion_tokens as the bound sent upstream', async () => {
  const before = openai.received.length;
  const out = await client().chat.completions.create({ model: 'gpt-length', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 33 });
  expect(out.choices[0]?.finish_reason).toBe('length');
  expect(openai.received[before]?.body).toMatchObject({ max_tokens: 33, messages: [{ role: 'user', content: 'Hello' }] });
  await client().chat.completions.create({ model: 'claude-json', messages: [{ role: 'user', content: 'Hello' }] });
  expect(anthropic.received.at(-1)?.body).toMatchObject({ max_tokens: 4096 }); // no bound given: the default
});

it('a mid-stream upstream failure ends the stream with an error the openai SDK raises as an APIError, with a safe text', async () => {
  const stream = await client().chat.completions.create({ model: 'claude-midstream-error', messages: [{ role: 'user', content: 'Hello' }], stream: true });
  let text = '';
  const failure = await (async () => {
    try {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      return undefined;
    } catch (err) {
      return err;
    }
  })();
  expect(text).toBe(DELTAS[0]);
  expect(failure).toBeInstanceOf(OpenAI.APIError);
  expect((failure as InstanceType<typeof OpenAI.APIError>).error).toEqual({ message: 'The upstream is overloaded; retry later.', type: 'server_error', code: 'overloaded', param: null });
  expect(JSON.stringify(failure)).not.toContain(SECRET_MARKER);
  expect(String(failure)).not.toContain(UPSTREAM_KEY);
});

it.each([
  ['tools', { tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools: tools are not supported', 'tools'],
  ['functions', { functions: [{ name: 'f' }] }, 'functions: functions are not supported', 'functions'],
  ['tool_choice', { tool_choice: 'auto' }, 'tool_choice: tool_choice is not supported', 'tool_choice'],
  ['response_format', { response_format: { type: 'json_object' } }, 'response_format: response_format is not supported', 'response_format'],
  ['n > 1', { n: 2 }, 'n: only one choice per request is supported', 'n'],
  ['logprobs', { logprobs: true }, 'logprobs: logprobs is not supported', 'logprobs'],
  ['an image part', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x/y.png' } }] }] }, 'messages.0.content.0.type: only text content parts are supported', 'messages.0.content.0.type'],
  ['a tool message', { messages: [{ role: 'tool', content: 'x', tool_call_id: 'c' }] }, 'messages.0.role: tool messages are not supported', 'messages.0.role'],
  ['an unknown field', { frobnicate: 1 }, 'frobnicate: Extra inputs are not permitted', 'frobnicate'],
  ['a temperature over 2', { temperature: 2.5 }, 'temperature', 'temperature'],
])('refuses %s before any upstream call, in OpenAI\'s error shape naming the field (param)', async (_name, extra, message, param) => {
  const before = upstreamCalls();
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-json', messages: [{ role: 'user', content: 'Hello' }], ...extra }),
  });
  expect(res.status).toBe(400);
  expect(res.headers.get('request-id')).toMatch(/^req_/);
  const body = await res.json() as { error: { message: string; type: string; code: string; param: string } };
  expect(body).toEqual({ error: { message: expect.stringContaining(message), type: 'invalid_request_error', code: 'invalid_value', param } });
  expect(upstreamCalls()).toBe(before);
});

it('refuses a bad key with 401 and an unknown model with 404, as the SDK error classes', async () => {
  await expect(client('sk-nope').chat.completions.create({ model: 'claude-json', messages: [{ role: 'user', content: 'Hi' }] })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  await expect(client().chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'Hi' }] })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
});

it('one balance across both endpoints: a caller with a balance for N requests gets N of 2N made at once, half of them chat', async () => {
  const n = 10;
  const { key: shared, id } = addCaller(gw.store, { balance: n * 15 }); // each request holds and costs 15 (its 15 output tokens)
  const chat = (): Promise<number> => client(shared).chat.completions.create({ model: 'claude-json', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 15 })
    .then(() => 200, (err: { status?: number }) => err.status ?? 0);
  const messages = (): Promise<number> => postMessages(gw.url, shared, 'claude-json', { maxTokens: 15 }).then(async (r) => { await r.text(); return r.status; });
  const statuses = await Promise.all(Array.from({ length: 2 * n }, (_, i) => (i % 2 ? chat() : messages())));
  expect(statuses.filter((s) => s === 200)).toHaveLength(n);
  expect(statuses.filter((s) => s === 402 || s === 429)).toHaveLength(n); // Messages says 402, chat 429 insufficient_quota
  for (let i = 0; i < 200 && gw.store.getLog().filter((e) => e.callerId === id).length < 2 * n; i++) await new Promise((r) => setTimeout(r, 10));
  expect(gw.store.getAccount(id)).toEqual({ balance: 0, held: 0, carry: '0', ledger: 0 });
  const served = gw.store.getLog().filter((e) => e.callerId === id && e.status === 200);
  expect(served).toHaveLength(n);
  expect(served.every((e) => e.charge === 15 && e.billingStatus === 'billed')).toBe(true);
});

describe('POST /v1/messages/count_tokens', () => {
  it('answers the upstream\'s own count through the Anthropic SDK; authenticated, logged, never billed', async () => {
    const anthropicClient = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
    const before = gw.store.getAccount(callerId);
    const messages = [{ role: 'user' as const, content: 'How many tokens is this?' }];
    const { data, response } = await anthropicClient.messages.countTokens({ model: 'claude-json', system: 'Be brief.', messages }).withResponse();
    expect(data).toEqual({ input_tokens: JSON.stringify(['Be brief.', messages]).length });
    expect(anthropic.received.at(-1)).toMatchObject({ path: '/v1/messages/count_tokens', body: { model: 'claude-json', system: 'Be brief.', messages } });
    const entry = await logEntry(gw.store, response.headers.get('request-id') as string);
    expect(entry).toMatchObject({ endpoint: 'count_tokens', status: 200, billingStatus: 'not_billed', charge: 0, upstream: 'anthropic' });
    expect(gw.store.getAccount(callerId)).toEqual(before);
  });

  it('a model whose upstream cannot count gets a clear 400, never a local guess; bad bodies and keys are refused first', async () => {
    const post = (body: unknown, apiKey = key) => fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: 'POST', headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const before = upstreamCalls();
    const openaiModel = await post({ model: 'gpt-json', messages: [{ role: 'user', content: 'Hi' }] });
    expect(openaiModel.status).toBe(400);
    expect(await openaiModel.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'model: "gpt-json" cannot count tokens (its upstream has no token-counting endpoint).' } });
    expect((await post({ model: 'claude-json', messages: [{ role: 'user', content: 'Hi' }], tools: [] })).status).toBe(400);
    expect((await post({ model: 'claude-json', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 })).status).toBe(400);
    expect((await post({ model: 'claude-json', messages: [] })).status).toBe(400);
    expect((await post({ model: 'claude-json', messages: [{ role: 'user', content: 'Hi' }] }, 'sk-nope')).status).toBe(401);
    expect(upstreamCalls()).toBe(before);
  });

  it('is rate limited by requests with the caller\'s limits', async () => {
    const { key: limited } = addCaller(gw.store, { limits: { rpm: 2, tpm: 1 } }); // tpm 1: count_tokens spends no tokens
    const anthropicClient = new Anthropic({ apiKey: limited, baseURL: gw.url, maxRetries: 0 });
    const count = () => anthropicClient.messages.countTokens({ model: 'claude-json', messages: [{ role: 'user', content: 'Hi' }] });
    await count();
    await count();
    await expect(count()).rejects.toBeInstanceOf(Anthropic.RateLimitError);
  });
});
