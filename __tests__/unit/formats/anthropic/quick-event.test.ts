/** The Anthropic stream's quick reading of content deltas (lib/formats/anthropic/quick-event.ts) must give what JSON.parse gives, or decline. */
import fc from 'fast-check';
import { quickDelta } from '../../../../lib/formats/anthropic/quick-event';
import { parseEventData } from '../../../../lib/formats/anthropic';

/** Any string, lone surrogates and control characters included. */
const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }));

/** A delta as Anthropic writes it: text, thinking or argument fragment, at any index. */
const canonical = fc.tuple(fc.oneof(fc.nat(1000), fc.nat(2 ** 31)), fc.constantFrom(['text_delta', 'text'], ['thinking_delta', 'thinking'], ['input_json_delta', 'partial_json']), text)
  .map(([index, [type, field], value]) => JSON.stringify({ type: 'content_block_delta', index, delta: { type, [field as string]: value } }));

/** The same value, field order included (what a re-serialising consumer writes). */
const same = (quick: unknown, data: string): void => expect(JSON.stringify(quick)).toBe(JSON.stringify(JSON.parse(data)));

it('reads a canonical delta as JSON.parse does, field order included, whatever its string holds', () => {
  let read = 0;
  fc.assert(fc.property(canonical, (data) => {
    const quick = quickDelta(data);
    if (quick) read++;
    if (quick) same(quick, data);
  }), { numRuns: 3000 });
  expect(read).toBeGreaterThan(2000); // indexes of 10 digits are declined, the rest read
});

it('declines, or reads exactly, any edit of a canonical delta: spaces, other fields and types, escapes, broken JSON', () => {
  const edit = fc.tuple(canonical, fc.nat(300), fc.nat(8), fc.constantFrom(' ', '"', '\\', '}', '{', ',', '0', '1', 'null', '"citation":{},', '"signature_delta"', '\\u0041', '\\x', '\n', '"index":2,'));
  fc.assert(fc.property(edit, ([data, at, cut, insert]) => {
    const i = Math.min(at, data.length);
    const edited = data.slice(0, i) + insert + data.slice(Math.min(data.length, i + cut % 3));
    const quick = quickDelta(edited);
    if (!quick) return;
    let parsed: unknown;
    try { parsed = JSON.parse(edited); } catch { throw new Error(`read invalid JSON: ${edited}`); }
    expect(JSON.stringify(quick)).toBe(JSON.stringify(parsed));
  }), { numRuns: 5000 });
});

it('declines every other event, and parseEventData reads them as before', () => {
  for (const data of [
    '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"x"}}}',
    '{"type":"content_block_delta", "index":0,"delta":{"type":"text_delta","text":"a"}}',
    '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}',
    '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad \\q escape"}}',
  ]) expect(quickDelta(data)).toBeUndefined();
  expect(parseEventData('{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"a\\"b"}}', 'up'))
    .toEqual({ type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'a"b' } });
  expect(() => parseEventData('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad \\q"}}', 'up'))
    .toThrow(expect.objectContaining({ detail: expect.stringMatching(/invalid stream event/) }));
});
