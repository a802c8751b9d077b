/** Chat Completions ⇄ Messages: the chat route's request in, the message out, in OpenAI's shapes. */
import type { MessageParam, MessageResponse, MessageUsage, MessagesRequest } from '../types';

/** A validated Chat Completions request (V1: text only). */
export interface ChatRequest {
  model: string;
  messages: Array<{ role: 'system' | 'developer' | 'user' | 'assistant'; content: string | Array<{ type: 'text'; text: string }>; name?: string }>;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  user?: string;
}

/** OpenAI's usage block. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

/** A `chat.completion` object. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: 0; message: { role: 'assistant'; content: string; refusal: null }; logprobs: null; finish_reason: string }>;
  usage: ChatUsage;
}

const textOf = (content: ChatRequest['messages'][number]['content']): string =>
  typeof content === 'string' ? content : content.map((part) => part.text).join('');

/**
 * The Messages request for a chat request: system and developer messages become `system`
 * (joined by a blank line), `max_completion_tokens` (or `max_tokens`) the output bound, `user`
 * the metadata's user id. Without a bound, `max_tokens` is left for resolveModel() to default.
 */
export function messagesFromChat(chat: ChatRequest): Omit<MessagesRequest, 'max_tokens'> & { max_tokens?: number } {
  const system: string[] = [];
  const messages: MessageParam[] = [];
  for (const m of chat.messages) {
    if (m.role === 'system' || m.role === 'developer') system.push(textOf(m.content));
    else messages.push({ role: m.role, content: typeof m.content === 'string' ? m.content : m.content.map((p) => ({ type: 'text', text: p.text })) });
  }
  const request: Omit<MessagesRequest, 'max_tokens'> & { max_tokens?: number } = { model: chat.model, messages };
  const bound = chat.max_completion_tokens ?? chat.max_tokens;
  if (bound !== undefined) request.max_tokens = bound;
  if (system.length > 0) request.system = system.join('\n\n');
  if (chat.temperature !== undefined) request.temperature = chat.temperature;
  if (chat.top_p !== undefined) request.top_p = chat.top_p;
  if (chat.stream === true) request.stream = true;
  if (chat.user !== undefined) request.metadata = { user_id: chat.user };
  return request;
}

const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: 'stop', stop_sequence: 'stop', pause_turn: 'stop', max_tokens: 'length', refusal: 'content_filter', tool_use: 'tool_calls',
};

/** OpenAI's `finish_reason` for an Anthropic `stop_reason` (unknown or null: `stop`). */
export function finishReason(stop: unknown): string {
  return (typeof stop === 'string' && FINISH_REASONS[stop]) || 'stop';
}

/** OpenAI's usage for Anthropic usage: prompt tokens include the cached and cache-written ones. */
export function chatUsage(usage: Partial<MessageUsage> | undefined): ChatUsage {
  const cached = usage?.cache_read_input_tokens ?? 0;
  const prompt = (usage?.input_tokens ?? 0) + cached + (usage?.cache_creation_input_tokens ?? 0);
  const completion = usage?.output_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } };
}

/** The `chat.completion` for a whole message. */
export function completionFromMessage(message: MessageResponse, id: string, model: string, created: number): ChatCompletion {
  const content = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  return {
    id, object: 'chat.completion', created, model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: finishReason(message.stop_reason) }],
    usage: chatUsage(message.usage),
  };
}
