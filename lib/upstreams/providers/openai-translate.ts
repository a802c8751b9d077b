/** Translation between Anthropic Messages and OpenAI Chat Completions (request, response, usage, errors). */
import { GatewayError, SAFE_MESSAGES } from '../../errors';
import { isBlock, textOf } from '../../messages/content';
import type { ContentBlock, MessageResponse, MessagesRequest, TextBlock } from '../../types';
import { badUpstreamAnswer, codeForUpstreamStatus } from '../http/errors';
import type { UsageFigures } from '../types';

/** Which field carries the output bound upstream. */
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

type Content = string | ContentBlock[];
const text = (content: Content): string => textOf(content, '\n');
const parts = (content: Content): string | Array<{ type: 'text'; text: string }> =>
  typeof content === 'string' ? content : content.filter((b) => isBlock(b, 'text')).map((b) => ({ type: 'text' as const, text: (b as TextBlock).text }));

/** Builds the Chat Completions body for a Messages request. */
export function toChatRequest(request: MessagesRequest, field: MaxTokensField, stream: boolean): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [];
  if (request.system !== undefined) messages.push({ role: 'system', content: text(request.system) });
  for (const m of request.messages) messages.push({ role: m.role, content: parts(m.content) });
  const body: Record<string, unknown> = { model: request.model, messages, [field]: request.max_tokens };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.metadata?.user_id) body.user = request.metadata.user_id;
  if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return body;
}

const STOP_REASONS: Readonly<Record<string, string>> = {
  stop: 'end_turn', length: 'max_tokens', content_filter: 'refusal', tool_calls: 'tool_use', function_call: 'tool_use',
};

/** Maps an OpenAI `finish_reason` to an Anthropic `stop_reason` (unknown or null: `end_turn`). */
export function stopReason(finish: unknown): string {
  return (typeof finish === 'string' && STOP_REASONS[finish]) || 'end_turn';
}

interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/** Usage figures from an OpenAI `usage` object: cached prompt tokens are a subset of prompt tokens. */
export function usageFromChat(usage: ChatUsage | null | undefined): UsageFigures | undefined {
  if (!usage || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, usage.prompt_tokens - cached),
    outputTokens: usage.completion_tokens,
    cacheReadInputTokens: cached,
  };
}

/** The Anthropic usage block for usage figures. */
export function messageUsage(figures: UsageFigures | undefined): MessageResponse['usage'] {
  return {
    input_tokens: figures?.inputTokens ?? 0,
    output_tokens: figures?.outputTokens ?? 0,
    cache_creation_input_tokens: figures?.cacheCreationInputTokens ?? 0,
    cache_read_input_tokens: figures?.cacheReadInputTokens ?? 0,
  };
}

interface ChatCompletion {
  choices?: Array<{ message?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: ChatUsage | null;
}

/** Translates a Chat Completions answer; `usage` is undefined when the upstream sent none. */
export function fromChatResponse(body: unknown, id: string, name: string): { message: MessageResponse; usage: UsageFigures | undefined } {
  const completion = body as ChatCompletion;
  const choice = typeof completion === 'object' && completion !== null && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!choice) throw badUpstreamAnswer(`upstream ${name} sent no choices: ${JSON.stringify(body).slice(0, 2000)}`);
  const usage = usageFromChat(completion.usage);
  const content = choice.message?.content ?? '';
  const message: MessageResponse = {
    id, type: 'message', role: 'assistant', model: '',
    content: [{ type: 'text', text: content }],
    stop_reason: stopReason(choice.finish_reason), stop_sequence: null,
    usage: messageUsage(usage),
  };
  return { usage, message };
}

/** Detects an error object in a stream chunk, in the wrapped (`{error:{…}}`) and unwrapped (`{object:"error"}`) shapes. */
export function chunkError(chunk: Record<string, unknown>, name: string): GatewayError | undefined {
  const wrapped = chunk.error && typeof chunk.error === 'object' ? (chunk.error as Record<string, unknown>) : undefined;
  if (!wrapped && chunk.object !== 'error') return undefined;
  const source = wrapped ?? chunk;
  const status = typeof source.code === 'number' ? source.code : 500;
  const code = codeForUpstreamStatus(status);
  return new GatewayError(code, SAFE_MESSAGES[code], { detail: `upstream ${name} stream error: ${JSON.stringify(chunk).slice(0, 2000)}` });
}
