/** The template-written JSON of the gateway's own answers is byte for byte JSON.stringify's. */
import fc from 'fast-check';
import { messageText, usageText } from '../../lib/json-text';
import type { MessageResponse } from '../../lib/types';

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u2028', '\ud800', '</script>'));
const number = fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.constantFrom(Infinity, -Infinity, Number.NaN, -0, 1e21, 5e-324));
const usage = fc.record({
  input_tokens: number, output_tokens: number,
  cache_creation_input_tokens: fc.option(number), cache_read_input_tokens: fc.option(number),
});

describe('json-text', () => {
  it('writes a message as JSON.stringify does', () => {
    const message = fc.record({
      id: text, type: fc.constant('message' as const), role: fc.constant('assistant' as const), model: text,
      content: fc.array(fc.record({ type: fc.constant('text' as const), text }), { maxLength: 3 }),
      stop_reason: fc.option(text), stop_sequence: fc.option(text), usage,
    });
    fc.assert(fc.property(message, (m: MessageResponse) => {
      expect(messageText(m)).toBe(JSON.stringify(m));
      expect(usageText(m.usage)).toBe(JSON.stringify(m.usage));
    }), { numRuns: 2000 });
  });
});
