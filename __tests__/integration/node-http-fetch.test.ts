/** nodeHttpFetch() and global fetch behind the adapters: Messages JSON and SSE, a failure mapped, a reset inside a JSON body noticed at once. */
import { anthropicAdapter, nodeHttpFetch, openaiChatAdapter, type FetchLike } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startOpenAIFake } from '../helpers/fake-openai';
import { SECRET_MARKER, UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { addCaller, logEntry, postMessages, PRICING, startGateway, type RunningGateway } from '../helpers/gateway';

let anthropic: FakeServer;
let openai: FakeServer;
let gw: RunningGateway;
let key: string;
const seenSignals: AbortSignal[] = [];

beforeAll(async () => {
  anthropic = await startAnthropicFake();
  openai = await startOpenAIFake();
  const fetch = nodeHttpFetch();
  const a = anthropicAdapter({ baseURL: anthropic.url, apiKey: UPSTREAM_KEY, fetch, timeouts: { idleMs: 30_000 } });
  const o = openaiChatAdapter({ baseURL: openai.url, apiKey: UPSTREAM_KEY, fetch });
  // A host's own client that notes the signal it is given.
  const watched = anthropicAdapter({ baseURL: anthropic.url, apiKey: UPSTREAM_KEY, timeouts: { firstByteMs: 200 }, fetch: (url, init) => {
    seenSignals.push(init.signal as AbortSignal);
    return fetch(url, init);
  } });
  // Global fetch (undici) gives WHATWG stream bodies, not Node streams.
  const web = openaiChatAdapter({ baseURL: openai.url, apiKey: UPSTREAM_KEY, fetch: globalThis.fetch as unknown as FetchLike });
  const names = ['claude-json', 'claude-stream', 'claude-status-529', 'claude-reset-mid-body', 'gpt-stream'];
  gw = await startGateway({ models: [
    ...names.map((id) => ({ id, capability: 'llm' as const, upstream: id.startsWith('gpt') ? o : a, pricing: PRICING })),
    ...['web-stream', 'web-reset'].map((id) => ({ id, capability: 'llm' as const, upstream: web, pricing: PRICING, upstreamModel: id.replace('web', 'gpt') })),
    { id: 'claude-stall', capability: 'llm', upstream: watched, pricing: PRICING },
  ] });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([anthropic.close(), openai.close()]);
});

const call = (model: string, stream = false) => postMessages(gw.url, key, model, { stream, maxTokens: 16 });

it('answers JSON and streams, billed on confirmed usage', async () => {
  const json = await call('claude-json');
  expect(((await json.json()) as { content: Array<{ text: string }> }).content[0]?.text).toBe('Hello from the fake upstream');
  for (const model of ['claude-stream', 'gpt-stream']) {
    const res = await call(model, true);
    expect(await res.text()).toMatch(/event: message_stop\n/);
    expect(await logEntry(gw.store, res.headers.get('request-id') as string)).toMatchObject({ billingStatus: 'billed' });
  }
});

it('maps upstream errors without leaking them, and notices a reset inside a JSON body at once', async () => {
  const overloaded = await call('claude-status-529');
  expect(overloaded.status).toBe(529);
  expect(await overloaded.text()).not.toContain(SECRET_MARKER);
  const started = Date.now();
  const reset = await call('claude-reset-mid-body');
  expect(reset.status).toBe(500);
  expect(Date.now() - started).toBeLessThan(10_000); // not the 30 s idle timeout
});

it("gives a host's own client a real AbortSignal, aborted when the first byte is late", async () => {
  const res = await call('claude-stall', true);
  expect(res.status).toBe(504);
  expect(seenSignals).toHaveLength(1);
  expect(seenSignals[0]).toBeInstanceOf(AbortSignal);
  expect(seenSignals[0]?.aborted).toBe(true);
});

it('reads WHATWG stream bodies (global fetch) to the end, and maps a cut one to an error event', async () => {
  const res = await call('web-stream', true);
  const text = await res.text();
  expect(text).toMatch(/"text":"Hi"[\s\S]*"text":" there"[\s\S]*event: message_stop\n/);
  expect(await logEntry(gw.store, res.headers.get('request-id') as string)).toMatchObject({ billingStatus: 'billed', usage: { outputTokens: 12 } });
  const cut = await call('web-reset', true);
  const events = await cut.text();
  expect(events).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
  expect(events).not.toMatch(/message_stop/);
});
