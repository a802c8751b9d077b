/** ChunkShape: chunks read without JSON.parse translate exactly as parsed ones, and the shape is learned. */
import fc from 'fast-check';
import { rawText } from '../../lib/raw-text';
import { frame } from '../../lib/streaming/sse-writer';
import type { StreamEvent } from '../../lib/types';
import { stringEnd } from '../../lib/upstreams/openai-chunk-shape';
import { ChatStreamTranslator } from '../../lib/upstreams/openai-stream';

/** JSON text as Python's json.dumps writes it by default: every non-ASCII character escaped. */
const asciiJson = (value: unknown): string => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const tricky = fc.constantFrom('', 'a', '"', '\\', '\u0000', '\n', 'é', '\u2028', '\ud800', '😀', '"delta":{"content":"x"}', ',"obfuscation":"', '\\u0000');
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), tricky, fc.array(tricky).map((parts) => parts.join('')));

describe('stringEnd', () => {
  it('accepts exactly the JSON string literals', () => {
    const char = fc.constantFrom('a', '"', '\\', 'u', '0', 'f', 'F', 'g', 'n', 'b', '/', '\n', '\u0001', '\u001f', 'é', ' ');
    fc.assert(fc.property(fc.array(char).map((c) => `"${c.join('')}"`), (literal) => {
      let valid: boolean;
      try {
        valid = typeof JSON.parse(literal) === 'string';
      } catch {
        valid = false;
      }
      expect(stringEnd(literal, 0) === literal.length).toBe(valid);
    }), { numRuns: 5000 });
  });

  it('finds the end of any serialised string, followed by anything', () => {
    fc.assert(fc.property(text, fc.boolean(), fc.string(), (s, ascii, after) => {
      const literal = ascii ? asciiJson(s) : JSON.stringify(s);
      expect(stringEnd(`x${literal}${after}`, 1)).toBe(literal.length + 1);
    }));
  });
});

/** The events of a translated stream, each as its SSE event name and parsed data, and whether it had its finish reason. */
function translate(datas: readonly string[], shape: boolean): { events: unknown[]; parsed: number; finished?: boolean; error?: string } {
  const translator = new ChatStreamTranslator('msg_1', 'pub', 'up', shape);
  const events: StreamEvent[] = [];
  for (const data of datas) {
    const failure = translator.read({ data, event: undefined, id: undefined }, events);
    if (failure) return { events: events.map(decode), parsed: translator.parsed, error: failure.detail };
  }
  const finished = translator.finished;
  translator.end(events);
  for (const event of events) {
    // The translator's own events carry their text, written from templates: it must be the object's JSON.
    const raw = rawText(event);
    if (raw !== undefined && event.type !== 'content_block_delta') expect(raw).toBe(JSON.stringify({ ...event }));
  }
  return { events: events.map(decode), parsed: translator.parsed, finished };
}
const decode = (event: StreamEvent): unknown => {
  const [name, data] = frame(event).split('\n');
  return [name, JSON.parse((data ?? '').slice('data: '.length))];
};

/** A stream as OpenAI (obfuscation, usage:null), vLLM (neither) or others write it, in compact or spaced JSON. */
const stream = fc.record({
  id: text, model: text, texts: fc.array(text, { maxLength: 12 }),
  obfuscation: fc.boolean(), usageNull: fc.boolean(), ascii: fc.boolean(), spaced: fc.boolean(), usage: fc.boolean(),
  odd: fc.nat({ max: 6 }), finishWithText: fc.boolean(), tokens: fc.oneof(fc.nat(), fc.double({ min: 0 })),
});

describe('ChatStreamTranslator with a learned chunk shape', () => {
  it('gives the same events as parsing every chunk, for any stream', () => {
    fc.assert(fc.property(stream, fc.string({ minLength: 1, maxLength: 6 }), (s, pad) => {
      const chunk = (delta: object, finish: string | null, i: number): string => {
        const body: Record<string, unknown> = { id: s.id, object: 'chat.completion.chunk', created: 1, model: s.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
        if (s.usageNull) body.usage = null;
        if (s.odd === i) body.usage = { prompt_tokens: 5, completion_tokens: i }; // usage on a text chunk
        if (s.obfuscation) body.obfuscation = pad.repeat(i % 3);
        return s.spaced ? JSON.stringify(body, null, 1) : s.ascii ? asciiJson(body) : JSON.stringify(body);
      };
      const last = s.texts.length;
      const datas = [chunk({ role: 'assistant', content: '' }, null, 0), ...s.texts.map((t, i) => chunk({ content: t }, s.finishWithText && i + 1 === last ? 'stop' : null, i + 1))];
      if (!s.finishWithText) datas.push(chunk({}, 'stop', 99));
      if (s.usage) datas.push(JSON.stringify({ id: s.id, choices: [], usage: { prompt_tokens: 7, completion_tokens: s.tokens, prompt_tokens_details: { cached_tokens: 2 } } }));
      const { parsed: _fewer, ...fast } = translate(datas, true);
      const { parsed: _all, ...slow } = translate(datas, false);
      expect(fast).toEqual(slow);
    }), { numRuns: 1500 });
  });

  it('parses only the chunks that differ from the shape (OpenAI and vLLM), and what follows a change', () => {
    const openai = (content: string, pad: string, finish: string | null = null): string =>
      `{"id":"chatcmpl-D0q8","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini","service_tier":"default","system_fingerprint":"fp_2933","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}],"obfuscation":"${pad}"}`;
    const words = Array.from({ length: 20 }, (_, i) => `word ${i} "quoted" \\ é\n`);
    const run = translate([openai('', 'a'), ...words.map((w, i) => openai(w, 'xyz'.slice(0, i % 4))), openai('', 'q', 'stop')], true);
    expect(run.parsed).toBe(2); // the first, which the shape is learned from, and the finish
    const texts = run.events.filter((e) => (e as [string])[0] === 'event: content_block_delta').map((e) => (e as [string, { delta: { text: string } }])[1].delta.text);
    expect(texts).toEqual(words);

    const vllm = (content: string): string => `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}]}`;
    const usage = '{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":20}}';
    expect(translate([...words.map(vllm), usage], true).parsed).toBe(2);
    // A chunk that breaks the shape is parsed; a bad literal is an error, as when parsed.
    expect(translate([vllm('a'), vllm('b'), vllm('c').replace('"c"', '"c\u0001"')], true).error).toMatch(/invalid chunk/);
    // A chunk as long as the shape, that differs after the text: it carries usage.
    const withUsage = vllm('b').replace('}]}', '}],"usage":{"prompt_tokens":5,"completion_tokens":7}}');
    const padded = vllm('a').replace('}]}', `}],"p":"${'x'.repeat(withUsage.length - vllm('a').length - 7)}"}`);
    expect(padded.length).toBe(withUsage.length);
    expect(translate([padded, withUsage], true)).toEqual(translate([padded, withUsage], false));
    // Text that only looks like the field: the shape must not take it for the text.
    const decoy = (x: string): string => `{"x":{"delta":{"content":"${x}"}},"choices":[{"index":0,"delta":{"role":"assistant","content":"a"},"finish_reason":null}]}`;
    expect(translate([decoy('p'), decoy('q')], true)).toEqual(translate([decoy('p'), decoy('q')], false));
    const model = (m: string, content: string): string => vllm(content).replace('"m"', `"${m}"`);
    expect(translate([vllm('a'), vllm('b'), model('n', 'c'), model('n', 'd')], true).parsed).toBe(2); // learned again
    expect(translate([vllm('a'), model('n', 'c'), model('o', 'e'), model('o', 'f')], true).parsed).toBe(4); // twice at most
  });

  it('writes its own events as their JSON, even for usage figures JSON cannot hold', () => {
    // 1e400 parses to Infinity, which JSON.stringify writes as null (a template would write "Infinity").
    const usage = '{"id":"c","choices":[],"usage":{"prompt_tokens":1e400,"completion_tokens":2.5}}';
    const run = translate(['{"id":"c","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"length"}]}', usage], true);
    expect(run.events.at(-2)).toEqual(['event: message_delta', {
      type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null },
      usage: { input_tokens: null, output_tokens: 2.5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    }]);
  });
});
