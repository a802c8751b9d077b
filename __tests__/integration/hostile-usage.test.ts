/**
 * Usage figures no real request has, written by a hostile upstream as JSON allows: `1e400` (which
 * JSON.parse reads as Infinity), `12.5`, `-5`. Each is what any implausible figure is: logged as
 * observed (the detail tells it as it came; the usage field holds it bounded to what a bigint
 * holds), `needs_review`, charged 0. Through real HTTP, both upstream formats, JSON and stream, on
 * MemoryStore and PostgresStore (whose columns are bigint).
 */
import { randomBytes } from 'node:crypto';
import { anthropicAdapter, createMetrics, openaiChatAdapter, type ModelEntry, type RequestLogEntry } from '../../lib';
import { PRICING, postMessages, startGateway, type RunningGateway } from '../helpers/gateway';
import {
  anthropicMessage, anthropicStream, openaiChunk, openaiCompletion, openaiFrames, openaiUsageChunk, startScriptedUpstream, type ScriptedUpstream,
} from '../helpers/scripted-upstream';
import { BOTH_STORES, type MadeStore } from '../helpers/services';

/** One hostile figure: the upstream format, the usage it writes (with `figure` in one field), what the log must show. */
interface Case {
  name: string;
  format: 'anthropic' | 'openai';
  figure: string;
  /** The usage of the answer: Anthropic's (`read`, `output`) or OpenAI's (`prompt`, `cached`, `completion`), each JSON text. */
  usage: Partial<Record<'read' | 'output' | 'prompt' | 'cached' | 'completion', string>>;
  observed: string;
  logged: Record<string, number>;
}

const MAX = Number.MAX_SAFE_INTEGER;
const CASES: Case[] = [
  { name: 'anthropic-output-1e400', format: 'anthropic', figure: '1e400', usage: { output: '1e400' }, observed: 'outputTokens Infinity (not finite)', logged: { inputTokens: 25, outputTokens: MAX } },
  { name: 'anthropic-output-12.5', format: 'anthropic', figure: '12.5', usage: { output: '12.5' }, observed: 'outputTokens 12.5 (not a whole number)', logged: { inputTokens: 25, outputTokens: 12 } },
  { name: 'anthropic-read-negative', format: 'anthropic', figure: '-5', usage: { read: '-5' }, observed: 'cacheReadInputTokens -5 (negative)', logged: { inputTokens: 25, cacheReadInputTokens: 0, outputTokens: 15 } },
  { name: 'openai-completion-1e400', format: 'openai', figure: '1e400', usage: { completion: '1e400' }, observed: 'outputTokens Infinity (not finite)', logged: { inputTokens: 20, cacheReadInputTokens: 10, outputTokens: MAX } },
  // A cached figure that is not a count is never subtracted from the prompt: both are logged as they came.
  { name: 'openai-cached-1e400', format: 'openai', figure: '1e400', usage: { cached: '1e400' }, observed: 'cacheReadInputTokens Infinity (not finite)', logged: { inputTokens: 30, cacheReadInputTokens: MAX, outputTokens: 12 } },
  { name: 'openai-prompt-12.5', format: 'openai', figure: '12.5', usage: { prompt: '12.5' }, observed: 'inputTokens 12.5 (not a whole number)', logged: { inputTokens: 12, outputTokens: 12 } },
];

/** The scripted answers of a case, JSON and stream, its hostile figure written verbatim. */
function answerOf(c: Case): { json: string; sse: string } {
  const u = { read: '0', output: '15', prompt: '30', cached: '10', completion: '12', ...c.usage };
  if (c.format === 'anthropic') {
    const start = `{"input_tokens":25,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":${u.read}}`;
    return {
      json: anthropicMessage('[{"type":"text","text":"Hi"}]', '"end_turn"', `{"input_tokens":25,"output_tokens":${u.output},"cache_creation_input_tokens":0,"cache_read_input_tokens":${u.read}}`),
      sse: anthropicStream([['{"type":"text","text":""}', ['{"type":"text_delta","text":"Hi"}']]], '"end_turn"', start, `{"output_tokens":${u.output}}`),
    };
  }
  const usage = `{"prompt_tokens":${u.prompt},"completion_tokens":${u.completion},"total_tokens":42,"prompt_tokens_details":{"cached_tokens":${u.cached}}}`;
  return {
    json: openaiCompletion('{"role":"assistant","content":"Hi"}', '"stop"', usage),
    sse: openaiFrames([openaiChunk('{"role":"assistant","content":"Hi"}'), openaiChunk('{}', '"stop"'), openaiUsageChunk(usage)]),
  };
}

let upstream: ScriptedUpstream;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  for (const c of CASES) upstream.answer(c.name, answerOf(c));
});
afterAll(() => upstream.close());

describe.each(BOTH_STORES)('hostile usage figures on %s', (_kind, makeStore) => {
  let made: MadeStore;
  let gw: RunningGateway;
  const metrics = createMetrics();
  beforeAll(async () => {
    made = await makeStore();
    const adapters = { anthropic: anthropicAdapter({ baseURL: upstream.url, apiKey: 'sk-up' }), openai: openaiChatAdapter({ baseURL: upstream.url, apiKey: 'sk-up' }) };
    const models = CASES.map((c): ModelEntry => ({ id: c.name, capability: 'llm', upstream: adapters[c.format], pricing: PRICING }));
    gw = await startGateway({ models, store: made.store as never, metrics });
  });
  afterAll(async () => {
    await gw.close();
    await made.drop();
  });

  /** The request's log entry, from either store, once it is written. */
  async function entryOf(requestId: string): Promise<RequestLogEntry> {
    for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 10))) {
      const [entry] = (await made.store.listRequests({ requestId })).items;
      if (entry) return entry;
    }
    throw new Error(`no log entry for ${requestId}`);
  }

  it.each(CASES.flatMap((c) => [[c.name, c.figure, false, c], [c.name, c.figure, true, c]] as const))(
    '%s (%s), stream=%s: logged as observed, needs_review, charged 0',
    async (model, _figure, stream, c) => {
      const callerId = `hostile-${randomBytes(6).toString('hex')}`;
      const key = `sk-hostile-${randomBytes(12).toString('hex')}`;
      await made.store.addKey(key, { id: callerId });
      await made.store.credit({ callerId, amount: 1000, idempotencyKey: `opening-${callerId}` });
      const res = await postMessages(gw.url, key, model, { stream });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('Hi');
      const entry = await entryOf(res.headers.get('request-id') as string);
      expect(entry).toMatchObject({ status: 200, errorCode: null, billingStatus: 'needs_review', cost: '0', charge: 0, detail: `implausible usage: ${c.observed}` });
      expect(entry.usage).toMatchObject({ ...c.logged, provenance: 'implausible' });
      for (const value of Object.values(entry.usage ?? {})) if (typeof value === 'number') expect(Number.isSafeInteger(value) && value >= 0).toBe(true);
      expect(await made.store.getAccount(callerId)).toMatchObject({ balance: 1000, held: 0, carry: '0' });
    },
  );

  it('figures not believed stay out of the usage metrics', async () => {
    const callerId = `hostile-${randomBytes(6).toString('hex')}`;
    const key = `sk-hostile-${randomBytes(12).toString('hex')}`;
    await made.store.addKey(key, { id: callerId });
    await made.store.credit({ callerId, amount: 1000, idempotencyKey: `opening-${callerId}` });
    const res = await postMessages(gw.url, key, 'openai-completion-1e400');
    await entryOf(res.headers.get('request-id') as string);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/model_gateway_billing_outcomes_total\{billing_status="needs_review"\} [1-9]/);
    expect(text).not.toMatch(/model_gateway_usage_total\{/); // every request of this gateway had a figure not believed
  });
});
