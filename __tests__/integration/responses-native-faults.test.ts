/**
 * A native Responses upstream failing mid-stream on the pass-through path: it sends the first events, then `response.failed`
 * (with or without usage) or drops the connection. The client (a raw SSE read checked by the grammar, the openai SDK's
 * `responses.stream()`) gets what the upstream sent so far, then the gateway's own `response.failed`: a standard code, the
 * safe text, never the upstream's words (those go to the log). Billed as README "Billing" says for a stream that ended
 * early, as upstream-faults.test.ts asserts on the translated path: the confirmed figures only, `needs_review`.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { costOf } from '../../lib/billing/pricing';
import { openaiResponsesAdapter, type ModelEntry } from '../../lib';
import { SAFE_MESSAGES } from '../../lib/foundation/errors';
import type { ResponseUsage } from 'openai/resources/responses/responses';
import { message, responsesUsage, startResponsesFake, UPSTREAM_WORDS, type ResponsesFake, type StreamFault } from '../helpers/fake-responses';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { responsesViolations } from '../helpers/responses-grammar';
import { parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
/** One minor unit per fresh input token, 0.1 per cache read, 1.25 per cache write, 2 per output token. */
const PRICING = { input: 1_000_000, output: 2_000_000, cacheRead: 100_000, cacheWrite5m: 1_250_000 };
const USAGE = responsesUsage({ input: 1_200, cached: 1_000, cacheWrite: 160, output: 40, reasoning: 0 });
/** USAGE at PRICING, worked by hand: 40 fresh input + 1,000 × 0.1 + 160 × 1.25 + 40 × 2. */
const USAGE_CHARGE = 40 + 100 + 200 + 80;
/** created, in_progress, output_item.added, content_part.added and the first text delta: the client has seen text. */
const AFTER = 5;

let fake: ResponsesFake;
let gw: RunningGateway;
beforeAll(async () => {
  fake = await startResponsesFake(() => ({ output: [], usage: null }));
  const upstream = openaiResponsesAdapter({ baseURL: `${fake.url}/v1`, apiKey: UPSTREAM_KEY });
  const models: ModelEntry[] = [{ id: 'gpt', capability: 'llm', upstream, upstreamModel: 'gpt-5.5', agentReady: true, pricing: PRICING }];
  gw = await startGateway({ models });
});
afterAll(async () => {
  await gw.close();
  await fake.close();
});

/** Each fault: the usage its turn carries, the safe text the client gets, what the log's detail says, the charge. */
const CASES: Array<{ name: string; fault: StreamFault; usage: ResponseUsage | null; text: string; why: string; charge: number }> = [
  { name: 'response.failed without usage', fault: { after: AFTER, then: 'response.failed' }, usage: null, text: SAFE_MESSAGES.api_error, why: UPSTREAM_WORDS, charge: 0 },
  // The failed response's usage is the upstream's last word on it: its figures are confirmed.
  { name: 'response.failed carrying usage', fault: { after: AFTER, then: 'response.failed' }, usage: USAGE, text: SAFE_MESSAGES.api_error, why: UPSTREAM_WORDS, charge: USAGE_CHARGE },
  // No usage ever went out (the fake's would have come with response.completed).
  { name: 'a dropped connection', fault: { after: AFTER, then: 'drop' }, usage: USAGE, text: 'The upstream connection failed.', why: 'upstream openai-responses: Premature close', charge: 0 },
];

describe.each(CASES)('the upstream ends with $name after its first events', ({ fault, usage, text: safeText, why, charge }) => {
  beforeEach(() => {
    fake.script = () => ({ output: [message('Hello from upstream')], usage, fault });
  });

  it('raw SSE: the upstream\'s events, then the gateway\'s response.failed (standard code, safe text); the log has the why; billed the confirmed figures, needs_review', async () => {
    const caller = addCaller(gw.store, { balance: 100_000 });
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST', headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt', input: 'Hi', stream: true, store: false }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const frames = parseFrames(text);
    expect(responsesViolations(frames)).toEqual([]);
    const events = frames.map((f) => f.data as Json);
    const upstream = (fake.answers.at(-1)?.events ?? []).slice(0, AFTER);
    expect(events.slice(0, -1).map((e) => e.type)).toEqual(upstream.map((e) => e.type));
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const requestId = res.headers.get('request-id') as string;
    expect(events.at(-1)).toMatchObject({
      type: 'response.failed', response: { id: `resp_${requestId.slice(4)}`, model: 'gpt', status: 'failed', error: { code: 'server_error', message: safeText } },
    });
    expect(text).not.toContain(UPSTREAM_WORDS);
    expect(text).not.toContain('7f3a');
    const entry = await logEntry(gw.store, requestId);
    expect(entry).toMatchObject({ status: 200, errorCode: 'api_error', billingStatus: 'needs_review', charge });
    expect(entry.detail).toContain(why);
    if (charge > 0) {
      expect(entry.usage).toMatchObject({ provenance: 'partial', inputTokens: 40, cacheReadInputTokens: 1_000, cacheWrite5mInputTokens: 160, outputTokens: 40 });
      expect(entry.cost).toBe(costOf(entry.usage as NonNullable<typeof entry.usage>, PRICING, 'openai'));
    } else {
      expect(entry.usage?.provenance).toBe('none');
    }
    expect(gw.store.getBalance(caller.id)).toBe(100_000 - charge);
    expect(gw.store.held(caller.id)).toBe(0);
  });

  it('the openai SDK\'s responses.stream(): the text so far, then a failed response with the standard code and the safe text', async () => {
    const caller = addCaller(gw.store, { balance: 100_000 });
    const sdk = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const stream = sdk.responses.stream({ model: 'gpt', input: 'Hi', store: false });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas).toEqual(['Hello ']);
    expect(final).toMatchObject({ status: 'failed', error: { code: 'server_error', message: safeText } });
    expect(JSON.stringify(final)).not.toContain(UPSTREAM_WORDS);
    expect(gw.store.getBalance(caller.id)).toBe(100_000 - charge);
  });

  it('translated, on the Messages route (the Anthropic SDK): the text so far, then an error event; billed by the same rule', async () => {
    const caller = addCaller(gw.store, { balance: 100_000 });
    const sdk = new Anthropic({ apiKey: caller.key, baseURL: gw.url, maxRetries: 0 });
    const stream = sdk.messages.stream({ model: 'gpt', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    const deltas: string[] = [];
    stream.on('text', (t) => deltas.push(t));
    const failure = await stream.finalMessage().then(() => undefined, (err: unknown) => err);
    expect(deltas).toEqual(['Hello ']);
    expect(String(failure)).not.toContain(UPSTREAM_WORDS);
    expect(failure).toMatchObject({ error: { type: 'error', error: { type: 'api_error' } } });
    await new Promise((r) => setTimeout(r, 50)); // the settlement follows the stream's end
    expect(gw.store.getBalance(caller.id)).toBe(100_000 - charge);
    expect(gw.store.held(caller.id)).toBe(0);
  });
});
