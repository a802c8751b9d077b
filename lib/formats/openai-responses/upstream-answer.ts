/**
 * Responses → Messages, the answer: a Responses upstream's response object as a Message, its usage
 * as the gateway's figures (Responses counts cached and cache-write tokens inside `input_tokens`),
 * its status as a stop reason, a failure as a standard error. Shared by the JSON answer and the stream.
 */
import { GatewayError, SAFE_MESSAGES, type ErrorCode } from '../../foundation/errors';
import { badUpstreamAnswer, invalidAnswer } from '../../foundation/answer-errors';
import { isCount, reportedFigure } from '../../billing/reported-figure';
import { toolArguments, type ContentBlock } from '../../messages/content';
import type { MessageResponse, MessageUsage } from '../../messages/request';
import type { UsageFigures } from '../../types';
import { toolUseIdOf } from './ids';
import { thinkingOf, type UpstreamReasoning } from './upstream-reasoning';

type Item = Record<string, unknown>;

/**
 * The figures of a Responses usage: cache reads = `cached_tokens`, cache writes =
 * `cache_write_tokens` (when given), fresh input = `input_tokens` less both; output tokens as
 * given (reasoning tokens are inside them). Undefined without both token counts; a figure that is
 * not a count is passed on as written (the recorder flags it), never subtracted.
 */
export function usageFromResponses(usage: unknown): UsageFigures | undefined {
  const u = (typeof usage === 'object' && usage !== null ? usage : {}) as { input_tokens?: unknown; output_tokens?: unknown; input_tokens_details?: { cached_tokens?: unknown; cache_write_tokens?: unknown } | null };
  const input = reportedFigure(u.input_tokens);
  const output = reportedFigure(u.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const cached = reportedFigure(u.input_tokens_details?.cached_tokens) ?? 0;
  const written = reportedFigure(u.input_tokens_details?.cache_write_tokens);
  const writes = written === undefined || written === 0 ? {} : { cacheCreationInputTokens: written };
  if (!isCount(input) || !isCount(cached) || (written !== undefined && !isCount(written))) return { inputTokens: input, outputTokens: output, cacheReadInputTokens: cached, ...writes };
  const read = Math.min(input, cached);
  const write = Math.min(input - read, written ?? 0);
  return { inputTokens: input - read - write, outputTokens: output, cacheReadInputTokens: read, ...(write > 0 ? { cacheCreationInputTokens: write } : {}) };
}

/** The Anthropic usage block of a Responses usage (zeros where none), with the reasoning tokens as `output_tokens_details.thinking_tokens`. */
export function messageUsageOf(usage: unknown): MessageUsage {
  const f = usageFromResponses(usage);
  const reasoning = (usage as { output_tokens_details?: { reasoning_tokens?: unknown } } | null | undefined)?.output_tokens_details?.reasoning_tokens;
  return {
    input_tokens: f?.inputTokens ?? 0, output_tokens: f?.outputTokens ?? 0,
    cache_creation_input_tokens: f?.cacheCreationInputTokens ?? 0, cache_read_input_tokens: f?.cacheReadInputTokens ?? 0,
    ...(typeof reasoning === 'number' ? { output_tokens_details: { thinking_tokens: reasoning } } : {}),
  };
}

/** The stop reason of a response: cut short by the output bound or a filter, else `tool_use` when it called a tool. */
export function stopReasonOfResponse(response: Item, calledTools: boolean): string {
  if (response.status === 'incomplete') {
    const reason = (response.incomplete_details as { reason?: unknown } | null | undefined)?.reason;
    return reason === 'content_filter' ? 'refusal' : 'max_tokens';
  }
  return calledTools ? 'tool_use' : 'end_turn';
}

/** The standard code of a response's `error.code` (or an `error` event's `code`). */
function codeOfFailure(code: unknown): ErrorCode {
  if (code === 'rate_limit_exceeded') return 'rate_limit_error';
  if (code === 'insufficient_quota') return 'rate_limit_error';
  if (code === 'invalid_prompt' || code === 'context_length_exceeded') return 'invalid_request_error';
  return 'api_error';
}

/** The error a failed response (or an `error` event) is: a standard code, the safe text, the upstream's words in the detail. */
export function failureFrom(error: unknown, name: string): GatewayError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown };
  const code = codeOfFailure(e.code);
  // A prompt over the model's context keeps its code: clients stop on it (retrying fails the same way).
  const terms = e.code === 'context_length_exceeded' ? { upstreamTerms: { code: 'context_length_exceeded' } } : {};
  return new GatewayError(code, SAFE_MESSAGES[code], { detail: `upstream ${name} response failed: ${JSON.stringify(error).slice(0, 2000)}`, ...terms });
}

/** The parsed arguments of a call: a JSON object, else the upstream's fault (an invalid answer, not billed). */
export function callInput(args: unknown, name: string): Record<string, unknown> {
  const input = toolArguments(args);
  if (input) return input;
  throw invalidAnswer(`upstream ${name} sent function call arguments that are not a JSON object: ${String(typeof args === 'string' ? args : JSON.stringify(args)).slice(0, 2000)}`);
}

/** The blocks of one output item (none for items of tools the content model has no block for). */
export function blocksOfItem(item: Item, origin: string, name: string): ContentBlock[] {
  switch (item.type) {
    case 'message':
      return (Array.isArray(item.content) ? (item.content as Item[]) : []).flatMap((part): ContentBlock[] => {
        const text = part.type === 'refusal' ? part.refusal : part.text;
        return typeof text === 'string' && text !== '' ? [{ type: 'text', text }] : [];
      });
    case 'function_call':
      return [{ type: 'tool_use', id: toolUseIdOf(String(item.call_id ?? item.id ?? '')), name: String(item.name ?? ''), input: callInput(item.arguments, name) }];
    case 'custom_tool_call':
      return [{ type: 'tool_use', id: toolUseIdOf(String(item.call_id ?? item.id ?? '')), name: String(item.name ?? ''), input: { input: String(item.input ?? '') } }];
    case 'reasoning':
      return [thinkingOf(item as UpstreamReasoning, origin)];
    default:
      return [];
  }
}

/**
 * A Message for a Responses upstream's response object (its model left for the proxy to name):
 * a failed response throws its error; output items become blocks in order.
 */
export function messageFromResponse(body: unknown, id: string, origin: string, name: string): { message: MessageResponse; usage: UsageFigures | undefined } {
  const response = body as Item | null;
  if (typeof response !== 'object' || response === null || !Array.isArray(response.output)) {
    throw badUpstreamAnswer(`upstream ${name} sent a body that is not a response: ${JSON.stringify(body).slice(0, 2000)}`);
  }
  if (response.status === 'failed') throw failureFrom(response.error, name);
  const content = (response.output as Item[]).flatMap((item) => blocksOfItem(item, origin, name));
  const calledTools = content.some((b) => b.type === 'tool_use');
  const message: MessageResponse = {
    id, type: 'message', role: 'assistant', model: '', content: content.length > 0 ? content : [{ type: 'text', text: '' }],
    stop_reason: stopReasonOfResponse(response, calledTools), stop_sequence: null, usage: messageUsageOf(response.usage),
  };
  return { message, usage: usageFromResponses(response.usage) };
}
