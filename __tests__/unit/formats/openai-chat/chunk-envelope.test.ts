/** The chat route's speed trick (lib/formats/openai-chat/chunk-envelope.ts): its frames must be the bytes JSON.stringify writes for the whole chunk. */
import fc from 'fast-check';
import { chunkFrames, stringFrames } from '../../../../lib/formats/openai-chat/chunk-envelope';

/** Any string, lone surrogates and control characters included. */
const text = fc.string({ unit: 'binary' });

it('writes each chunk exactly as JSON.stringify of the whole chunk would', () => {
  fc.assert(fc.property(
    text, text, fc.integer({ min: 0, max: 2 ** 40 }), fc.boolean(),
    fc.record({ role: fc.constantFrom(undefined, 'assistant'), content: fc.option(text, { nil: undefined }) }, { requiredKeys: [] }),
    fc.constantFrom(null, 'stop', 'length', 'content_filter'),
    (id, model, created, includeUsage, delta, finish) => {
      const choice = { index: 0, delta, logprobs: null, finish_reason: finish };
      const whole = { id, object: 'chat.completion.chunk', created, model, choices: [choice], ...(includeUsage ? { usage: null } : {}) };
      expect(chunkFrames({ id, created, model, includeUsage })(choice)).toBe(`data: ${JSON.stringify(whole)}\n\n`);
    },
  ), { numRuns: 2000 });
});

it('writes a templated frame (one string varies) exactly as the whole choice would be written', () => {
  fc.assert(fc.property(
    text, text, fc.integer({ min: 0, max: 2 ** 40 }), fc.boolean(), fc.nat(20), fc.array(text, { minLength: 1, maxLength: 4 }),
    (id, model, created, includeUsage, index, values) => {
      const frameOf = chunkFrames({ id, created, model, includeUsage });
      const content = stringFrames(frameOf, (v) => ({ index: 0, delta: { content: v }, logprobs: null, finish_reason: null }));
      const args = stringFrames(frameOf, (v) => ({ index: 0, delta: { tool_calls: [{ index, function: { arguments: v } }] }, logprobs: null, finish_reason: null }));
      for (const v of values) {
        expect(content(v)).toBe(frameOf({ index: 0, delta: { content: v }, logprobs: null, finish_reason: null }));
        expect(args(v)).toBe(frameOf({ index: 0, delta: { tool_calls: [{ index, function: { arguments: v } }] }, logprobs: null, finish_reason: null }));
      }
    },
  ), { numRuns: 1000 });
});
