/**
 * A native Responses upstream (openaiResponsesAdapter) behind the Responses route: the client's body goes up as sent but
 * the model, every upstream event comes back in order under the gateway's response id (renumbered 0, 1, 2…), the usage
 * is billed on the figures table (cached input as cache reads), OpenAI's encrypted reasoning passes untouched and the
 * gateway's own (another family's) never goes up. The openai SDK is the client; the fake speaks the Responses wire.
 */
import OpenAI from 'openai';
import { costOf } from '../../lib/billing/pricing';
import { openaiResponsesAdapter, type MessagesAdapter, type MessagesRequest, type ModelEntry, type NativeResponsesFace, type UpstreamCallContext } from '../../lib';
import { functionCall, message, reasoning, responsesUsage, startResponsesFake, type ResponsesFake, type ResponsesTurn } from '../helpers/fake-responses';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { responsesViolations } from '../helpers/responses-grammar';
import { parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
const PRICING = { input: 3_000, output: 15_000, cacheRead: 300, cacheWrite5m: 3_750 };
const USAGE = responsesUsage({ input: 1_200, cached: 1_000, cacheWrite: 150, output: 40, reasoning: 12 });
const answer = (): ResponsesTurn => ({
  output: [{ ...reasoning(['Thinking it over'], 'gAAAAB-openai-blob'), status: 'completed' }, message('Hello from upstream'), functionCall('lookup', { q: 'weather in Paris' })],
  usage: USAGE,
});

let fake: ResponsesFake;
let gw: RunningGateway;
let key: string;
/** What each wrapper's stream() and pass-through face were asked for. */
const calls = { spreadStream: 0, reboundStream: 0, reboundFace: 0 };
beforeAll(async () => {
  fake = await startResponsesFake(answer);
  const upstream = openaiResponsesAdapter({ baseURL: `${fake.url}/v1`, apiKey: UPSTREAM_KEY });
  const face = upstream.responses as NativeResponsesFace;
  // A wrapper that changes stream() (the face it spread is bound to the adapter): served translated, through its stream().
  const spread: MessagesAdapter = { ...upstream, stream: (request, ctx) => (calls.spreadStream++, upstream.stream(request, ctx)) };
  // A wrapper that wraps the face too, bound to itself: passed through, by that face.
  const wrapper = { ...upstream, stream: (request: MessagesRequest, ctx: UpstreamCallContext) => (calls.reboundStream++, upstream.stream(request, ctx)) };
  const rebound: MessagesAdapter = Object.assign(wrapper, { responses: { ...face, of: wrapper, stream: (call: Parameters<typeof face.stream>[0], ctx: UpstreamCallContext) => (calls.reboundFace++, face.stream(call, ctx)) } });
  const models: ModelEntry[] = [{ id: 'gpt', capability: 'llm', upstream, upstreamModel: 'gpt-5.5', agentReady: true, pricing: PRICING },
    { id: 'gpt-spread', capability: 'llm', upstream: spread, upstreamModel: 'gpt-5.5', agentReady: true, pricing: PRICING },
    { id: 'gpt-rebound', capability: 'llm', upstream: rebound, upstreamModel: 'gpt-5.5', agentReady: true, pricing: PRICING }];
  gw = await startGateway({ models });
  key = addCaller(gw.store).key;
});
afterAll(async () => {
  await gw.close();
  await fake.close();
});

const post = (body: Json): Promise<Response> =>
  fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

const BODY: Json = {
  model: 'gpt', instructions: 'Be brief.', stream: true, store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'high', summary: 'auto' },
  tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }],
  tool_choice: 'auto', parallel_tool_calls: true, prompt_cache_key: 'thread-1', text: { verbosity: 'low' }, client_metadata: { any: 'thing' },
  input: [
    { type: 'message', role: 'developer', content: 'You are a test.' },
    { type: 'reasoning', id: 'rs_prev', summary: [], encrypted_content: 'gAAAAB-earlier-openai-blob', content: null },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
  ],
};

it('a wrapper that changes stream() is served translated, through it; one that binds a face of its own is passed through by that face', async () => {
  const spread = await post({ ...BODY, model: 'gpt-spread' });
  expect(responsesViolations(parseFrames(await spread.text()))).toEqual([]);
  expect(calls).toEqual({ spreadStream: 1, reboundStream: 0, reboundFace: 0 });
  expect(fake.answers.at(-1)?.request.body).not.toEqual({ ...BODY, model: 'gpt-5.5' }); // the Messages request, translated
  const rebound = await post({ ...BODY, model: 'gpt-rebound' });
  expect(responsesViolations(parseFrames(await rebound.text()))).toEqual([]);
  expect(calls).toEqual({ spreadStream: 1, reboundStream: 0, reboundFace: 1 });
  expect(fake.answers.at(-1)?.request.body).toEqual({ ...BODY, model: 'gpt-5.5' }); // as sent but the model
});

it('streams: the body goes up as sent but the model; every event comes back in order under one gateway id, billed on the figures', async () => {
  const res = await post(BODY);
  expect(res.status).toBe(200);
  const frames = parseFrames(await res.text());
  expect(responsesViolations(frames)).toEqual([]);
  const sent = fake.answers.at(-1);
  expect(sent?.request.body).toEqual({ ...BODY, model: 'gpt-5.5' });
  expect(sent?.request.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
  const upstream = sent?.events ?? [];
  const events = frames.map((f) => f.data as Json);
  expect(events.map((e) => e.type)).toEqual(upstream.map((e) => e.type));
  expect(events.map((e) => e.sequence_number)).toEqual(upstream.map((_, i) => i));
  const requestId = res.headers.get('request-id') as string;
  const ids = new Set(events.filter((e) => e.response).map((e) => (e.response as Json).id));
  expect([...ids]).toEqual([`resp_${requestId.slice(4)}`]);
  const final = events.at(-1)?.response as Json;
  expect(final).toMatchObject({ model: 'gpt', status: 'completed', usage: USAGE, store: false, previous_response_id: null });
  expect(final.output).toEqual(upstream.at(-1) && (upstream.at(-1) as { response: Json }).response.output);
  // Untouched: the item events are the upstream's, byte for byte but their sequence number.
  const strip = ({ sequence_number: _s, response: _r, ...rest }: Json): Json => rest;
  expect(events.map(strip)).toEqual(upstream.map((e) => strip(e as unknown as Json)));
  const entry = await logEntry(gw.store, requestId);
  expect(entry.usage).toMatchObject({ inputTokens: 50, cacheReadInputTokens: 1_000, cacheWrite5mInputTokens: 150, outputTokens: 40, provenance: 'confirmed' });
  expect(entry.cost).toBe(costOf(entry.usage as NonNullable<typeof entry.usage>, PRICING, 'openai'));
  expect(entry.billingStatus).toBe('billed');
});

it('answers JSON through the openai SDK: the upstream response under the gateway id and public model, its usage as sent', async () => {
  const sdk = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const response = await sdk.responses.create({ model: 'gpt', input: 'Weather?', store: false });
  const upstream = fake.answers.at(-1)?.response as unknown as Json;
  expect(fake.answers.at(-1)?.request.body).toEqual({ model: 'gpt-5.5', input: 'Weather?', store: false });
  expect(response.id).toMatch(/^resp_/);
  expect(response.id).not.toBe(upstream.id);
  expect(response).toMatchObject({ model: 'gpt', output: upstream.output, usage: USAGE, status: 'completed' });
  expect(response.output_text).toBe('Hello from upstream');
});

it('the openai SDK stream reads it whole: reasoning, text and a function call with fragmented arguments', async () => {
  const sdk = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const stream = sdk.responses.stream({ model: 'gpt', input: 'Weather?', store: false });
  const args: string[] = [];
  stream.on('response.function_call_arguments.delta', (e) => args.push(e.delta));
  const final = await stream.finalResponse();
  expect(args.length).toBeGreaterThan(1);
  expect(final.output.map((i) => i.type)).toEqual(['reasoning', 'message', 'function_call']);
  expect(final.output[2]).toMatchObject({ type: 'function_call', arguments: JSON.stringify({ q: 'weather in Paris' }) });
});

it('never sends the gateway\'s own reasoning (another upstream family\'s) up, and says so in the log line', async () => {
  const res = await post({
    model: 'gpt', store: false,
    input: [
      { type: 'message', role: 'user', content: 'Hi' },
      { type: 'reasoning', id: 'rs_gw', summary: [], encrypted_content: `mgw.v1.${Buffer.from(JSON.stringify({ type: 'thinking', thinking: 'x', signature: 'sig' })).toString('base64url')}` },
      { type: 'reasoning', id: 'rs_oa', summary: [], encrypted_content: 'gAAAAB-openai' },
      { type: 'message', role: 'user', content: 'Again' },
    ],
  });
  expect(res.status).toBe(200);
  const sent = fake.answers.at(-1)?.request.body?.input as Json[];
  expect(sent.map((i) => i.id ?? i.content)).toEqual(['Hi', 'rs_oa', 'Again']);
  expect(sent[1]?.encrypted_content).toBe('gAAAAB-openai');
  const entry = await logEntry(gw.store, res.headers.get('request-id') as string);
  expect(entry.detail).toContain('dropped input.1 (reasoning another upstream family made)');
});

it('an upstream error before the stream is the gateway\'s error, not the upstream\'s words; nothing is billed', async () => {
  fake.script = () => ({ httpStatus: 500, error: { message: 'upstream secret trace', type: 'server_error', code: null, param: null } });
  try {
    const res = await post({ model: 'gpt', input: 'Hi', stream: true });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('secret trace');
    expect(JSON.parse(text)).toMatchObject({ error: { type: 'server_error' } });
    const entry = await logEntry(gw.store, res.headers.get('request-id') as string);
    expect(entry.charge).toBe(0);
  } finally {
    fake.script = answer;
  }
});

it('a stopped-short answer passes as response.incomplete, billed on its usage', async () => {
  fake.script = () => ({ output: [message('Cut')], usage: USAGE, status: 'incomplete' });
  try {
    const res = await post({ model: 'gpt', input: 'Hi', stream: true, max_output_tokens: 64 });
    const frames = parseFrames(await res.text());
    expect(responsesViolations(frames)).toEqual([]);
    expect((frames.at(-1)?.data as Json).type).toBe('response.incomplete');
    expect(fake.answers.at(-1)?.request.body?.max_output_tokens).toBe(64);
    const entry = await logEntry(gw.store, res.headers.get('request-id') as string);
    expect(entry.billingStatus).toBe('billed');
  } finally {
    fake.script = answer;
  }
});
