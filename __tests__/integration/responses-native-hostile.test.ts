/**
 * A hostile native Responses upstream on the pass-through (`/v1/responses`, an agent-ready model): usage figures no client
 * parses, a refusal whose `param` and `code` name the client's own field, a failure over the model's context, events out
 * of the item grammar, an event type with a line break, and events numbered by the upstream after the gateway wrote its
 * own. The upstream is scripted byte for byte (scripted-upstream.ts); clients are raw fetch checked by the grammar
 * (responses-grammar.ts) and the openai SDK.
 */
import OpenAI from 'openai';
import { openaiResponsesAdapter, type ModelEntry } from '../../lib';
import { SAFE_MESSAGES } from '../../lib/foundation/errors';
import { message, responseEvents, responseObject, responsesUsage } from '../helpers/fake-responses';
import { sleep, UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { responsesViolations } from '../helpers/responses-grammar';
import { responsesFrames, startScriptedUpstream, type ScriptedAnswer, type ScriptedUpstream } from '../helpers/scripted-upstream';
import { parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
const PRICING = { input: 1_000_000, output: 2_000_000, cacheRead: 100_000 };
const KEEP_ALIVE_MS = 100;
/** The usage every scripted answer carries; its `input_tokens` (1234) is what the hostile cases rewrite. */
const USAGE = responsesUsage({ input: 1_234, cached: 1_000, cacheWrite: 0, output: 40, reasoning: 0 });
const INVALID = 'The upstream sent an invalid response.';

let up: ScriptedUpstream;
let gw: RunningGateway;
let caller: { key: string; id: string };
beforeAll(async () => {
  up = await startScriptedUpstream();
  const upstream = openaiResponsesAdapter({ baseURL: up.url, apiKey: UPSTREAM_KEY });
  const models: ModelEntry[] = [{ id: 'gpt', capability: 'llm', upstream, upstreamModel: 'up-gpt', agentReady: true, pricing: PRICING }];
  gw = await startGateway({ models, keepAliveMs: KEEP_ALIVE_MS });
  caller = addCaller(gw.store);
});
afterAll(async () => {
  await gw.close();
  await up.close();
});

const answer = (a: ScriptedAnswer): void => up.answer('up-gpt', a);
const post = (body: Json): Promise<Response> =>
  fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt', store: false, ...body }) });
const sdk = (): OpenAI => new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

/** The upstream's whole response, and its stream, as JSON texts (each event's data). */
const RESPONSE = { ...responseObject('resp_up_1', 'up-gpt', 'completed', [message('Hello from upstream')], USAGE), store: false };
const EVENTS = responseEvents(RESPONSE).map((e) => JSON.stringify(e));
const opening = (): string[] => EVENTS.slice(0, 2);
/** The events of a stream read by fetch, checked by the grammar. */
async function streamOf(res: Response): Promise<{ text: string; events: Json[] }> {
  expect(res.status).toBe(200);
  const text = await res.text();
  const frames = parseFrames(text);
  expect(responsesViolations(frames)).toEqual([]);
  return { text, events: frames.map((f) => f.data as Json) };
}

/** Every number in a value, with its path. */
function numbersOf(value: unknown, path = 'usage'): Array<[string, unknown]> {
  if (typeof value !== 'object' || value === null) return [[path, value]];
  return Object.entries(value).flatMap(([k, v]) => numbersOf(v, `${path}.${k}`));
}

describe('usage a client cannot parse: the client gets figures it can (the bad one 0), billing gives 0 and a review', () => {
  it.each(['-100', '2.5', '"100"', '1e400'])('input_tokens %s, stream and JSON', async (figure) => {
    const hostile = (text: string): string => text.replace('"input_tokens":1234', `"input_tokens":${figure}`);
    answer({ sse: responsesFrames([...EVENTS.slice(0, -1), hostile(EVENTS.at(-1) as string)]), json: hostile(JSON.stringify(RESPONSE)) });
    const expected = { input_tokens: 0, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 40 };

    const streamed = await post({ input: 'Hi', stream: true });
    const { events } = await streamOf(streamed);
    const final = (events.at(-1) as { response: { usage: unknown } }).response;
    expect(final.usage).toEqual(expected);
    const json = await sdk().responses.create({ model: 'gpt', input: 'Hi', store: false });
    expect(json.usage).toEqual(expected);
    for (const usage of [final.usage, json.usage]) for (const [path, n] of numbersOf(usage)) expect([path, Number.isSafeInteger(n) && (n as number) >= 0]).toEqual([path, true]);

    for (const requestId of [streamed.headers.get('request-id') as string, `req_${json.id.slice(5)}`]) {
      expect(await logEntry(gw.store, requestId)).toMatchObject({ billingStatus: 'needs_review', charge: 0, detail: expect.stringContaining('implausible usage: inputTokens') });
    }
  });
});

describe("an upstream's refusal of the client's body keeps its param and code", () => {
  it.each([
    ['an unknown include value', { include: ['bogus.x'] }, "Invalid value: 'bogus.x'. Supported values are: 'reasoning.encrypted_content' and 'message.output_text.logprobs'.", 'include[0]'],
    ['an unknown tool type', { tools: [{ type: 'bogus_tool' }] }, "Invalid value: 'bogus_tool'. Supported values are: 'function', 'custom' and 'web_search'.", 'tools[0].type'],
  ])('%s: 400 with the upstream\'s param and code, JSON and stream, raw and through the SDK', async (_name, field, words, param) => {
    answer({ error: { status: 400, body: JSON.stringify({ error: { message: words, type: 'invalid_request_error', param, code: 'invalid_value' } }) } });
    for (const stream of [false, true]) {
      const res = await post({ input: 'Hi', stream, ...field });
      expect([stream, res.status, await res.json()]).toEqual([stream, 400, { error: { message: words, type: 'invalid_request_error', param, code: 'invalid_value' } }]);
    }
    const failure = await sdk().responses.create({ model: 'gpt', input: 'Hi', ...field } as never).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(failure).toMatchObject({ param, code: 'invalid_value' });
  });

  it('a param or code that is not a field path or a code (a URL, spaces) is left out', async () => {
    answer({ error: { status: 400, body: JSON.stringify({ error: { message: 'Bad input.', type: 'invalid_request_error', param: 'http://10.1.2.3:8080/x', code: 'see the logs' } }) } });
    const res = await post({ input: 'Hi' });
    expect(await res.json()).toEqual({ error: { message: 'Bad input.', type: 'invalid_request_error', param: null, code: null } });
  });
});

describe('a failure over the model\'s context keeps context_length_exceeded (Codex stops on it, as on the HTTP 400)', () => {
  const words = 'Your input exceeds the context window of this model (upstream words).';
  const failed = JSON.stringify({ type: 'response.failed', sequence_number: 2, response: { ...JSON.parse(EVENTS[0] as string).response, status: 'failed', error: { code: 'context_length_exceeded', message: words } } });
  const errorEvent = JSON.stringify({ type: 'error', sequence_number: 2, code: 'context_length_exceeded', message: words, param: null });

  it.each([['response.failed', failed], ['an error event', errorEvent]])('mid-stream, %s: response.failed with context_length_exceeded and the safe text', async (_name, last) => {
    answer({ sse: responsesFrames([...opening(), last]) });
    const { text, events } = await streamOf(await post({ input: 'Hi', stream: true }));
    expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'context_length_exceeded', message: SAFE_MESSAGES.invalid_request_error } } });
    expect(text).not.toContain('upstream words');
  });

  it('JSON, a failed response: 400 context_length_exceeded', async () => {
    answer({ json: JSON.stringify({ ...RESPONSE, status: 'failed', output: [], error: { code: 'context_length_exceeded', message: words } }) });
    const res = await post({ input: 'Hi' });
    expect([res.status, await res.json()]).toEqual([400, { error: { message: SAFE_MESSAGES.invalid_request_error, type: 'invalid_request_error', param: null, code: 'context_length_exceeded' } }]);
  });
});

describe('events out of the item grammar end the stream as an invalid answer: response.failed, not billed', () => {
  const delta = JSON.stringify({ type: 'response.output_text.delta', sequence_number: 2, item_id: 'msg_fake_1', output_index: 0, content_index: 0, delta: 'Hello', logprobs: [] });
  const done = JSON.stringify({ type: 'response.output_item.done', sequence_number: 2, output_index: 0, item: RESPONSE.output[0] });
  const second = EVENTS.find((e) => e.includes('"response.output_text.delta"')) as string;
  it.each([
    ['a delta before its item was added', [...opening(), delta, ...EVENTS.slice(2)], 'response.output_text.delta for output_index 0, which was never added'],
    ['an item done that was never added', [...opening(), done, EVENTS.at(-1) as string], 'response.output_item.done for output_index 0, which was never added'],
    ['an item added twice', [...EVENTS.slice(0, 3), EVENTS[2] as string, ...EVENTS.slice(3)], 'output_item.added at output_index 0, where 1 was next'],
    ['a delta after its item was done', [...EVENTS.slice(0, -1), second, EVENTS.at(-1) as string], 'response.output_text.delta after output_item.done of item 0'],
  ])('%s', async (_name, sent, why) => {
    answer({ sse: responsesFrames(sent) });
    const res = await post({ input: 'Hi', stream: true });
    const { events } = await streamOf(res);
    expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { error: { code: 'server_error', message: INVALID } } });
    const entry = await logEntry(gw.store, res.headers.get('request-id') as string);
    expect(entry).toMatchObject({ billingStatus: 'not_billed', charge: 0, detail: expect.stringContaining(why) });
  });
});

describe('an upstream event type with a line break never becomes a line of the client\'s stream', () => {
  it.each([['\\n', '\n'], ['\\r', '\r'], ['\\r\\n', '\r\n']])('%s: the stream ends with response.failed (an invalid answer)', async (_name, brk) => {
    const injected = JSON.stringify({ type: `response.in_progress${brk}event: response.completed${brk}data: {}`, sequence_number: 2, response: JSON.parse(EVENTS[0] as string).response });
    answer({ sse: responsesFrames([...opening(), injected, ...EVENTS.slice(2)]) });
    const res = await post({ input: 'Hi', stream: true });
    const { text, events } = await streamOf(res);
    expect(text).not.toMatch(/\r|^data: \{\}$/m);
    expect(text.match(/^event: response\.completed$/m)).toBeNull();
    expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { error: { code: 'server_error', message: INVALID } } });
    expect(await logEntry(gw.store, res.headers.get('request-id') as string)).toMatchObject({ billingStatus: 'not_billed', detail: expect.stringContaining('an event type an SSE line cannot carry') });
  });
});

it('events the upstream numbered itself are renumbered after the keep-alive the gateway wrote before them', async () => {
  answer({ sse: responsesFrames(EVENTS), before: () => sleep(KEEP_ALIVE_MS * 3) });
  const { events } = await streamOf(await post({ input: 'Hi', stream: true }));
  expect(events.length).toBeGreaterThan(EVENTS.length); // the gateway's own response.created and in_progress came first
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  expect((events.at(-1) as { response: Json }).response).toMatchObject({ status: 'completed', usage: USAGE });
});
