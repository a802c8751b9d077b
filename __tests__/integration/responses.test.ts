/**
 * POST /v1/responses through the openai SDK to both upstream formats: text and a two-turn
 * function-calling loop, JSON (`responses.create`) and stream (`responses.stream().finalResponse()`),
 * every stream checked by the Responses grammar, every call billed exactly on the upstream's usage;
 * the lifecycle ends (incomplete, failed), usage as Responses clients read it, and input_tokens.
 */
import OpenAI from 'openai';
import { anthropicAdapter, openaiChatAdapter, type ModelEntry, type Pricing } from '../../lib';
import { startScripted, UNIT_PRICING, type ScriptedTurn, type ScriptedUpstream } from '../helpers/fake-scripted';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { grammarCheckedFetch, responsesViolations } from '../helpers/responses-grammar';
import { parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
const PRICING: Pricing = UNIT_PRICING;
const SIGNATURE = Buffer.from(Array.from({ length: 180 }, (_, i) => (i * 37 + 11) % 256)).toString('base64');

const CALL: ScriptedTurn = {
  thinking: { text: ['Weather needs', ' a tool.'], signature: SIGNATURE },
  calls: [{ id: 'toolu_01Weather', name: 'get_weather', input: { city: 'Paris' } }],
  usage: { input: 7, output: 40, cacheRead: 1_500, cache5m: 1_100, cache1h: 200 },
};
const ANSWER: ScriptedTurn = { text: ['Paris is', ' 21 °C.'], usage: { input: 5, output: 12, cacheRead: 2_800 } };
const HELLO: ScriptedTurn = { text: ['Hi', ' there'], usage: { input: 9, output: 3, cacheRead: 20, cache5m: 40 } };

/** Whether the request answers a tool call: its last turn carries a tool result (Anthropic) or is a tool message (chat). */
const answersTool = (body: Json): boolean => {
  const last = (body.messages as Json[]).at(-1);
  return last?.role === 'tool' || (Array.isArray(last?.content) && (last.content as Json[]).some((b) => b.type === 'tool_result'));
};
const weather = (body: Json): ScriptedTurn => (answersTool(body) ? ANSWER : (body.tools as unknown[] | undefined)?.length ? CALL : HELLO);

let claude: ScriptedUpstream;
let gpt: ScriptedUpstream;
let gw: RunningGateway;
let key: string;
let callerId: string;

beforeAll(async () => {
  [claude, gpt] = await Promise.all([startScripted('anthropic', weather), startScripted('openai', weather)]);
  const models: ModelEntry[] = [
    { id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: claude.url }), agentReady: true, autoCache: false, pricing: PRICING }, // translation, not caching (auto-cache.test.ts)
    { id: 'gpt', capability: 'llm', upstream: openaiChatAdapter({ baseURL: gpt.url }), agentReady: true, pricing: PRICING },
  ];
  gw = await startGateway({ models });
  ({ key, id: callerId } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([claude.close(), gpt.close()]);
});

/** Every stream the SDK reads is kept, and checked against the grammar after each test. */
const recording = grammarCheckedFetch();
const client = (): OpenAI => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, fetch: recording });
const getWeather = { type: 'function' as const, name: 'get_weather', description: 'The weather in a city', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

/** The exact cost of a turn at PRICING, per the upstream's format (OpenAI-format upstreams have no cache writes). */
const costOf = (t: ScriptedTurn, format: 'anthropic' | 'openai'): number => {
  const u = t.usage;
  const writes = format === 'anthropic' ? (u.cache5m ?? 0) * 1.25 + (u.cache1h ?? 0) * 2 : 0;
  return u.input + u.output * 2 + (u.cacheRead ?? 0) * 0.1 + writes;
};
/** The Responses usage of a turn. */
const usageOf = (t: ScriptedTurn, format: 'anthropic' | 'openai'): Json => {
  const u = t.usage;
  const writes = format === 'anthropic' ? (u.cache5m ?? 0) + (u.cache1h ?? 0) : 0;
  const input = u.input + (u.cacheRead ?? 0) + writes;
  return { input_tokens: input, input_tokens_details: { cached_tokens: u.cacheRead ?? 0, cache_write_tokens: writes }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + u.output };
};

/** The request's log line, billed exactly the turn's cost. */
async function expectBilled(requestId: string | null, turn: ScriptedTurn, format: 'anthropic' | 'openai'): Promise<void> {
  const entry = await logEntry(gw.store, String(requestId));
  const u = turn.usage;
  expect(entry).toMatchObject({
    endpoint: 'responses', status: 200, billingStatus: 'billed', cost: String(costOf(turn, format)), callerId,
    usage: { inputTokens: u.input, outputTokens: u.output, cacheReadInputTokens: u.cacheRead ?? 0, cacheWrite5mInputTokens: format === 'anthropic' ? u.cache5m ?? 0 : 0, cacheWrite1hInputTokens: format === 'anthropic' ? u.cache1h ?? 0 : 0, provenance: 'confirmed' },
  });
}

/** Posts a stream and returns its frames, checked against the grammar. */
async function rawStream(body: Json): Promise<{ frames: ReturnType<typeof parseFrames>; requestId: string | null }> {
  const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames = parseFrames(await res.text());
  expect(responsesViolations(frames)).toEqual([]);
  return { frames, requestId: res.headers.get('request-id') };
}

const FORMATS = [['claude', 'anthropic'], ['gpt', 'openai']] as const;

describe.each(FORMATS)('%s (%s-format upstream)', (model, format) => {
  it('responses.create: a text answer, usage with the cached part inside input_tokens, billed exactly', async () => {
    const { data: response, response: raw } = await client().responses.create({ model, input: 'Hello', client_metadata: { originator: 'test' } } as OpenAI.Responses.ResponseCreateParamsNonStreaming).withResponse();
    expect(response).toMatchObject({ object: 'response', status: 'completed', model, output_text: 'Hi there', store: false, error: null, incomplete_details: null });
    expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(response.output).toEqual([{ type: 'message', id: expect.stringMatching(/^msg_/), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi there', annotations: [], logprobs: [] }] }]);
    expect(response.usage).toEqual(usageOf(HELLO, format));
    await expectBilled(raw.headers.get('request-id'), HELLO, format);
  });

  it('responses.stream: the grammar holds, finalResponse() is the whole answer, one id from created to completed', async () => {
    const { frames, requestId } = await rawStream({ model, input: [{ role: 'user', content: 'Hello' }] });
    const ids = new Set(frames.filter((f) => (f.data as Json).response).map((f) => ((f.data as Json).response as Json).id));
    expect(ids.size).toBe(1);
    expect(String([...ids][0])).toBe(`resp_${String(requestId).slice(4)}`);
    const completed = (frames.at(-1)?.data as Json).response as Json;
    expect(completed).toMatchObject({ status: 'completed', usage: usageOf(HELLO, format) });
    await expectBilled(requestId, HELLO, format);
    const final = await client().responses.stream({ model, input: 'Hello' }).finalResponse();
    expect(final).toMatchObject({ status: 'completed', output_text: 'Hi there', usage: usageOf(HELLO, format) });
  });

  it.each([false, true])('function calling: a call, then its output sent back, answers (stream: %s); both calls billed exactly', async (stream) => {
    const upstream = model === 'claude' ? claude : gpt;
    const before = upstream.calls().length;
    const input: OpenAI.Responses.ResponseInput = [{ role: 'developer', content: 'Answer briefly.' }, { role: 'user', content: 'Weather in Paris?' }];
    const params = { model, tools: [getWeather], include: ['reasoning.encrypted_content' as const], reasoning: { effort: 'low' as const, summary: 'auto' as const } };
    const first = stream ? await client().responses.stream({ ...params, input }).finalResponse() : await client().responses.create({ ...params, input });
    const calls = first.output.filter((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === 'function_call');
    // (finalResponse() adds the SDK's own `parsed_arguments`.)
    expect(calls).toEqual([expect.objectContaining({ type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'toolu_01Weather', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' })]);
    expect(first.status).toBe('completed');
    expect(first.usage).toEqual(usageOf(CALL, format));
    const reasoning = first.output.find((i) => i.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning).toMatchObject({ id: expect.stringMatching(/^rs_/), summary: [{ type: 'summary_text', text: 'Weather needs a tool.' }], encrypted_content: expect.stringMatching(/^mgw\.v2\./) });
    expect(first.output.findIndex((i) => i.type === 'reasoning')).toBeLessThan(first.output.findIndex((i) => i.type === 'function_call'));
    // The client replays everything and adds the output, as Codex does.
    const second = await client().responses.create({ ...params, input: [...input, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: 'toolu_01Weather', output: '21 °C, sunny' }] });
    expect(second).toMatchObject({ status: 'completed', output_text: 'Paris is 21 °C.', usage: usageOf(ANSWER, format) });
    const [sentFirst, sentSecond] = upstream.calls().slice(before).map((r) => r.body as Json);
    if (format === 'anthropic') {
      expect(sentFirst).toMatchObject({ system: 'Answer briefly.', thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 2048 + 4096, tools: [{ name: 'get_weather', description: 'The weather in a city', input_schema: getWeather.parameters }] });
      expect(sentFirst).not.toHaveProperty('tool_choice'); // none asked for
      expect(sentFirst?.tools).toEqual([{ name: 'get_weather', description: 'The weather in a city', input_schema: getWeather.parameters }]); // strict: false is the default, not sent
      expect((sentSecond?.messages as Json[]).slice(1)).toEqual([
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Weather needs a tool.', signature: SIGNATURE }, { type: 'tool_use', id: 'toolu_01Weather', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01Weather', content: '21 °C, sunny' }] },
      ]);
      expect(upstream.calls().at(-1)?.text).toContain(`"signature":"${SIGNATURE}"`);
    } else {
      expect(sentFirst).toMatchObject({ max_tokens: 4096 }); // no thinking there, so the effort adds no budget
      expect((sentSecond?.messages as Json[]).slice(1)).toEqual([
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_01Weather', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }], reasoning_content: 'Weather needs a tool.' },
        { role: 'tool', tool_call_id: 'toolu_01Weather', content: '21 °C, sunny' },
      ]);
    }
    const log = gw.store.getLog().filter((e) => e.endpoint === 'responses').slice(-2);
    expect(log.map((e) => [e.cost, e.billingStatus])).toEqual([[String(costOf(CALL, format)), 'billed'], [String(costOf(ANSWER, format)), 'billed']]);
  });

  it('an answer cut by max_output_tokens is incomplete: response.incomplete on a stream, status incomplete in JSON', async () => {
    const upstream = model === 'claude' ? claude : gpt;
    const script = upstream.script;
    upstream.script = () => ({ text: ['Hi', ' the'], stop: 'max_tokens', usage: { input: 3, output: 2 } });
    try {
      const { frames } = await rawStream({ model, input: 'Hello', max_output_tokens: 2 });
      const last = frames.at(-1)?.data as Json;
      expect(last).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } });
      expect(((last.response as Json).output as Json[])[0]).toMatchObject({ type: 'message', status: 'incomplete' });
      const json = await client().responses.create({ model, input: 'Hello', max_output_tokens: 2 });
      expect(json).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output_text: 'Hi the' });
      expect(upstream.calls().at(-1)?.body).toMatchObject(format === 'anthropic' ? { max_tokens: 2 } : { max_tokens: 2 });
    } finally {
      upstream.script = script;
    }
  });

  it('an upstream failure mid-stream ends it with response.failed: a standard code, the safe text, no upstream words', async () => {
    const upstream = model === 'claude' ? claude : gpt;
    const script = upstream.script;
    upstream.script = () => ({ ...HELLO, failMidStream: true });
    try {
      const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, input: 'Hello', stream: true }) });
      const text = await res.text();
      const frames = parseFrames(text);
      expect(responsesViolations(frames)).toEqual([]);
      expect(frames.at(-1)?.data).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: expect.any(String) } } });
      expect(text).not.toContain('upstream words');
      expect(await logEntry(gw.store, String(res.headers.get('request-id')))).toMatchObject({ errorCode: expect.stringMatching(/overloaded_error|api_error/), billingStatus: 'needs_review' });
      expect(await client().responses.stream({ model, input: 'Hello' }).finalResponse()).toMatchObject({ status: 'failed', error: { code: 'server_error' } });
    } finally {
      upstream.script = script;
    }
  });

  it('input_tokens: counted like count_tokens, never billed', async () => {
    const before = gw.store.getLog().filter((e) => e.callerId === callerId && e.charge > 0).length;
    const res = await fetch(`${gw.url}/v1/responses/input_tokens`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, input: 'Hello', tools: [getWeather] }) });
    expect(res.status).toBe(200);
    const body = await res.json() as Json;
    expect(body).toEqual({ object: 'response.input_tokens', input_tokens: format === 'anthropic' ? 4242 : expect.any(Number) });
    expect(res.headers.get('x-token-count-source')).toBe(format === 'anthropic' ? 'upstream' : 'estimate');
    expect(await logEntry(gw.store, String(res.headers.get('request-id')))).toMatchObject({ endpoint: 'responses_input_tokens', charge: 0, billingStatus: 'not_billed' });
    expect(gw.store.getLog().filter((e) => e.callerId === callerId && e.charge > 0).length).toBe(before);
    if (format === 'anthropic') {
      const sent = claude.requests.at(-1);
      expect(sent?.path).toBe('/v1/messages/count_tokens');
      expect(Object.keys(sent?.body ?? {}).sort()).toEqual(['messages', 'model', 'tools']);
    }
  });
});

it('the SDK counts input tokens too (responses.inputTokens.count)', async () => {
  expect(await client().responses.inputTokens.count({ model: 'claude', input: 'Hello' })).toEqual({ object: 'response.input_tokens', input_tokens: 4242 });
});
