/** The chat route's speed trick (lib/formats/openai-chat/chunk-envelope.ts): its frames must be the bytes JSON.stringify writes for the whole chunk. */
import fc from 'fast-check';
import { chunkFrames } from '../../../../lib/formats/openai-chat/chunk-envelope';

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
