/** Reading Anthropic-format usage, events and stream errors. */
import { GatewayError, SAFE_MESSAGES, type ErrorCode } from '../errors';
import type { StreamEvent } from '../types';
import { startsAt } from '../raw-text';
import { badUpstreamAnswer } from './errors';
import type { UsageFigures } from './types';

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

/** Usage figures from an Anthropic `usage` object; absent or null fields are left out. */
export function usageFromAnthropic(usage: Record<string, unknown> | object | null | undefined): UsageFigures {
  const figures: UsageFigures = {};
  if (!usage || typeof usage !== 'object') return figures;
  const u = usage as Record<string, unknown>;
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  const read = count(u.cache_read_input_tokens);
  const write = count(u.cache_creation_input_tokens);
  if (input !== undefined) figures.inputTokens = input;
  if (output !== undefined) figures.outputTokens = output;
  if (read !== undefined) figures.cacheReadInputTokens = read;
  if (write !== undefined) figures.cacheCreationInputTokens = write;
  return figures;
}

/** Events the gateway only forwards: nothing in them is billed, renamed or checked for errors. */
const FORWARDED = new Map(['content_block_delta', 'content_block_start', 'content_block_stop', 'ping']
  .map((type) => [type, `{"type":"${type}"`] as const));

/**
 * The type of a content event that can be forwarded without parsing: its `data` starts with
 * its own type (as Anthropic serialises them) and is a closed object. Every other event is
 * parsed (`parseEventData`), so usage, model names and errors are always read from real JSON.
 */
export function forwardedType(message: { event?: string | undefined; data: string }): string | undefined {
  const prefix = message.event === undefined ? undefined : FORWARDED.get(message.event);
  const data = message.data;
  return prefix !== undefined && startsAt(data, prefix) && data.charCodeAt(data.length - 1) === 125 /* } */ ? message.event : undefined;
}

/** `message_stop` as Anthropic serialises it: known without parsing (one JSON.parse fewer per stream). */
const MESSAGE_STOP = '{"type":"message_stop"}';

/** Parses one SSE `data` field into an event object, or throws `api_error`. */
export function parseEventData(data: string, name: string): StreamEvent {
  if (data === MESSAGE_STOP) return { type: 'message_stop' };
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
