/** The chat stream's quick reading (lib/formats/openai-chat/quick-chunk.ts) must mean what JSON.parse reads, or decline. */
import fc from 'fast-check';
import { quickChunk } from '../../../../lib/formats/openai-chat/quick-chunk';

/** Any string, lone surrogates and control characters included. */
const text = fc.string({ unit: 'binary' });

/** What the translator reads of a chunk: its first choice's delta and finish reason, and its usage. */
const meaning = (chunk: Record<string, unknown>): unknown => {
  const choice = (chunk.choices as Array<Record<string, unknown>> | undefined)?.[0];
  return { delta: choice?.delta, finish: choice?.finish_reason ?? null, usage: chunk.usage ?? null, error: chunk.error, object: chunk.object === 'error' };
};

/** A chunk as OpenAI writes it: a text delta or an argument fragment, with the optional fields each way. */
const canonical = fc.record({
  id: text, created: fc.integer({ min: 0, max: 2 ** 40 }), model: text,
  fingerprint: fc.option(fc.option(text, { nil: null }), { nil: undefined }),
  delta: fc.oneof(text.map((content) => ({ content })), fc.tuple(fc.nat(30), text).map(([index, args]) => ({ tool_calls: [{ index, function: { arguments: args } }] }))),
  logprobs: fc.boolean(), usage: fc.boolean(),
}).map((c) => JSON.stringify({
  id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model,
  ...(c.fingerprint !== undefined ? { system_fingerprint: c.fingerprint } : {}),
  choices: [{ index: 0, delta: c.delta, ...(c.logprobs ? { logprobs: null } : {}), finish_reason: null }],
  ...(c.usage ? { usage: null } : {}),
}));

it('reads a canonical text delta or argument fragment as JSON.parse does, whatever its strings hold', () => {
  let read = 0;
  fc.assert(fc.property(canonical, (data) => {
    const quick = quickChunk(data);
    if (quick) read++;
    if (quick) expect(meaning(quick as Record<string, unknown>)).toEqual(meaning(JSON.parse(data) as Record<string, unknown>));
  }), { numRuns: 3000 });
  expect(read).toBeGreaterThan(1000); // ids and models with escapes are declined, the rest read
});

it('declines, or reads exactly, any edit of a canonical chunk: spaces, other fields, usage, finish reasons, errors, broken JSON', () => {
  const edit = fc.tuple(canonical, fc.nat(400), fc.nat(8), fc.constantFrom(' ', '"', '\\', '}', ']', ',', '0', '1', 'null', '"usage":{"prompt_tokens":1,"completion_tokens":2},', '"finish_reason":"stop"', '\\u0041', '\\x', '\n', '"error":{},', '"object":"error",'));
  fc.assert(fc.property(edit, ([data, at, cut, insert]) => {
    const i = Math.min(at, data.length);
    const edited = data.slice(0, i) + insert + data.slice(Math.min(data.length, i + cut % 3));
    const quick = quickChunk(edited);
    if (!quick) return;
    let parsed: unknown;
    try { parsed = JSON.parse(edited); } catch { throw new Error(`read invalid JSON: ${edited}`); }
    expect(meaning(quick as Record<string, unknown>)).toEqual(meaning(parsed as Record<string, unknown>));
  }), { numRuns: 5000 });
});

it('declines the chunks that carry anything but a delta: usage, finish reasons, roles with names, errors', () => {
  const env = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
  for (const chunk of [
    { ...env, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { ...env, choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } },
    { ...env, choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }], usage: { prompt_tokens: 1, completion_tokens: 2 } },
    { ...env, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] }, finish_reason: null }] },
    { ...env, choices: [{ index: 1, delta: { content: 'a' }, finish_reason: null }] },
    { error: { message: 'boom', code: 500 } },
  ]) expect(quickChunk(JSON.stringify(chunk))).toBeUndefined();
  expect(quickChunk(`{"id":"c", "object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`)).toBeUndefined();
  expect(quickChunk(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a\\x"},"finish_reason":null}]}`)).toBeUndefined();
});
