/** A templated delta frame (deltaFrames) must be the bytes of serialising the whole event, whatever the delta, ids and sequence number. */
import fc from 'fast-check';
import { deltaFrames } from '../../../../lib/formats/openai-responses/delta-frames';
import { frame } from '../../../../lib/wire/sse-writer';

/** Deltas as models send them: any code points, lone surrogates, control characters, quotes, and the template's own markers. */
const delta = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.constantFrom('', '"', '\\', '\u0000mgw-delta', '"\u0000mgw-seq"', '\u2028', '\ud800'),
);
const id = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_'), minLength: 1, maxLength: 40 });
const index = fc.nat({ max: 10_000 });
const seq = fc.oneof(fc.nat({ max: 100_000 }), fc.constant(0), fc.constant(Number.MAX_SAFE_INTEGER));

it('writes a text delta event exactly as frame() of the whole event', () => {
  fc.assert(fc.property(id, index, index, fc.array(fc.tuple(delta, seq), { minLength: 1, maxLength: 5 }), (itemId, at, content, events) => {
    const fields = { item_id: itemId, output_index: at, content_index: content, delta: '', logprobs: [] };
    const frames = deltaFrames('response.output_text.delta', fields, 'delta');
    for (const [text, n] of events) {
      expect(frames(text, n)).toBe(frame({ type: 'response.output_text.delta', ...fields, delta: text, sequence_number: n }));
    }
  }), { numRuns: 2000 });
});

it('writes an argument fragment event exactly as frame() of the whole event', () => {
  fc.assert(fc.property(id, index, delta, seq, (itemId, at, text, n) => {
    const fields = { item_id: itemId, output_index: at, delta: '' };
    expect(deltaFrames('response.function_call_arguments.delta', fields, 'delta')(text, n))
      .toBe(frame({ type: 'response.function_call_arguments.delta', ...fields, delta: text, sequence_number: n }));
  }), { numRuns: 2000 });
});
