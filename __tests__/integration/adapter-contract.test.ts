/** The adapter interfaces are the truth: what create(), stream() and rerank() return is what the client gets. */
import Anthropic from '@anthropic-ai/sdk';
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import { CohereClientV2 } from 'cohere-ai';
import { anthropicAdapter, cohereAdapter, failover, openaiChatAdapter } from '../../lib';
import type { FetchLike, MessageResponse, MessagesAdapter, MessagesRequest, ModelEntry, RerankAdapter, StreamEvent, StreamItem, UpstreamCallContext } from '../../lib';
import { UsageTracker } from '../../lib/billing/usage';
import { DELTAS, startAnthropicFake } from '../helpers/fake-anthropic';
import { OPENAI_DELTAS, startOpenAIFake } from '../helpers/fake-openai';
import { startRerankFake } from '../helpers/fake-rerank';
import { UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { addCaller, startGateway, type RunningGateway } from '../helpers/gateway';
import { TRANSPORTS } from '../helpers/transports';

let anthropic: FakeServer;
let openai: FakeServer;
let cohere: FakeServer;
beforeAll(async () => {
  [anthropic, openai, cohere] = await Promise.all([startAnthropicFake(), startOpenAIFake(), startRerankFake('cohere')]);
});
afterAll(async () => Promise.all([anthropic.close(), openai.close(), cohere.close()]));

/** Each built-in messages adapter: its name, a fake's streaming model and the text it answers. */
const BUILT_INS: ReadonlyArray<readonly [string, string, string]> = [
  ['anthropicAdapter', 'claude-stream', DELTAS.join('')],
  ['openaiChatAdapter', 'gpt-stream', OPENAI_DELTAS.join('')],
];
const adapterFor = (name: string, fetch?: FetchLike): MessagesAdapter => (name === 'anthropicAdapter'
  ? anthropicAdapter({ baseURL: anthropic.url, apiKey: UPSTREAM_KEY, fetch })
  : openaiChatAdapter({ baseURL: openai.url, apiKey: UPSTREAM_KEY, fetch }));

const callContext = (): UpstreamCallContext => ({ signal: new AbortController().signal, requestId: 'req_direct', usage: new UsageTracker() });
const request = (model: string): MessagesRequest => ({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
const flat = (item: StreamItem): readonly StreamEvent[] => (Array.isArray(item) ? item : [item as StreamEvent]);

/** Feeds events to the official SDK's own accumulator, which throws on an incomplete event. */
async function sdkFinalMessage(events: StreamEvent[]): Promise<Anthropic.Message> {
  const lines = new TextEncoder().encode(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  const readable = new ReadableStream({ start(c) { c.enqueue(lines); c.close(); } });
  return MessageStream.fromReadableStream(readable).finalMessage();
}

/** Each built-in adapter on each upstream client. */
const ON_CLIENTS = BUILT_INS.flatMap(([name, model, text]) => TRANSPORTS.map(([transport, client]) => [name, transport, model, text, client] as const));

describe.each(ON_CLIENTS)('%s on %s, consumed directly', (name, _transport, model, text, client) => {
  it('create() returns a complete message', async () => {
    const message = await adapterFor(name, client()).create(request(model.replace('-stream', '-json')), callContext());
    expect(message).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) } });
  });

  it('stream() yields complete Anthropic events, as the official SDK accumulates them', async () => {
    const events: StreamEvent[] = [];
    for await (const item of adapterFor(name, client()).stream(request(model), callContext())) events.push(...flat(item));
    for (const e of events.filter((x) => x.type === 'content_block_delta')) expect(e).toMatchObject({ index: 0, delta: { type: 'text_delta', text: expect.any(String) } });
    const message = await sdkFinalMessage(events);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text })]);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });
});

/** A host's wrapper that rewrites every answer: JSON content and stream text deltas. */
function redacting(inner: MessagesAdapter): MessagesAdapter {
  return {
    ...inner,
    async create(r: MessagesRequest, c: UpstreamCallContext): Promise<MessageResponse> {
      return { ...(await inner.create(r, c)), content: [{ type: 'text', text: '[redacted]' }] };
    },
    async *stream(r: MessagesRequest, c: UpstreamCallContext): AsyncGenerator<StreamEvent[]> {
      for await (const item of inner.stream(r, c)) {
        yield flat(item).map((e) => (e.type === 'content_block_delta' ? { ...e, delta: { type: 'text_delta', text: '#' } } : e));
      }
    },
  };
}

describe('a host wrapper around a built-in adapter', () => {
  let gw: RunningGateway;
  let key: string;
  beforeAll(async () => {
    const models: ModelEntry[] = [];
    for (const [name, model] of BUILT_INS) {
      const adapter = adapterFor(name);
      for (const upstreamModel of [model, model.replace('-stream', '-json')]) {
        models.push({ id: `${name}-${upstreamModel}`, capability: 'llm', upstream: redacting(adapter), upstreamModel, pricing: { input: 1, output: 1 } });
      }
      models.push({ id: `failover-${name}`, capability: 'llm', upstream: failover([redacting(adapter), adapter]), upstreamModel: model, pricing: { input: 1, output: 1 } });
    }
    const rerank: RerankAdapter = cohereAdapter({ baseURL: cohere.url });
    const halved: RerankAdapter = { ...rerank, rerank: async (r, c) => (await rerank.rerank(r, c)).map((x) => ({ ...x, relevance_score: x.relevance_score / 2 })) };
    models.push({ id: 'halved', capability: 'rerank', upstream: halved, upstreamModel: 'cohere-sorted-tokens', pricing: { input: 1 } });
    gw = await startGateway({ models });
    ({ key } = addCaller(gw.store));
  });
  afterAll(async () => gw.close());

  it.each(BUILT_INS.map(([name, model]) => [name, model] as const))('%s: its edits reach the official SDK client, JSON and stream, and through failover()', async (name, model) => {
    const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
    const json = await client.messages.create({ model: `${name}-${model.replace('-stream', '-json')}`, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
    expect(json.content).toEqual([{ type: 'text', text: '[redacted]' }]);
    for (const id of [`${name}-${model}`, `failover-${name}`]) {
      const streamed = await client.messages.stream({ model: id, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }).finalMessage();
      expect(streamed.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringMatching(/^#+$/) })]);
      expect(streamed.model).toBe(id);
    }
  });

  it('a rerank wrapper\'s scores reach the cohere-ai client', async () => {
    const direct = await cohereAdapter({ baseURL: cohere.url }).rerank({ model: 'cohere-sorted-tokens', query: 'q', documents: ['a', 'b', 'c', 'd'] }, callContext());
    const client = new CohereClientV2({ token: key, environment: gw.url, maxRetries: 0 } as never);
    const r = await client.rerank({ model: 'halved', query: 'q', documents: ['a', 'b', 'c', 'd'] });
    expect(r.results.map((x) => [x.index, x.relevanceScore])).toEqual(direct.map((x) => [x.index, x.relevance_score / 2]));
  });
});
