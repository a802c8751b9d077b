/**
 * The Messages streams' speed trick (lib/formats/anthropic/frames.ts, lib/upstreams/forwarding.ts):
 * the Messages proxy forwards the built-in Anthropic adapter's content frames unparsed. The client must get the same bytes as
 * through the object path, which a host's wrapper (or any copy of the adapter) takes.
 */
import fc from 'fast-check';
import { anthropicAdapter } from '../../lib';
import type { ForwardingFace, MessagesAdapter, MessagesRequest, StreamEvent, UpstreamCallContext } from '../../lib';
import { forwardingStreamOf } from '../../lib/upstreams/forwarding';
import { startFake, type FakeServer } from '../helpers/fake-server';
import { addCaller, startGateway, type RunningGateway } from '../helpers/gateway';

/** The SSE body the fake streams next, in the pieces it writes them. */
let script: string[] = [];
const sse = (event: StreamEvent): string => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

let fake: FakeServer;
let gw: RunningGateway;
let key: string;
let builtIn: MessagesAdapter;
/** What each wrapper's stream() and face were asked for. */
const calls = { spreadStream: 0, reboundStream: 0, reboundFace: 0 };
beforeAll(async () => {
  fake = await startFake(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of script) await new Promise<void>((resolve) => res.write(piece, () => resolve()));
    res.end();
  });
  builtIn = anthropicAdapter({ baseURL: fake.url });
  const face = builtIn.forward as ForwardingFace;
  // A wrapper that changes stream() (the face it spread is bound to builtIn): served through its stream().
  const spread: MessagesAdapter = { ...builtIn, stream: (request, ctx) => (calls.spreadStream++, builtIn.stream(request, ctx)) };
  // A wrapper that wraps the face too, bound to itself: the fast path, through its face.
  const wrapper = { ...builtIn, stream: (request: MessagesRequest, ctx: UpstreamCallContext) => (calls.reboundStream++, builtIn.stream(request, ctx)) };
  const rebound: MessagesAdapter = Object.assign(wrapper, { forward: { of: wrapper, stream: (request: MessagesRequest, ctx: UpstreamCallContext, runs: boolean) => (calls.reboundFace++, face.stream(request, ctx, runs)) } });
  gw = await startGateway({
    models: [
      { id: 'forwarded', capability: 'llm', upstream: builtIn, pricing: { input: 1, output: 1 } },
      // A copy is not the built-in adapter: it gets complete objects, and the proxy serialises them.
      { id: 'objects', capability: 'llm', upstream: { ...builtIn }, pricing: { input: 1, output: 1 } },
      // Agent-ready: content frames pass through in runs (lib/formats/anthropic/frame-reader.ts).
      { id: 'forwarded-agent', capability: 'llm', upstream: builtIn, pricing: { input: 1, output: 1 }, agentReady: true },
      { id: 'objects-agent', capability: 'llm', upstream: { ...builtIn }, pricing: { input: 1, output: 1 }, agentReady: true },
      { id: 'spread-wrapper', capability: 'llm', upstream: spread, pricing: { input: 1, output: 1 } },
      { id: 'rebound-wrapper', capability: 'llm', upstream: rebound, pricing: { input: 1, output: 1 } },
    ],
  });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => Promise.all([gw.close(), fake.close()]));

/** The client's bytes for `model`, its public name (the one difference by design) written as "M". */
async function streamed(model: string): Promise<string> {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 1000, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  expect(res.status).toBe(200);
  return (await res.text()).replace(`"model":"${model}"`, '"model":"M"');
}

/** A whole answer: message_start, text blocks of the given deltas, message_delta, message_stop. */
function answer(blocks: string[][], output: number): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'up', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } }];
  blocks.forEach((deltas, index) => {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const text of deltas) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: output } }, { type: 'message_stop' });
  return events;
}

/** Cuts `text` into pieces at the given fractions (the fake writes each on its own). */
function cut(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of points) {
    if (p > from) pieces.push(text.slice(from, p));
    from = Math.max(from, p);
  }
  pieces.push(text.slice(from));
  return pieces;
}

it('only the built-in adapter object offers forwarding: not a copy, not a wrapper', () => {
  expect(forwardingStreamOf(builtIn)).toBeDefined();
  expect(forwardingStreamOf({ ...builtIn })).toBeUndefined();
});

it("a wrapper that changes stream() is served through it; one that binds a face of its own gets the fast path through that face", async () => {
  script = [answer([['a', 'b']], 2).map(sse).join('')];
  const objects = await streamed('objects');
  expect(await streamed('spread-wrapper')).toBe(objects);
  expect(calls).toEqual({ spreadStream: 1, reboundStream: 0, reboundFace: 0 });
  expect(await streamed('rebound-wrapper')).toBe(await streamed('forwarded'));
  expect(calls).toEqual({ spreadStream: 1, reboundStream: 0, reboundFace: 1 });
});

it('the client gets the same bytes with frames forwarded as through the objects, for any text and any cut of the upstream body', async () => {
  const text = fc.string({ unit: 'binary', maxLength: 40 });
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(text, { maxLength: 6 }), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 5000 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
      async (blocks, output, at) => {
        script = cut(answer(blocks, output).map(sse).join(''), at);
        for (const suffix of ['', '-agent']) {
          const [forwarded, objects] = [await streamed(`forwarded${suffix}`), await streamed(`objects${suffix}`)];
          expect(forwarded).toBe(objects);
          expect(forwarded).toContain('"model":"M"');
          expect(forwarded).toContain('event: message_stop');
        }
      }),
    { numRuns: 60 },
  );
});

it('frames not written as JSON.stringify writes them are parsed and written anew, the same on both paths', async () => {
  const spaced = (event: StreamEvent): string => `event: ${event.type}\ndata: ${JSON.stringify(event).replace(/^\{"type":/, '{ "type": ')}\n\n`;
  script = [answer([['a "quoted" text', ' and more\n']], 2).map(spaced).join('')];
  const [forwarded, objects] = [await streamed('forwarded'), await streamed('objects')];
  expect(forwarded).toBe(objects);
  expect(forwarded).toContain('data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a \\"quoted\\" text"}}');
});

it('a content frame that begins as JSON.stringify writes it is forwarded as written: the same JSON value, its own spacing', async () => {
  const loose = (event: StreamEvent): string => event.type === 'content_block_delta'
    ? `event: ${event.type}\ndata: ${JSON.stringify(event).replace(',"delta":', ', "delta": ')}\n\n`
    : sse(event);
  script = [answer([['x']], 1).map(loose).join('')];
  const [forwarded, objects] = [await streamed('forwarded'), await streamed('objects')];
  expect(forwarded).toContain('data: {"type":"content_block_delta","index":0, "delta": {"type":"text_delta","text":"x"}}');
  expect(objects).toContain('data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}');
  expect(forwarded.replace(', "delta": ', ',"delta":')).toBe(objects);
});

/** Ways an upstream may write a frame that the SSE standard reads alike: the canonical one, CRLF, a comment, an id, no space. */
const STYLES: Array<(event: StreamEvent) => string> = [
  sse,
  (event) => sse(event).replace(/\n/g, '\r\n'),
  (event) => `: a comment\n${sse(event)}`,
  (event) => `id: 7\n${sse(event)}`,
  (event) => sse(event).replace('data: ', 'data:'),
];

it('frames written in any way the SSE standard allows reach the client the same as through the objects, V1 and agent-ready, for any cut', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(fc.string({ maxLength: 12 }), { maxLength: 5 }), { minLength: 1, maxLength: 2 }), fc.array(fc.nat(STYLES.length - 1), { minLength: 1, maxLength: 30 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
      async (blocks, styles, at) => {
        script = cut(answer(blocks, 9).map((e, i) => (STYLES[styles[i % styles.length] as number] as (e: StreamEvent) => string)(e)).join(''), at);
        for (const suffix of ['', '-agent']) {
          const [forwarded, objects] = [await streamed(`forwarded${suffix}`), await streamed(`objects${suffix}`)];
          expect(forwarded).toBe(objects);
          expect(forwarded).toContain('event: message_stop');
        }
      }),
    { numRuns: 40 },
  );
});
