/**
 * Round trips through lib/formats/openai-chat: a chat request through Messages and back, a Messages
 * request through chat and back, a Message through a chat completion and back, and a Message's
 * stream through chat chunks and back, each for any request or answer in the form the translation
 * keeps (text-only prompts as strings, tool results first in their user turn, reasoning on tool-call turns).
 */
import type { EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import type { MessageResponse, MessagesRequest, StreamEvent } from '../../../../lib';
import type { ContentBlock } from '../../../../lib/messages/content';
import { completionFromMessage } from '../../../../lib/formats/openai-chat/answer-to-chat';
import { fromChatCompletion } from '../../../../lib/formats/openai-chat/answer-from-chat';
import { messagesFromChat } from '../../../../lib/formats/openai-chat/request-from-chat';
import { toChatRequest } from '../../../../lib/formats/openai-chat/request-to-chat';
import { ChatChunks } from '../../../../lib/formats/openai-chat/stream-to-chunks';
import { ChatStreamTranslator } from '../../../../lib/formats/openai-chat/stream-to-events';
import { nameRestorer } from '../../../../lib/formats/openai-chat/tool-names';
import type { ChatMessage, ChatRequest } from '../../../../lib/formats/openai-chat/types';
import { parseFrames } from '../../../helpers/stream-grammar';

type Json = Record<string, unknown>;
const RUNS = 300;

const text = fc.string({ maxLength: 12 });
const someText = fc.string({ minLength: 1, maxLength: 12 });
const name = fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/);
const id = fc.stringMatching(/^[a-zA-Z0-9_-]{1,24}$/);
const base64 = fc.base64String({ minLength: 4, maxLength: 24 });
const input = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((o) => JSON.parse(JSON.stringify(o)) as Json);
const schema = fc.record({ type: fc.constant('object' as const), properties: fc.dictionary(name, fc.constant({ type: 'string' }), { maxKeys: 2 }) });
const field = fc.constantFrom('reasoning_content' as const, 'reasoning' as const);

describe('a chat request through Messages and back', () => {
  const image = fc.oneof(
    fc.tuple(fc.constantFrom('image/png', 'image/jpeg'), base64).map(([m, d]) => ({ type: 'image_url' as const, image_url: { url: `data:${m};base64,${d}` } })),
    fc.webUrl().map((url) => ({ type: 'image_url' as const, image_url: { url } })),
    fc.tuple(someText, base64).map(([filename, d]) => ({ type: 'file' as const, file: { filename, file_data: `data:application/pdf;base64,${d}` } })),
  );
  // A text-only prompt travels as a string: parts come with an image or a PDF among them.
  const userContent = fc.oneof(text, fc.tuple(fc.array(fc.oneof(text.map((t) => ({ type: 'text' as const, text: t })), image), { maxLength: 3 }), image).map(([parts, img]) => [...parts, img]));
  const call = fc.record({ id, type: fc.constant('function' as const), function: fc.record({ name, arguments: input.map((o) => JSON.stringify(o)) }) });
  const exchange: fc.Arbitrary<ChatMessage[]> = fc.oneof(
    userContent.map((content): ChatMessage[] => [{ role: 'user', content }]),
    text.map((content): ChatMessage[] => [{ role: 'assistant', content }]),
    fc.tuple(text, fc.uniqueArray(call, { minLength: 1, maxLength: 3, selector: (c) => c.id }), fc.option(fc.tuple(field, text)), fc.array(text, { minLength: 3, maxLength: 3 }))
      .map(([content, calls, reasoning, results]): ChatMessage[] => [
        { role: 'assistant', content, tool_calls: calls, ...(reasoning ? { [reasoning[0]]: reasoning[1] } : {}) },
        ...calls.map((c, i) => ({ role: 'tool' as const, tool_call_id: c.id, content: results[i] as string })),
      ]),
  );
  const tool = fc.record({ type: fc.constant('function' as const), function: fc.record({ name, description: text, parameters: schema, strict: fc.boolean() }, { requiredKeys: ['name', 'parameters'] }) });
  const chat: fc.Arbitrary<ChatRequest> = fc.record({
    model: someText,
    messages: fc.tuple(fc.option(text), fc.array(exchange, { minLength: 1, maxLength: 5 })).map(([system, xs]) => [...(system === null ? [] : [{ role: 'system' as const, content: system }]), ...xs.flat()]),
    max_completion_tokens: fc.integer({ min: 1, max: 100_000 }),
    temperature: fc.double({ min: 0, max: 1, noNaN: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    stop: fc.array(someText, { minLength: 1, maxLength: 4 }),
    user: someText,
    tools: fc.array(tool, { minLength: 1, maxLength: 3 }),
    tool_choice: fc.oneof(fc.constantFrom('auto' as const, 'none' as const, 'required' as const), name.map((n) => ({ type: 'function' as const, function: { name: n } }))),
    parallel_tool_calls: fc.constant(false),
    response_format: schema.map((s) => ({ type: 'json_schema', json_schema: { name: 'output', schema: s } })),
  }, { requiredKeys: ['model', 'messages', 'max_completion_tokens'] }).filter((c) => c.parallel_tool_calls === undefined || c.tool_choice !== undefined);

  it('comes back as it was sent', () => {
    fc.assert(fc.property(chat, (request) => {
      const messages = messagesFromChat(request) as MessagesRequest;
      expect(toChatRequest(messages, 'max_completion_tokens', false)).toEqual(request);
    }), { numRuns: RUNS });
  });
});

describe('a Messages request through chat and back', () => {
  const prompt = fc.oneof(
    someText.map((t): ContentBlock => ({ type: 'text', text: t })),
    fc.tuple(fc.constantFrom('image/png', 'image/webp'), base64).map(([media_type, data]): ContentBlock => ({ type: 'image', source: { type: 'base64', media_type, data } })),
    fc.webUrl().map((url): ContentBlock => ({ type: 'image', source: { type: 'url', url } })),
    fc.tuple(someText, base64).map(([title, data]): ContentBlock => ({ type: 'document', title, source: { type: 'base64', media_type: 'application/pdf', data } })),
  );
  const media = prompt.filter((b) => b.type !== 'text');
  const result = fc.record({ type: fc.constant('tool_result' as const), tool_use_id: id, content: text });
  // A user turn's blocks: tool results first, then one text, or any prompt blocks among which an image or a PDF.
  const userBlocks = fc.oneof(
    fc.tuple(fc.array(prompt, { maxLength: 2 }), media).map(([bs, m]) => [...bs, m]),
    fc.tuple(fc.array(result, { minLength: 1, maxLength: 3 }), fc.oneof(fc.constant([]), someText.map((t) => [{ type: 'text', text: t }]), fc.tuple(fc.array(prompt, { maxLength: 2 }), media).map(([bs, m]) => [...bs, m])))
      .map(([rs, rest]) => [...rs, ...rest]),
  );
  const assistantBlocks = fc.tuple(fc.option(fc.tuple(field, text)), fc.option(someText), fc.array(fc.record({ type: fc.constant('tool_use' as const), id, name, input }), { minLength: 1, maxLength: 3 }))
    .map(([thinking, t, calls]) => [
      ...(thinking ? [{ type: 'thinking', thinking: thinking[1], signature: `model-gateway:v1:${thinking[0]}` }] : []), ...(t === null ? [] : [{ type: 'text', text: t }]), ...calls,
    ]);
  const turn = fc.oneof(
    fc.record({ role: fc.constant('user' as const), content: fc.oneof(text, userBlocks) }),
    fc.record({ role: fc.constant('assistant' as const), content: fc.oneof(text, assistantBlocks) }),
  );
  const tool = fc.record({ name, description: text, input_schema: schema, strict: fc.boolean() }, { requiredKeys: ['name', 'input_schema'] });
  const hasResults = (t: { content: unknown } | undefined): boolean => Array.isArray(t?.content) && (t.content[0] as Json | undefined)?.type === 'tool_result';
  const request = fc.record({
    model: someText,
    max_tokens: fc.integer({ min: 1, max: 100_000 }),
    system: text,
    // A user turn next to a user turn of tool results joins it (chat has no turn boundary after tool messages): none in the kept form.
    messages: fc.array(turn, { minLength: 1, maxLength: 6 }).filter((ts) => ts.every((t, i) => i === 0 || t.role !== 'user' || ts[i - 1]?.role !== 'user' || (!hasResults(t) && !hasResults(ts[i - 1])))),
    temperature: fc.double({ min: 0, max: 1, noNaN: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    stop_sequences: fc.array(someText, { minLength: 1, maxLength: 4 }),
    metadata: someText.map((user_id) => ({ user_id })),
    tools: fc.array(tool, { minLength: 1, maxLength: 3 }),
    tool_choice: fc.oneof(
      fc.record({ type: fc.constantFrom('auto' as const, 'any' as const, 'none' as const), disable_parallel_tool_use: fc.constant(true) }, { requiredKeys: ['type'] }),
      fc.record({ type: fc.constant('tool' as const), name, disable_parallel_tool_use: fc.constant(true) }, { requiredKeys: ['type', 'name'] }),
    ),
    output_config: schema.map((s) => ({ format: { type: 'json_schema', schema: s } })),
  }, { requiredKeys: ['model', 'max_tokens', 'messages'] });

  it('comes back as it was sent', () => {
    fc.assert(fc.property(request, (m) => {
      const chat = toChatRequest(m as MessagesRequest, 'max_tokens', false) as unknown as ChatRequest;
      expect(messagesFromChat(chat)).toEqual(m);
    }), { numRuns: RUNS });
  });
});

/** A Message in the form an OpenAI answer can carry: reasoning, text, calls; the stop reason follows the calls. */
const message: fc.Arbitrary<MessageResponse> = fc.tuple(
  fc.option(someText), fc.option(someText), fc.array(fc.record({ type: fc.constant('tool_use' as const), id, name, input }), { maxLength: 3 }),
  fc.constantFrom('end_turn', 'max_tokens', 'refusal'), fc.nat(100_000), fc.nat(100_000), fc.nat(100_000),
).filter(([r, t, calls]) => r !== null || t !== null || calls.length > 0).map(([reasoning, t, calls, stop, input_tokens, output_tokens, cached]) => ({
  id: 'msg_1', type: 'message', role: 'assistant', model: '', stop_sequence: null,
  content: [...(reasoning === null ? [] : [{ type: 'thinking', thinking: reasoning, signature: 'model-gateway:v1:reasoning_content' }]), ...(t === null ? [] : [{ type: 'text', text: t }]), ...calls],
  stop_reason: calls.length > 0 && stop !== 'max_tokens' ? 'tool_use' : calls.length > 0 ? stop : stop,
  usage: { input_tokens, output_tokens, cache_read_input_tokens: cached, cache_creation_input_tokens: 0 },
}) as MessageResponse).filter((m) => !(m.stop_reason === 'refusal' && m.content.some((b) => b.type === 'tool_use')));

it('a Message through a chat completion and back', () => {
  fc.assert(fc.property(message, (m) => {
    const completion = completionFromMessage(m, 'chatcmpl-1', 'model', 1);
    expect(fromChatCompletion(JSON.parse(JSON.stringify(completion)), 'msg_1', 'upstream', nameRestorer(undefined)).message).toEqual(m);
  }), { numRuns: RUNS });
});

/** The events that stream `m`, every text, thinking and input cut into pieces at `cuts`. */
function eventsOf(m: MessageResponse, cuts: number[]): StreamEvent[] {
  const split = (s: string): string[] => {
    const at = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b);
    return [0, ...at, s.length].slice(1).map((end, i, ends) => s.slice(i === 0 ? 0 : ends[i - 1], end)).filter((p) => p !== '');
  };
  const events: StreamEvent[] = [{ type: 'message_start', message: { ...m, content: [], stop_reason: null, usage: { input_tokens: 0, output_tokens: 0 } } }];
  m.content.forEach((b, index) => {
    const block = b as Json;
    if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const p of split(block.thinking as string)) events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: p } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const p of split(block.text as string)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      for (const p of split(JSON.stringify(block.input))) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: m.stop_reason, stop_sequence: null }, usage: m.usage }, { type: 'message_stop' });
  return events;
}

/** The Message a list of events builds, as the SDKs accumulate it. */
function accumulate(events: readonly StreamEvent[]): MessageResponse {
  let message: MessageResponse | undefined;
  const json: string[] = [];
  for (const e of events) {
    const block = message?.content[e.index as number] as Json | undefined;
    const d = e.delta as Json;
    if (e.type === 'message_start') message = { ...(e.message as MessageResponse), content: [] };
    else if (e.type === 'content_block_start') message?.content.push({ ...(e.content_block as ContentBlock) });
    else if (e.type === 'content_block_delta' && block) {
      if (d.type === 'text_delta') block.text = String(block.text) + String(d.text);
      if (d.type === 'thinking_delta') block.thinking = String(block.thinking) + String(d.thinking);
      if (d.type === 'signature_delta') block.signature = d.signature;
      if (d.type === 'input_json_delta') json[e.index as number] = (json[e.index as number] ?? '') + String(d.partial_json);
    } else if (e.type === 'content_block_stop' && block?.type === 'tool_use') block.input = JSON.parse(json[e.index as number] || '{}');
    else if (e.type === 'message_delta' && message) Object.assign(message, { stop_reason: d.stop_reason, usage: e.usage });
  }
  return message as MessageResponse;
}

it('a Message streamed through chat chunks and back, cut anywhere', () => {
  fc.assert(fc.property(message, fc.array(fc.nat(40), { maxLength: 6 }), (m, cuts) => {
    const frames = parseFrames(new ChatChunks('c1', 'model', 1, true).framesOf(eventsOf(m, cuts)));
    const translator = new ChatStreamTranslator('msg_1', '', 'upstream', nameRestorer(undefined));
    const events: StreamEvent[] = [];
    for (const f of frames) if (f.data !== '[DONE]') expect(translator.read({ data: JSON.stringify(f.data) } as EventSourceMessage, events)).toBeUndefined();
    expect(translator.end(events)).toBeUndefined();
    expect(accumulate(events)).toEqual(m);
  }), { numRuns: RUNS });
});
