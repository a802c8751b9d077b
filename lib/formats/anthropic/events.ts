/** An Anthropic-format upstream's answers as the gateway reads them: its usage figures, its stream's event data, its error events. */
import { GatewayError, SAFE_MESSAGES, type ErrorCode } from '../../foundation/errors';
import type { StreamEvent } from '../../messages/events';
import { badUpstreamAnswer } from '../../foundation/answer-errors';
import { reportedFigure as count } from '../../billing/reported-figure';
import type { UsageFigures } from '../../types';
import { quickDelta } from './quick-event';

/**
 * Usage figures from an Anthropic `usage` object, as written (see reportedFigure); absent or null fields are left out. Cache writes
 * come as their total and, when the upstream sends it, the 5-minute / 1-hour breakdown; web
 * searches from `server_tool_use`.
 */
export function usageFromAnthropic(usage: Record<string, unknown> | object | null | undefined): UsageFigures {
  const figures: UsageFigures = {};
  if (!usage || typeof usage !== 'object') return figures;
  const u = usage as Record<string, unknown>;
  const split = (u.cache_creation ?? undefined) as Record<string, unknown> | undefined;
  const tools = (u.server_tool_use ?? undefined) as Record<string, unknown> | undefined;
  // Written out (not a table of names): it runs on every answer, and named fields stay monomorphic.
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  const read = count(u.cache_read_input_tokens);
  const written = count(u.cache_creation_input_tokens);
  const fiveMinutes = count(split?.ephemeral_5m_input_tokens);
  const oneHour = count(split?.ephemeral_1h_input_tokens);
  const searches = count(tools?.web_search_requests);
  if (input !== undefined) figures.inputTokens = input;
  if (output !== undefined) figures.outputTokens = output;
  if (read !== undefined) figures.cacheReadInputTokens = read;
  if (written !== undefined) figures.cacheCreationInputTokens = written;
  if (fiveMinutes !== undefined) figures.cacheWrite5mInputTokens = fiveMinutes;
  if (oneHour !== undefined) figures.cacheWrite1hInputTokens = oneHour;
  if (searches !== undefined) figures.webSearchRequests = searches;
  return figures;
}

/** Parses one SSE `data` field into an event object, or throws `api_error`. */
export function parseEventData(data: string, name: string): StreamEvent {
  const quick = quickDelta(data); // most of a stream: a content delta, read without JSON.parse
  if (quick) return quick;
  try {
    const event = JSON.parse(data) as unknown;
    if (typeof event === 'object' && event !== null && typeof (event as StreamEvent).type === 'string') return event as StreamEvent;
  } catch {
    // fall through to the error below
  }
  throw badUpstreamAnswer(`upstream ${name} sent an invalid stream event: ${data.slice(0, 2000)}`);
}

const PASSED_THROUGH: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['overloaded_error', 'rate_limit_error', 'timeout_error', 'api_error', 'request_too_large', 'invalid_request_error']);

/** Maps an upstream `error` event to a GatewayError with a safe text; the upstream's text goes to `detail`. */
export function streamErrorFrom(event: StreamEvent, name: string): GatewayError {
  const inner = (event.error ?? {}) as { type?: unknown };
  const type = typeof inner.type === 'string' && PASSED_THROUGH.has(inner.type as ErrorCode) ? (inner.type as ErrorCode) : 'api_error';
  return new GatewayError(type, SAFE_MESSAGES[type], { detail: `upstream ${name} stream error: ${JSON.stringify(event).slice(0, 2000)}` });
}
