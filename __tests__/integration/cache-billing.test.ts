/**
 * Prompt caching billed exactly: the billing bugs peers shipped (agent-clients.md A3) are reproduced as inputs and shown
 * impossible here; defaults per upstream format; tpm weighs cache figures by price; metrics and the estimator count them.
 */
import { anthropicAdapter, createMetrics, defaultEstimator, type Pricing, type Usage } from '../../lib';
import { costOf, holdFor } from '../../lib/billing/pricing';
import { IMAGE_TOKENS } from '../../lib/billing/estimate';
import { UsageTracker } from '../../lib/billing/usage';
import { usageFromAnthropic } from '../../lib/formats/anthropic';
import { usageFromChat } from '../../lib/formats/openai-chat/usage';
import { sendJson, startAgentServer, type AgentServer } from '../helpers/fake-agent-server';
import { gate, sse, UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { usageOf } from '../helpers/usage';

const PRICING: Pricing = { input: 300, output: 1500 }; // Anthropic defaults: read 30, 5-minute write 375, 1-hour write 600

/** What a stream's usage events leave in the tracker, as the gateway bills them. */
function tracked(...reports: Array<Record<string, unknown>>): Usage {
  const tracker = new UsageTracker();
  for (const report of reports) tracker.report(usageFromAnthropic(report));
  tracker.complete();
  return tracker.snapshot();
}

describe("peers' cache billing bugs, impossible here", () => {
  it.each([
    // LiteLLM #9812: the total and its split both billed as writes. Here the split is the total: 1,000 writes, billed once.
    ['cache writes billed twice', [{ input_tokens: 10, cache_creation_input_tokens: 1000, cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 0 }, output_tokens: 5 }],
      { inputTokens: 10, cacheWrite5mInputTokens: 1000, outputTokens: 5 }, '0.3855'],
    // pi #5603, claude-powerline #104: 1-hour writes at the 5-minute rate. Here each lifetime has its own price.
    ['1-hour writes at the 5-minute rate', [{ input_tokens: 10, cache_creation_input_tokens: 1000, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1000 }, output_tokens: 5 }],
      { inputTokens: 10, cacheWrite1hInputTokens: 1000, outputTokens: 5 }, '0.6105'],
    // new-api #6353: a total with a null breakdown billed as 0. Here it bills as 5-minute writes.
    ['a total with no breakdown billed 0', [{ input_tokens: 10, cache_creation_input_tokens: 1000, cache_creation: null, output_tokens: 5 }],
      { inputTokens: 10, cacheWrite5mInputTokens: 1000, outputTokens: 5 }, '0.3855'],
    // A split that covers only part of the total: the rest is never dropped.
    ['a breakdown short of its total', [{ input_tokens: 0, cache_creation_input_tokens: 1000, cache_creation: { ephemeral_1h_input_tokens: 400 }, output_tokens: 0 }],
      { cacheWrite5mInputTokens: 600, cacheWrite1hInputTokens: 400 }, '0.465'],
    // new-api #7291: 2 input tokens shown against 589,733 cache reads. Here both are kept, each at its price.
    ['cache reads folded into input', [{ input_tokens: 2, cache_read_input_tokens: 589_733, output_tokens: 1 }],
      { inputTokens: 2, cacheReadInputTokens: 589_733, outputTokens: 1 }, '17.69409'],
    // Claude Code's streams: message_delta repeats cumulative input and cache totals; the split stays from message_start.
    ['message_delta overwriting message_start', [
      { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 300, cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 } },
      { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 300, output_tokens: 50 }],
    { inputTokens: 10, cacheReadInputTokens: 100, cacheWrite5mInputTokens: 100, cacheWrite1hInputTokens: 200, outputTokens: 50 }, '0.2385'],
  ])('%s', (_name, reports, figures, cost) => {
    const usage = tracked(...reports);
    expect(usage).toEqual(usageOf(figures));
    expect(costOf(usage, PRICING, 'anthropic')).toBe(cost);
  });

  it('an OpenAI upstream: input is prompt_tokens − cached_tokens, the cached ones at the cached-read price, no write fee', () => {
    const usage = usageOf(usageFromChat({ prompt_tokens: 1000, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 800 } }));
    expect(usage).toMatchObject({ inputTokens: 200, cacheReadInputTokens: 800, cacheWrite5mInputTokens: 0 });
    expect(costOf(usage, PRICING, 'openai')).toBe('0.195'); // (200×300 + 800×150 + 10×1500) / 10^6
    expect(costOf(usage, { ...PRICING, cacheRead: 75 }, 'openai')).toBe('0.135'); // a price set is the price
  });

  it('defaults are exact multiples of the input price, per upstream format, and a hold rounds the cost up', () => {
    const usage = usageOf({ cacheReadInputTokens: 1_000_000, cacheWrite5mInputTokens: 1_000_000, cacheWrite1hInputTokens: 1_000_000 });
    expect(costOf(usage, { input: 300 }, 'anthropic')).toBe(String(30 + 375 + 600));
    expect(costOf(usage, { input: 300 }, 'openai')).toBe(String(150 + 300 + 300));
    expect(costOf(usage, { input: 300 })).toBe(String(300 * 3)); // an adapter of no known format: cache figures at the input price
    expect(holdFor(usageOf({ cacheReadInputTokens: 1 }), { input: 300 }, 'anthropic')).toBe(1);
  });
});

describe('through the gateway', () => {
  let upstream: AgentServer;
  let gw: RunningGateway;
  const held = gate();
  const metrics = createMetrics();
  const cached = { input_tokens: 20, cache_read_input_tokens: 90_000, cache_creation_input_tokens: 10_000, cache_creation: { ephemeral_5m_input_tokens: 10_000, ephemeral_1h_input_tokens: 0 } };
  beforeAll(async () => {
    // A stream that sends its message_start (input and cache figures), then waits for the test before it ends.
    upstream = await startAgentServer((req, res) => {
      if (req.body?.stream !== true) {
        return sendJson(res, 200, { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { ...cached, output_tokens: 4 } });
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { ...cached, output_tokens: 1 } } }, 'message_start');
      sse(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start');
      void held.wait().then(() => res.end());
    });
    gw = await startGateway({
      models: [{ id: 'agent', capability: 'llm', agentReady: true, upstream: anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY }), pricing: PRICING }],
      metrics,
    });
  });
  afterAll(async () => {
    held.open();
    await gw.close();
    await upstream.close();
  });
  const body = (stream: boolean) => JSON.stringify({ model: 'agent', max_tokens: 100, stream, messages: [{ role: 'user', content: 'Hi' }] });
  const headers = (key: string) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });

  it('a stream the client leaves before its final usage is billed the input and cache figures it confirmed, and flagged (llmgateway #3331 billed 0)', async () => {
    const { key } = addCaller(gw.store);
    const abort = new AbortController();
    const res = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headers(key), body: body(true), signal: abort.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // message_start reached the client
    abort.abort();
    const entry = await logEntry(gw.store, res.headers.get('request-id') as string);
    expect(entry).toMatchObject({ billingStatus: 'needs_review', usage: { provenance: 'partial', inputTokens: 20, cacheReadInputTokens: 90_000, cacheWrite5mInputTokens: 10_000 } });
    expect(entry.cost).toBe('6.456'); // (20×300 + 90,000×30 + 10,000×375) / 10^6: never 0
    held.open();
  });

  it('tpm counts a cache read at its price weight, not as full input', async () => {
    const { key } = addCaller(gw.store, { limits: { tpm: 20_000 } });
    // 20 input + 90,000 reads × 0.1 + 10,000 writes × 1.25 + 4 output = 21,524 weighted tokens; the estimate was 100 + 9.
    expect((await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headers(key), body: body(false) })).status).toBe(200);
    const refused = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headers(key), body: body(false) });
    expect(refused.status).toBe(429);
    // Counted as full input the first call would be 100,024 tokens; weighted, a 30,000 budget still has room.
    const { key: roomy } = addCaller(gw.store, { limits: { tpm: 30_000 } });
    expect((await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headers(roomy), body: body(false) })).status).toBe(200);
    expect((await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headers(roomy), body: body(false) })).status).toBe(200);
  });

  it('metrics count each figure apart', async () => {
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/model_gateway_usage_total\{model="agent",type="cache_read"\} \d+/);
    expect(text).toMatch(/model_gateway_usage_total\{model="agent",type="cache_write_5m"\} \d+/);
    expect(text).not.toMatch(/type="cache_write_1h"/); // none confirmed
  });
});

describe('the estimate counts what an agent sends', () => {
  const base = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };
  it('tools, system blocks and images, not only text', () => {
    const plain = defaultEstimator(base).inputTokens;
    const tool = { name: 'Write', description: 'x'.repeat(3000), input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } };
    expect(defaultEstimator({ ...base, tools: [tool] }).inputTokens).toBeGreaterThan(plain + 1000);
    expect(defaultEstimator({ ...base, system: [{ type: 'text', text: 'y'.repeat(3000), cache_control: { type: 'ephemeral' } }] }).inputTokens).toBe(plain + 1000);
    const image = { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(1_000_000) } }] };
    expect(defaultEstimator({ ...base, messages: [image] }).inputTokens).toBe(IMAGE_TOKENS + 8); // counted as an image, not as a megabyte of text
    expect(defaultEstimator(base)).toEqual({ inputTokens: 1 + 8, outputTokens: 10 }); // V1 text: as before
  });
});
