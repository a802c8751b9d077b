/** Maps upstream HTTP failures (a status, a broken connection, a timeout) to standard codes with safe texts; the upstream's words go to `detail` only. */
import { codeForUpstreamStatus } from '../../foundation/answer-errors';
import { GatewayError, SAFE_MESSAGES, type ErrorCode, type UpstreamTerms } from '../../foundation/errors';
import { termsOf, withoutHosts } from './shown';

/** Whether a failure with this code may be retried on another attempt or upstream. */
export function isRetryableCode(code: ErrorCode): boolean {
  return code === 'rate_limit_error' || code === 'overloaded_error' || code === 'api_error' || code === 'timeout_error';
}

/** Parses `retry-after` (seconds or HTTP date) into whole seconds; undefined when absent or bad. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Longest upstream message kept for an agent-ready caller. */
const MAX_UPSTREAM_MESSAGE = 2000;

/** The parsed error body of a refusal about the caller's own request (a 400 or 413); else undefined. */
function refusalBody(status: number, body: string): unknown {
  if (status !== 400 && status !== 413) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The message of an upstream's error body (`{"error":{"message":…}}`, Anthropic's and OpenAI's
 * shape) when the error is about the caller's own request (a 400 or 413), without URLs or hosts
 * (lib/upstreams/http/shown.ts); else undefined.
 */
export function callerFacingMessage(status: number, body: string): string | undefined {
  const message = (refusalBody(status, body) as { error?: { message?: unknown } | null } | null)?.error?.message;
  return typeof message === 'string' && message.trim() !== '' ? withoutHosts(message) : undefined;
}

/** The OpenAI terms (`param`, `code`) of the same refusal, their shapes checked; else undefined. */
export function callerFacingTerms(status: number, body: string): UpstreamTerms | undefined {
  return termsOf(refusalBody(status, body));
}

/**
 * Builds the GatewayError for an upstream HTTP error; `retry-after` is passed on for 429/503/529
 * only; `detail` is for the request log only; `upstreamMessage` (see callerFacingMessage) reaches
 * callers of agent-ready models only; `upstreamTerms` (callerFacingTerms) is given only where the
 * upstream got the caller's body as sent.
 */
export function upstreamError(status: number, detail: string, retryAfter?: number, upstreamMessage?: string, upstreamTerms?: UpstreamTerms): GatewayError {
  const code = codeForUpstreamStatus(status);
  const passOn = retryAfter !== undefined && (code === 'rate_limit_error' || code === 'overloaded_error');
  return new GatewayError(code, SAFE_MESSAGES[code], {
    detail, ...(passOn ? { retryAfter } : {}), ...(upstreamMessage === undefined ? {} : { upstreamMessage: upstreamMessage.slice(0, MAX_UPSTREAM_MESSAGE) }),
    ...(upstreamTerms === undefined ? {} : { upstreamTerms }),
  });
}

/** Builds the GatewayError for a failed connection or a broken body. */
export function connectionError(detail: string): GatewayError {
  return new GatewayError('api_error', 'The upstream connection failed.', { detail });
}

/** Builds the GatewayError for a timeout of the given phase. */
export function timeoutError(phase: string): GatewayError {
  return new GatewayError('timeout_error', SAFE_MESSAGES.timeout_error, { detail: `upstream ${phase} timeout` });
}
