/** A local stand-in upstream (no network): echoes the prompt, so the quick start works with no provider. */
import { textOf } from '../../messages/content';
import type { StreamEvent } from '../../messages/events';
import type { MessageResponse, MessagesRequest } from '../../messages/request';
import type { MessagesAdapter, UpstreamCallContext } from '../types';

const words = (request: MessagesRequest): string[] => {
  const text = textOf(request.messages.at(-1)?.content ?? '', ' ');
  return `[local stand-in, not a model] You said: ${text}`.split(/(?<= )/).slice(0, Math.max(1, request.max_tokens));
};
const inputTokens = (request: MessagesRequest): number => Math.ceil(JSON.stringify(request.messages).length / 4);

/**
 * A Messages adapter that answers locally by echoing the last user message, clearly
 * labelled as a stand-in. It reports its own word counts as usage, so billing works end to
 * end in the quick start. Never use it in production.
 */
export function localStandIn(): MessagesAdapter {
  async function create(request: MessagesRequest, ctx: UpstreamCallContext): Promise<MessageResponse> {
    const out = words(request);
    const usage = { input_tokens: inputTokens(request), output_tokens: out.length, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    ctx.usage.report({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
    ctx.usage.complete();
    return {
      id: `msg_local_${ctx.requestId.slice(4, 20)}`, type: 'message', role: 'assistant', model: request.model,
      content: [{ type: 'text', text: out.join('') }], stop_reason: 'end_turn', stop_sequence: null, usage,
    };
  }
  async function* stream(request: MessagesRequest, ctx: UpstreamCallContext): AsyncGenerator<StreamEvent> {
    const message = await create(request, ctx);
    const text = textOf(message.content);
    yield { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 0 } } };
    yield { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
    for (const piece of text.split(/(?<= )/)) yield { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } };
    yield { type: 'content_block_stop', index: 0 };
    yield { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } };
    yield { type: 'message_stop' };
  }
  return Object.freeze({ kind: 'messages' as const, name: 'local-stand-in', format: 'anthropic' as const, create, stream });
}
