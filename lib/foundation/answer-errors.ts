/**
 * The errors an upstream's answer makes, the same wherever it is read (an adapter's HTTP client, a
 * format's parser of answers and streams): standard codes and safe texts, the upstream's words in `detail` only.
 */
import { GatewayError, type ErrorCode } from './errors';

/**
 * Standard code for an upstream HTTP status. An upstream that rejects the gateway's own
 * credentials or account (401, 402, 403) or model name (404) is the gateway's misconfiguration,
 * so the caller gets `api_error`, never `authentication_error`.
 */
export function codeForUpstreamStatus(status: number): ErrorCode {
  if (status === 408 || status === 504) return 'timeout_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status === 400 || status === 422) return 'invalid_request_error';
  return 'api_error';
}

/** The safe text of an answer the gateway cannot read or pass on. */
const INVALID_RESPONSE = 'The upstream sent an invalid response.';

/** Builds the GatewayError for an upstream answer the gateway cannot read. */
export function badUpstreamAnswer(detail: string): GatewayError {
  return new GatewayError('api_error', INVALID_RESPONSE, { detail });
}

/**
 * Builds the GatewayError for a whole answer the gateway refuses to pass on (tool arguments that
 * are not a JSON object, a tool call from an upstream offered no tools): the same `api_error`
 * as an unreadable answer, and the request is not billed, JSON or stream (docs/translation.md).
 */
export function invalidAnswer(detail: string): GatewayError {
  return new GatewayError('api_error', INVALID_RESPONSE, { detail, invalidAnswer: true });
}

/**
 * The invalid answer a tool call makes whose input is not a JSON object (`shown`: its JSON, or the
 * fragments streamed), wherever the gateway carries it into another format (chat, Responses).
 */
export function invalidToolInput(shown: string): GatewayError {
  return invalidAnswer(`upstream sent a tool call whose input is not a JSON object: ${shown.slice(0, 2000)}`);
}
