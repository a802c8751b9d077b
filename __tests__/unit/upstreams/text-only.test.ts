/**
 * The V1 filter on the Messages forwarding path: it decides at each block's start (one small parse
 * per block), renumbers the frames of kept blocks by their head's digits (never parsing a delta
 * whose head JSON.stringify wrote), and passes a text-only stream through untouched.
 */
import { GatewayError } from '../../../lib';
import type { StreamEvent } from '../../../lib/messages/events';
import type { MessageResponse } from '../../../lib/messages/request';
import { textOnlyMessage, textOnlyStream } from '../../../lib/upstreams/text-only';
import { forwardable, ForwardedFrame } from '../../../lib/formats/anthropic';

type Item = StreamEvent | ForwardedFrame;
const fwd = (event: string, data: string): ForwardedFrame => forwardable(event, data) as ForwardedFrame;
const start = (index: number, block: string): ForwardedFrame => fwd('content_block_start', `{"type":"content_block_start","index":${index},"content_block":${block}}`);
const delta = (index: number, d: string): ForwardedFrame => fwd('content_block_delta', `{"type":"content_block_delta","index":${index},"delta":${d}}`);
const stop = (index: number): ForwardedFrame => fwd('content_block_stop', `{"type":"content_block_stop","index":${index}}`);
const TEXT = '{"type":"text","text":""}';
const THINKING = '{"type":"thinking","thinking":"","signature":""}';

async function through(batches: Item[][]): Promise<Array<readonly Item[]>> {
  const out: Array<readonly Item[]> = [];
  for await (const batch of textOnlyStream((async function* () { yield* batches; })(), 'up')) out.push(batch);
  return out;
}

/** The SSE text a client gets for items (forwarded frames as they are, events as JSON.stringify writes them). */
const textOf = (items: readonly Item[]): string => items.map((i) => (i instanceof ForwardedFrame ? i.text : `event: ${i.type}\ndata: ${JSON.stringify(i)}\n\n`)).join('');

afterEach(() => jest.restoreAllMocks());

it('a text-only stream passes through untouched, batch for batch, parsing only its block start', async () => {
  const batches: Item[][] = [[{ type: 'message_start', message: {} }, start(0, TEXT), delta(0, '{"type":"text_delta","text":"a"}')], [delta(0, '{"type":"text_delta","text":"b"}'), stop(0)]];
  const parse = jest.spyOn(JSON, 'parse');
  const out = await through(batches);
  expect(out[0]).toBe(batches[0]);
  expect(out[1]).toBe(batches[1]);
  expect(parse).toHaveBeenCalledTimes(1);
});

it('thinking left out: the text after it is numbered from 0, its deltas renumbered by their digits, not parsed', async () => {
  const upstream = [start(0, THINKING), delta(0, '{"type":"thinking_delta","thinking":"hm"}'), delta(0, '{"type":"signature_delta","signature":"s"}'), stop(0),
    start(1, TEXT), delta(1, '{"type":"text_delta","text":"Hello \\"1\\""}'), delta(1, '{"type":"text_delta","text":"!"}'), stop(1)];
  const parse = jest.spyOn(JSON, 'parse');
  const out = (await through([upstream])).flat();
  expect(parse).toHaveBeenCalledTimes(2); // the two block starts
  expect(out.slice(1).every((i) => i instanceof ForwardedFrame)).toBe(true);
  expect(textOf(out)).toBe(textOf([start(0, TEXT), delta(0, '{"type":"text_delta","text":"Hello \\"1\\""}'), delta(0, '{"type":"text_delta","text":"!"}'), stop(0)]));
});

it('a frame spaced otherwise than JSON.stringify writes is read whole, with its new index', async () => {
  const spaced = fwd('content_block_delta', '{"type":"content_block_delta", "index": 1, "delta": {"type":"text_delta","text":"x"}}');
  const out = (await through([[start(0, THINKING), stop(0), start(1, TEXT), spaced]])).flat();
  expect(out.at(-1)).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } });
});

it('event objects (any adapter) are renumbered the same way; blocks numbered from elsewhere than 0 start at 0', async () => {
  const events: StreamEvent[] = [
    { type: 'content_block_start', index: 3, content_block: { type: 'redacted_thinking', data: 'x' } }, { type: 'content_block_stop', index: 3 },
    { type: 'content_block_start', index: 4, content_block: { type: 'text', text: '' } }, { type: 'content_block_delta', index: 4, delta: { type: 'text_delta', text: 'a' } },
    { type: 'content_block_stop', index: 4 }, { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: {} },
  ];
  const out = (await through([events])).flat() as StreamEvent[];
  expect(out.map((e) => [e.type, e.index])).toEqual([['content_block_start', 0], ['content_block_delta', 0], ['content_block_stop', 0], ['message_delta', undefined]]);
});

it.each(['tool_use', 'server_tool_use', 'image', undefined])('a %s block is an invalid answer: api_error, flagged not to be billed', async (type) => {
  const block = JSON.stringify({ type, id: 't', name: 'n', input: {} });
  const failure = await through([[start(0, TEXT), stop(0), start(1, block)]]).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(GatewayError);
  expect(failure).toMatchObject({ code: 'api_error', invalidAnswer: true, message: 'The upstream sent an invalid response.' });
  const message = { id: 'm', type: 'message', role: 'assistant', model: 'x', content: [{ type: 'text', text: 'a' }, JSON.parse(block)], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } as MessageResponse;
  expect(() => textOnlyMessage(message, 'up')).toThrow(expect.objectContaining({ code: 'api_error', invalidAnswer: true }));
});

it('a JSON answer keeps its text blocks only, and is the same object when that is all it has', () => {
  const base = { id: 'm', type: 'message', role: 'assistant', model: 'x', stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } as const;
  const text = { ...base, content: [{ type: 'text', text: 'a' }] } as MessageResponse;
  expect(textOnlyMessage(text, 'up')).toBe(text);
  const mixed = { ...base, content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'text', text: 'a' }, { type: 'redacted_thinking', data: 'd' }, { type: 'text', text: 'b' }] } as MessageResponse;
  expect(textOnlyMessage(mixed, 'up').content).toEqual([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]);
});
