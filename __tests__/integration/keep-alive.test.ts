/**
 * Keep-alive on quiet streams: after `keepAliveMs` without a write the gateway sends a `ping` event
 * (Messages) or a `: keep-alive` comment (chat), before the upstream's first event as well as
 * between two; the tests hold the upstream at a gate and wait for the frames, never for a time.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { anthropicAdapter, openaiChatAdapter, type ModelEntry } from '../../lib';
import { DELTAS, startAnthropicFake } from '../helpers/fake-anthropic';
import { OPENAI_DELTAS, startOpenAIFake } from '../helpers/fake-openai';
import { failWith, startFake, type FakeServer, type GatedFake } from '../helpers/fake-server';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { chatViolations, messagesViolations, parseFrames } from '../helpers/stream-grammar';

let anthropic: GatedFake;
let openai: GatedFake;
let silent: FakeServer;
/** The silent upstream's latch: `open()` lets through a request waiting now or arriving later, until `arm()` closes it again. */
const held = {
  opened: Promise.resolve(),
  open: () => undefined as void,
  arm(): void {
    this.opened = new Promise<void>((resolve) => { this.open = resolve; });
  },
};
let gw: RunningGateway;
let key: string;

beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startAnthropicFake(), startOpenAIFake()]);
  // Says nothing, not even its status, until the gate opens; then answers as `<format>-<behaviour>` asks.
  silent = await startFake(async (req, res) => {
    await held.opened;
    const [format, behaviour] = String(req.body.model).split('-');
    if (behaviour === 'fail') return failWith(res, 500);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (format === 'openai') {
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'late' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1 } })}\n\ndata: [DONE]\n\n`);
    } else {
      const events = [
        { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], model: 'x', stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'late' } },
        { type: 'content_block_stop', index: 0 }, { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }, { type: 'message_stop' },
      ];
      res.write(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''));
    }
    res.end();
  });
  const pricing = { input: 1, output: 1 };
  const models: ModelEntry[] = [
    { id: 'claude-gated', capability: 'llm', upstream: anthropicAdapter({ baseURL: anthropic.url }), pricing },
    { id: 'gpt-gated', capability: 'llm', upstream: openaiChatAdapter({ baseURL: openai.url }), pricing },
    ...['anthropic-late', 'anthropic-fail'].map((id) => ({ id, capability: 'llm' as const, upstream: anthropicAdapter({ baseURL: silent.url }), pricing })),
    ...['openai-late', 'openai-fail'].map((id) => ({ id, capability: 'llm' as const, upstream: openaiChatAdapter({ baseURL: silent.url }), pricing })),
  ];
  gw = await startGateway({ models, keepAliveMs: 25 });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  anthropic.openGates();
  openai.openGates();
  held.open();
  await gw.close();
  await Promise.all([anthropic.close(), openai.close(), silent.close()]);
});

/** Posts a stream and reads it: `until` is awaited (true) before `release()` runs; then the rest is read. */
async function readStream(route: 'messages' | 'chat', model: string, until: (text: string) => boolean, release: () => void): Promise<{ status: number; text: string; requestId: string }> {
  const res = await fetch(`${gw.url}/v1/${route === 'messages' ? 'messages' : 'chat/completions'}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let released = false;
  for (;;) {
    if (!released && until(text)) {
      released = true;
      release();
    }
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return { status: res.status, text, requestId: res.headers.get('request-id') ?? '' };
}

const count = (text: string, frame: string): number => text.split(frame).length - 1;

/** A fetch for an SDK that passes the body on as it comes and calls `release` once the text so far satisfies `until`. */
function watching(until: (text: string) => boolean, release: () => void): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    let text = '';
    const decoder = new TextDecoder();
    const watch = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        text += decoder.decode(chunk, { stream: true });
        if (until(text)) release();
        controller.enqueue(chunk);
      },
    });
    return new Response((res.body as ReadableStream<Uint8Array>).pipeThrough(watch), { status: res.status, headers: res.headers });
  };
}
const PING = 'event: ping\ndata: {"type":"ping"}\n\n';
const COMMENT = ': keep-alive\n\n';

it('Messages: pings while the upstream is silent mid-stream, then the rest of the answer', async () => {
  // Two of ours after the first delta (the fake sends one ping of its own before it).
  const { status, text } = await readStream('messages', 'claude-gated', (t) => t.includes('text_delta') && count(t.slice(t.indexOf('text_delta')), PING) >= 2, () => anthropic.openGates());
  expect(status).toBe(200);
  expect(messagesViolations(parseFrames(text), { upstreamUsage: true })).toEqual([]);
  expect(text).toContain(DELTAS.at(-1));
});

it('chat: keep-alive comments while the upstream is silent mid-stream, which the openai SDK skips', async () => {
  const { text } = await readStream('chat', 'gpt-gated', (t) => count(t, COMMENT) >= 2, () => openai.openGates());
  expect(chatViolations(parseFrames(text))).toEqual([]);
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, fetch: watching((t) => count(t, COMMENT) >= 2, () => openai.openGates()) });
  const stream = client.chat.completions.stream({ model: 'gpt-gated', messages: [{ role: 'user', content: 'Hello' }] });
  expect((await stream.finalChatCompletion()).choices[0]?.message.content).toBe(OPENAI_DELTAS.join(''));
});

it('before the first event: the 200 goes out with a ping, and the answer follows; the Anthropic SDK reads it whole', async () => {
  held.arm();
  const { status, text, requestId } = await readStream('messages', 'anthropic-late', (t) => count(t, PING) >= 2, () => held.open());
  expect(status).toBe(200);
  expect(text.startsWith(PING)).toBe(true);
  expect(messagesViolations(parseFrames(text), { upstreamUsage: true })).toEqual([]);
  expect(await logEntry(gw.store, requestId)).toMatchObject({ status: 200, billingStatus: 'billed' });
  held.arm();
  const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0, fetch: watching((t) => count(t, PING) >= 2, () => held.open()) });
  const message = client.messages.stream({ model: 'anthropic-late', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
  expect((await message.finalMessage()).content).toEqual([{ type: 'text', text: 'late' }]);
});

it('before the first event, on chat: a comment, then the chunks', async () => {
  held.arm();
  const { status, text } = await readStream('chat', 'openai-late', (t) => count(t, COMMENT) >= 1, () => held.open());
  expect(status).toBe(200);
  expect(text.startsWith(COMMENT)).toBe(true);
  expect(chatViolations(parseFrames(text))).toEqual([]);
});

it.each([
  ['messages', 'anthropic-fail', PING, 'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"Internal server error."}}\n\n'],
  ['chat', 'openai-fail', COMMENT, 'data: {"error":{"message":"Internal server error.","type":"server_error","code":"server_error","param":null}}\n\n'],
] as const)('%s: an upstream that fails after the stream was kept alive ends it with the error frame', async (route, model, keepAlive, error) => {
  held.arm();
  const { status, text, requestId } = await readStream(route, model, (t) => count(t, keepAlive) >= 1, () => held.open());
  expect(status).toBe(200);
  expect(text.endsWith(error)).toBe(true);
  expect(text.replaceAll(keepAlive, '')).toBe(error);
  expect(await logEntry(gw.store, requestId)).toMatchObject({ errorCode: 'api_error' });
});
