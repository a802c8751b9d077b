/**
 * Answers the gateway must not pass on, and what a plain-text (V1) model's client gets: tool-call
 * arguments that are not JSON end a stream with the `error` event and are billed as the same answer
 * in JSON is (not at all); an Anthropic tool_use whose input is not a JSON object, carried into the
 * chat and Responses formats, likewise; a V1 model answers text only (thinking left out and still
 * billed, a tool call nobody offered refused). Through the official SDKs, over both upstream formats,
 * every route.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { anthropicAdapter, openaiChatAdapter, type ModelEntry, type RequestLogEntry } from '../../lib';
import { addCaller, PRICING, startGateway, type RunningGateway } from '../helpers/gateway';
import {
  anthropicMessage, anthropicStream, openaiChunk, openaiCompletion, openaiFrames, openaiUsageChunk, startScriptedUpstream, type ScriptedUpstream,
} from '../helpers/scripted-upstream';
import { responsesViolations } from '../helpers/responses-grammar';
import { chatViolations, messagesViolations, parseFrames } from '../helpers/stream-grammar';

let upstream: ScriptedUpstream;
let gw: RunningGateway;

const OPENAI_USAGE = '{"prompt_tokens":30,"completion_tokens":12,"total_tokens":42}';
const ANTHROPIC_USAGE = '{"input_tokens":25,"output_tokens":15,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}';
const START_USAGE = '{"input_tokens":25,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}';
const WEATHER = { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };

// Each model has its own upstream model name, which picks the scripted answer.
const MODELS: Array<[id: string, format: 'anthropic' | 'openai', agentReady: boolean]> = [
  ['oa-badargs', 'openai', true], ['oa-notobject', 'openai', true], ['an-input-string', 'anthropic', true], ['an-input-array', 'anthropic', true],
  ['oa-v1-reasoning', 'openai', false], ['an-v1-thinking', 'anthropic', false], ['an-agent-thinking', 'anthropic', true],
  ['oa-v1-tool', 'openai', false], ['an-v1-tool', 'anthropic', false],
];

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  const adapters = { anthropic: anthropicAdapter({ baseURL: upstream.url, apiKey: 'sk-up' }), openai: openaiChatAdapter({ baseURL: upstream.url, apiKey: 'sk-up' }) };
  const models = MODELS.map(([id, format, agentReady]): ModelEntry => ({ id, capability: 'llm', upstream: adapters[format], upstreamModel: `up-${id}`, pricing: PRICING, agentReady }));
  gw = await startGateway({ models });
  scriptAnswers();
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

function scriptAnswers(): void {
  // A call whose arguments are not JSON (streamed in two fragments), and one whose arguments are JSON but not an object.
  const badCall = (args: readonly string[]) => ({
    json: openaiCompletion(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":${JSON.stringify(args.join(''))}}}]}`, '"tool_calls"', OPENAI_USAGE),
    sse: openaiFrames([
      openaiChunk('{"role":"assistant","content":""}'),
      openaiChunk('{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}'),
      ...args.map((a) => openaiChunk(`{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(a)}}}]}`)),
      openaiChunk('{}', '"tool_calls"'),
      openaiUsageChunk(OPENAI_USAGE),
    ]),
  });
  upstream.answer('up-oa-badargs', badCall(['{"city": Par', 'is}']));
  upstream.answer('up-oa-notobject', badCall(['["Par', 'is"]']));
  // An Anthropic tool_use whose input is not a JSON object: as a whole answer, and streamed in fragments.
  const badInput = (input: string, fragments: readonly string[]) => ({
    json: anthropicMessage(`[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":${input}}]`, '"tool_use"', ANTHROPIC_USAGE),
    sse: anthropicStream([['{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}', fragments.map((f) => `{"type":"input_json_delta","partial_json":${JSON.stringify(f)}}`)]],
      '"tool_use"', START_USAGE, '{"output_tokens":15}'),
  });
  upstream.answer('up-an-input-string', badInput('"Paris"', ['not json', ' {']));
  upstream.answer('up-an-input-array', badInput('["Paris"]', ['["Par', 'is"]']));
  // Reasoning before the text, on a plain-text model.
  upstream.answer('up-oa-v1-reasoning', {
    json: openaiCompletion('{"role":"assistant","reasoning_content":"Let me think.","content":"Hello there"}', '"stop"', OPENAI_USAGE),
    sse: openaiFrames([
      openaiChunk('{"role":"assistant","content":""}'), openaiChunk('{"reasoning_content":"Let me"}'), openaiChunk('{"reasoning_content":" think."}'),
      openaiChunk('{"content":"Hello"}'), openaiChunk('{"content":" there"}'), openaiChunk('{}', '"stop"'), openaiUsageChunk(OPENAI_USAGE),
    ]),
  });
  const thinking = '{"type":"thinking","thinking":"","signature":""}';
  const thinkingDeltas = ['{"type":"thinking_delta","thinking":"Let me think."}', '{"type":"signature_delta","signature":"c2lnbmF0dXJl"}'];
  const textDeltas = ['{"type":"text_delta","text":"Hello"}', '{"type":"text_delta","text":" there"}'];
  const thinkingAnswer = {
    json: anthropicMessage('[{"type":"thinking","thinking":"Let me think.","signature":"c2lnbmF0dXJl"},{"type":"redacted_thinking","data":"abc"},{"type":"text","text":"Hello there"}]', '"end_turn"', ANTHROPIC_USAGE),
    sse: anthropicStream([[thinking, thinkingDeltas], ['{"type":"redacted_thinking","data":"abc"}', []], ['{"type":"text","text":""}', textDeltas]], '"end_turn"', START_USAGE, '{"output_tokens":15}'),
  };
  upstream.answer('up-an-v1-thinking', thinkingAnswer);
  upstream.answer('up-an-agent-thinking', thinkingAnswer);
  // A tool call to a plain-text model, which was offered no tools.
  upstream.answer('up-oa-v1-tool', {
    json: openaiCompletion('{"role":"assistant","content":"Sure.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}', '"tool_calls"', OPENAI_USAGE),
    sse: openaiFrames([
      openaiChunk('{"role":"assistant","content":"Sure."}'),
      openaiChunk('{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}'),
      openaiChunk('{}', '"tool_calls"'), openaiUsageChunk(OPENAI_USAGE),
    ]),
  });
  upstream.answer('up-an-v1-tool', {
    json: anthropicMessage('[{"type":"text","text":"Sure."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]', '"tool_use"', ANTHROPIC_USAGE),
    sse: anthropicStream([['{"type":"text","text":""}', ['{"type":"text_delta","text":"Sure."}']], ['{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}', ['{"type":"input_json_delta","partial_json":"{}"}']]],
      '"tool_use"', START_USAGE, '{"output_tokens":15}'),
  });
}

const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

/** The log entries of a caller, once there are `n` of them (the log is written after the response). */
async function entriesOf(callerId: string, n: number): Promise<RequestLogEntry[]> {
  for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 10))) {
    const entries = gw.store.getLog().filter((e) => e.callerId === callerId);
    if (entries.length >= n) return entries;
  }
  throw new Error(`fewer than ${n} log entries for ${callerId}`);
}

/** What billing made of a request: the same for an answer refused as JSON and as a stream. */
const billingOf = (e: RequestLogEntry) => ({ errorCode: e.errorCode, billingStatus: e.billingStatus, cost: e.cost, charge: e.charge, usage: e.usage });

/** A raw Messages stream through fetch (the frames as the client gets them). */
async function rawStream(key: string, body: Record<string, unknown>, path = '/v1/messages'): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST', headers: { 'x-api-key': key, authorization: `Bearer ${key}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  return { status: res.status, text: await res.text() };
}

const hello = [{ role: 'user' as const, content: 'Weather in Paris?' }];

describe('tool-call arguments that are not a JSON object, from an OpenAI-format upstream', () => {
  it.each(['oa-badargs', 'oa-notobject'])('%s: the stream ends with the error event, billed as the JSON answer is (not at all)', async (model) => {
    const { key, id } = addCaller(gw.store);
    const client = anthropic(key);
    const json = await client.messages.create({ model, max_tokens: 64, messages: hello, tools: [WEATHER] }).catch((e: unknown) => e);
    expect(json).toBeInstanceOf(Anthropic.InternalServerError);
    expect((json as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'api_error', message: 'The upstream sent an invalid response.' } });

    const streamed = await client.messages.stream({ model, max_tokens: 64, messages: hello, tools: [WEATHER] }).finalMessage().catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(Anthropic.APIError); // the error event, not the SDK failing on the input
    expect((streamed as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'api_error', message: 'The upstream sent an invalid response.' } });

    const raw = await rawStream(key, { model, max_tokens: 64, messages: hello, tools: [WEATHER] });
    const frames = parseFrames(raw.text);
    expect(frames.at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type: 'api_error', message: 'The upstream sent an invalid response.' } } });
    expect(frames.map((f) => f.event)).not.toContain('message_delta'); // no stop_reason "tool_use"

    const [asJson, asStream, asRaw] = await entriesOf(id, 3);
    expect(asJson).toMatchObject({ status: 500, stream: false, errorCode: 'api_error', billingStatus: 'not_billed', charge: 0, detail: expect.stringMatching(/tool call arguments that are not a JSON object/) });
    expect(asStream).toMatchObject({ status: 200, stream: true, detail: expect.stringMatching(/tool call arguments that are not a JSON object/) });
    expect(billingOf(asStream as RequestLogEntry)).toEqual(billingOf(asJson as RequestLogEntry));
    expect(billingOf(asRaw as RequestLogEntry)).toEqual(billingOf(asJson as RequestLogEntry));
    expect(gw.store.getAccount(id)).toMatchObject({ balance: 10_000_000, held: 0, carry: '0' });
  });

  it('on /v1/chat/completions: the stream ends with its error frame, which the openai SDK raises; not billed', async () => {
    const { key, id } = addCaller(gw.store);
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
    const seen: unknown[] = [];
    const raised = await (async () => {
      const stream = await openai(key).chat.completions.create({ model: 'oa-badargs', messages, tools, stream: true });
      for await (const chunk of stream) seen.push(chunk);
    })().catch((e: unknown) => e);
    expect(raised).toBeInstanceOf(OpenAI.APIError);
    expect(raised).toMatchObject({ type: 'server_error', code: 'server_error', message: expect.stringMatching(/The upstream sent an invalid response/) }); // OpenAI's terms
    const finishes = seen.map((c) => (c as { choices: Array<{ finish_reason: string | null }> }).choices[0]?.finish_reason).filter(Boolean);
    expect(finishes).toEqual([]); // never "tool_calls"
    const json = await openai(key).chat.completions.create({ model: 'oa-badargs', messages, tools }).catch((e: unknown) => e);
    expect(json).toMatchObject({ status: 500, type: 'server_error' }); // OpenAI's terms
    const [asStream, asJson] = await entriesOf(id, 2);
    expect(asStream).toMatchObject({ endpoint: 'chat_completions', status: 200, stream: true });
    expect(billingOf(asStream as RequestLogEntry)).toEqual(billingOf(asJson as RequestLogEntry));
    expect(asJson).toMatchObject({ errorCode: 'api_error', billingStatus: 'not_billed', charge: 0 });
  });
});

describe('an Anthropic tool_use whose input is not a JSON object, on the chat and Responses routes', () => {
  const INVALID = 'The upstream sent an invalid response.';
  const chatTools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } }];
  const responsesTools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }];

  it.each(['an-input-string', 'an-input-array'])('%s: an invalid answer, JSON and stream, never a completed call; not billed', async (model) => {
    const { key, id } = addCaller(gw.store);
    const json = await openai(key).responses.create({ model, input: 'Weather in Paris?', tools: responsesTools }).catch((e: unknown) => e);
    expect(json).toMatchObject({ status: 500, type: 'server_error', message: expect.stringContaining(INVALID) });
    const raw = await rawStream(key, { model, input: 'Weather in Paris?', tools: responsesTools }, '/v1/responses');
    const frames = parseFrames(raw.text);
    expect(responsesViolations(frames)).toEqual([]);
    expect(frames.at(-1)?.data).toMatchObject({ type: 'response.failed', response: { error: { code: 'server_error', message: INVALID } } });
    expect(frames.map((f) => f.event)).not.toContain('response.function_call_arguments.done');
    expect(frames.map((f) => f.event)).not.toContain('response.output_item.done');

    const chat = await openai(key).chat.completions.create({ model, messages: hello, tools: chatTools }).catch((e: unknown) => e);
    expect(chat).toMatchObject({ status: 500, type: 'server_error' });
    const seen: unknown[] = [];
    const chatStream = await (async () => {
      for await (const chunk of await openai(key).chat.completions.create({ model, messages: hello, tools: chatTools, stream: true })) seen.push(chunk);
    })().catch((e: unknown) => e);
    expect(chatStream).toBeInstanceOf(OpenAI.APIError);
    expect(chatStream).toMatchObject({ type: 'server_error', message: expect.stringContaining(INVALID) });
    expect(seen.map((c) => (c as { choices: Array<{ finish_reason: string | null }> }).choices[0]?.finish_reason).filter(Boolean)).toEqual([]); // never "tool_calls"

    const entries = await entriesOf(id, 4);
    for (const entry of entries) {
      expect(entry).toMatchObject({ errorCode: 'api_error', billingStatus: 'not_billed', charge: 0, cost: '0', detail: expect.stringMatching(/a tool call whose input is not a JSON object/) });
    }
    expect(entries.map((e) => [e.endpoint, e.stream])).toEqual([['responses', false], ['responses', true], ['chat_completions', false], ['chat_completions', true]]);
    expect(gw.store.getAccount(id)).toMatchObject({ balance: 10_000_000, held: 0, carry: '0' });
  });
});

describe('a plain-text (V1) model answers text only', () => {
  it.each(['oa-v1-reasoning', 'an-v1-thinking'])('%s: thinking is left out (JSON and stream, every route, indexes from 0), its tokens billed as confirmed', async (model) => {
    const { key, id } = addCaller(gw.store);
    const message = await anthropic(key).messages.create({ model, max_tokens: 64, messages: hello });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello there' }]);
    const streamed = await anthropic(key).messages.stream({ model, max_tokens: 64, messages: hello }).finalMessage();
    expect(streamed.content).toEqual([{ type: 'text', text: 'Hello there' }]);
    const raw = await rawStream(key, { model, max_tokens: 64, messages: hello });
    const frames = parseFrames(raw.text);
    expect(messagesViolations(frames)).toEqual([]);
    const indexes = frames.filter((f) => f.event?.startsWith('content_block')).map((f) => (f.data as { index: number }).index);
    expect(new Set(indexes)).toEqual(new Set([0]));
    expect(raw.text).not.toMatch(/"type":"(redacted_)?thinking|Let me/);

    const chat = await openai(key).chat.completions.create({ model, messages: hello });
    expect(chat.choices[0]?.message).toEqual({ role: 'assistant', content: 'Hello there', refusal: null });
    const chatRaw = await rawStream(key, { model, messages: hello }, '/v1/chat/completions');
    expect(chatViolations(parseFrames(chatRaw.text))).toEqual([]);
    expect(chatRaw.text).not.toMatch(/reasoning_content|Let me/);
    expect(chatRaw.text).toContain('"content":" there"');

    const response = await openai(key).responses.create({ model, input: 'Hi' });
    expect(response.output.map((item) => item.type)).toEqual(['message']);
    expect(response.output_text).toBe('Hello there');
    const streamedResponse = await openai(key).responses.stream({ model, input: 'Hi' }).finalResponse();
    expect(streamedResponse.output.map((item) => item.type)).toEqual(['message']);

    const usage = model.startsWith('oa') ? { inputTokens: 30, outputTokens: 12 } : { inputTokens: 25, outputTokens: 15 };
    const cost = String((usage.inputTokens * PRICING.input + usage.outputTokens * PRICING.output) / 1_000_000);
    for (const entry of await entriesOf(id, 7)) {
      expect(entry).toMatchObject({ status: 200, errorCode: null, billingStatus: 'billed', cost, usage: { ...usage, provenance: 'confirmed' } });
    }
  });

  it('an agent-ready model keeps its thinking, its content frames forwarded as the upstream wrote them', async () => {
    const { key } = addCaller(gw.store);
    const raw = await rawStream(key, { model: 'an-agent-thinking', max_tokens: 64, messages: hello });
    expect(raw.text).toContain('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think."}}\n\n');
    expect(raw.text).toContain('data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Hello"}}\n\n');
    const message = await anthropic(key).messages.create({ model: 'an-agent-thinking', max_tokens: 64, messages: hello });
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'redacted_thinking', 'text']);
  });

  it.each(['oa-v1-tool', 'an-v1-tool'])('%s: a tool call from an upstream offered no tools is an api_error, JSON and stream, both routes; not billed', async (model) => {
    const { key, id } = addCaller(gw.store);
    const json = await anthropic(key).messages.create({ model, max_tokens: 64, messages: hello }).catch((e: unknown) => e);
    expect(json).toBeInstanceOf(Anthropic.InternalServerError);
    const streamed = await anthropic(key).messages.stream({ model, max_tokens: 64, messages: hello }).finalMessage().catch((e: unknown) => e);
    expect((streamed as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'api_error', message: 'The upstream sent an invalid response.' } });
    const chat = await openai(key).chat.completions.create({ model, messages: hello }).catch((e: unknown) => e);
    expect(chat).toMatchObject({ status: 500, type: 'server_error' }); // OpenAI's terms
    const chatStream = await (async () => {
      for await (const _chunk of await openai(key).chat.completions.create({ model, messages: hello, stream: true })) { /* read it all */ }
    })().catch((e: unknown) => e);
    expect(chatStream).toBeInstanceOf(OpenAI.APIError);
    expect(chatStream).toMatchObject({ type: 'server_error' }); // OpenAI's terms
    for (const entry of await entriesOf(id, 4)) {
      expect(entry).toMatchObject({ errorCode: 'api_error', billingStatus: 'not_billed', charge: 0, cost: '0', detail: expect.stringMatching(/answered a plain-text model with a "tool_use" block/) });
    }
    expect(gw.store.getAccount(id)).toMatchObject({ balance: 10_000_000, held: 0, carry: '0' });
  });
});
