/** Errors in the Responses format: a refusal naming the request's field, and the `error` a failed response carries. */
import { GatewayError, type ErrorCode, type UpstreamTerms } from '../../foundation/errors';

/** The refusal of what the content model cannot express: 400 naming the field of the Responses body, before any upstream call. */
export function refused(path: string, reason: string): GatewayError {
  return new GatewayError('invalid_request_error', `${path}: ${reason}`);
}

/**
 * The `error.code` of a response that failed mid-stream, in the values Responses clients act on:
 * Codex retries `server_error` and `rate_limit_exceeded`, and stops on `invalid_prompt` and
 * `insufficient_quota` (retrying them would fail the same way).
 */
const FAILURE_CODES: Readonly<Record<ErrorCode, string>> = Object.freeze({
  invalid_request_error: 'invalid_prompt',
  authentication_error: 'server_error',
  billing_error: 'insufficient_quota',
  permission_error: 'invalid_prompt',
  not_found_error: 'server_error',
  method_not_allowed: 'server_error',
  request_too_large: 'invalid_prompt',
  rate_limit_error: 'rate_limit_exceeded',
  api_error: 'server_error',
  timeout_error: 'server_error',
  overloaded_error: 'server_error',
});

/**
 * The `error` of a failed response: a standard code and the gateway's safe text (never the
 * upstream's words); a refusal whose upstream said `context_length_exceeded` (`terms`) keeps that
 * code, which Codex stops on ("ran out of room"), as it does on the same HTTP 400.
 */
export function failureOf(code: ErrorCode, message: string, terms?: UpstreamTerms): { code: string; message: string } {
  if (code === 'invalid_request_error' && terms?.code === 'context_length_exceeded') return { code: terms.code, message };
  return { code: FAILURE_CODES[code], message };
}
