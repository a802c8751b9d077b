/** The one error class of the gateway, its stable codes, and the tables mapping each code to its status (and to OpenAI's terms on the OpenAI routes). */

/** Standard error codes, the same as the compatible vendor's `error.type` values. */
export type ErrorCode =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'method_not_allowed'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

/** HTTP status for every code: the one table the whole gateway uses. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
});

/** Safe client-facing texts for errors whose real cause must stay private. */
export const SAFE_MESSAGES: Readonly<Record<ErrorCode, string>> = Object.freeze({
  invalid_request_error: 'The upstream rejected the request.',
  authentication_error: 'Authentication failed.',
  billing_error: 'Insufficient balance for this request.',
  permission_error: 'This request is not permitted.',
  not_found_error: 'Not found.',
  method_not_allowed: 'Method not allowed.',
  request_too_large: 'Request too large.',
  rate_limit_error: 'Rate limited; retry later.',
  api_error: 'Internal server error.',
  timeout_error: 'The upstream timed out.',
  overloaded_error: 'The upstream is overloaded; retry later.',
});

/** Options of a GatewayError beyond code and message. */
export interface GatewayErrorOptions {
  /** Seconds the client should wait (sent as `retry-after`). Default: none. */
  retryAfter?: number;
  /** Private detail for the request log only; never sent to a client. Default: none. */
  detail?: string;
  /** The underlying cause. Default: none. */
  cause?: unknown;
  /**
   * The upstream's own words about the caller's request (its 400 or 413 message, the gateway's
   * upstream key redacted): agent-ready models answer with them, since agents act on the wording
   * ("prompt is too long"). Default: none.
   */
  upstreamMessage?: string;
  /**
   * The upstream's own OpenAI `param` and `code` for its refusal of the caller's request (their
   * shapes checked): set only where the upstream got the caller's body as sent (the native
   * Responses pass-through), so the field it names is the caller's own; and the code of a failed
   * response over the model's context (`context_length_exceeded`), which clients act on. Default: none.
   */
  upstreamTerms?: UpstreamTerms;
  /**
   * The upstream answered, but its answer breaks the contract the gateway keeps with clients
   * (tool arguments that are not JSON, a tool call nobody offered): the request is not billed,
   * JSON or stream alike. Default: false.
   */
  invalidAnswer?: boolean;
}

/** An upstream's own OpenAI terms for a refusal: the field it names and its code (see GatewayErrorOptions.upstreamTerms). */
export interface UpstreamTerms {
  readonly param?: string;
  readonly code?: string;
}

/**
 * The one error class. `message` is safe to show to a client; `detail` goes to the log only.
 * `status` is derived from `code` through ERROR_STATUS.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryAfter: number | undefined;
  readonly detail: string | undefined;
  readonly upstreamMessage: string | undefined;
  readonly upstreamTerms: UpstreamTerms | undefined;
  readonly invalidAnswer: boolean;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.retryAfter = options.retryAfter;
    this.detail = options.detail;
    this.upstreamMessage = options.upstreamMessage;
    this.upstreamTerms = options.upstreamTerms;
    this.invalidAnswer = options.invalidAnswer === true;
  }
}

/** Body of an error response in the one shape used on every endpoint. */
export interface ErrorBody {
  type: 'error';
  error: { type: ErrorCode; message: string };
  request_id?: string;
}

/** Builds the standard error body; `request_id` is omitted when unknown. */
export function errorBody(code: ErrorCode, message: string, requestId?: string): ErrorBody {
  const body: ErrorBody = { type: 'error', error: { type: code, message } };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

/** An error in OpenAI's shape (the chat-completions and Responses routes; the request id travels in the `request-id` header). */
export interface OpenAIErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}

/**
 * Each code in OpenAI's terms: the status (an exhausted balance is 429 `insufficient_quota`, which
 * Responses clients such as Codex do not retry, where a 402 costs six whole requests), `type` and `code`.
 */
export const OPENAI_ERRORS: Readonly<Record<ErrorCode, { readonly status: number; readonly type: string; readonly code: string | null }>> = Object.freeze({
  invalid_request_error: { status: 400, type: 'invalid_request_error', code: null },
  authentication_error: { status: 401, type: 'invalid_request_error', code: 'invalid_api_key' },
  billing_error: { status: 429, type: 'insufficient_quota', code: 'insufficient_quota' },
  permission_error: { status: 403, type: 'invalid_request_error', code: 'permission_denied' },
  not_found_error: { status: 404, type: 'invalid_request_error', code: 'not_found' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', code: 'method_not_allowed' },
  request_too_large: { status: 413, type: 'invalid_request_error', code: 'request_too_large' },
  rate_limit_error: { status: 429, type: 'requests', code: 'rate_limit_exceeded' },
  api_error: { status: 500, type: 'server_error', code: 'server_error' },
  timeout_error: { status: 504, type: 'server_error', code: 'timeout' },
  overloaded_error: { status: 529, type: 'server_error', code: 'overloaded' },
});

/** An upstream's words for a prompt over the model's context (Anthropic's "prompt is too long", OpenAI's and vLLM's "maximum context length"). */
const CONTEXT_OVERFLOW = /prompt is too long|maximum context length|context length|context window|context_length_exceeded|too many input tokens/i;

/** The JSON path a message names first ("input.2.content: …"): every validation message starts with one. */
const PARAM = /^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*): /;

/**
 * The OpenAI-shaped body of an error: `param` is the field a gateway refusal names (never read out
 * of an upstream's words, `upstreamMessage`), or the one the upstream's own terms name
 * (`upstreamTerms`, set only where the upstream got the caller's body as sent); a refusal of a missing
 * field is `missing_required_parameter`, of another named field `invalid_value`; an upstream's
 * refusal of a prompt over the model's context (`upstreamMessage`, or the message itself) is
 * `context_length_exceeded`; an unknown model `model_not_found`, an unknown previous response
 * `previous_response_not_found`.
 */
export function openaiErrorBody(code: ErrorCode, message: string, upstreamMessage?: string, upstreamTerms?: UpstreamTerms): OpenAIErrorBody {
  const terms = OPENAI_ERRORS[code];
  const overflow = code === 'invalid_request_error' && CONTEXT_OVERFLOW.test(upstreamMessage ?? message);
  if (upstreamTerms !== undefined) {
    const given = upstreamTerms.code ?? (overflow ? 'context_length_exceeded' : terms.code);
    return { error: { message, type: terms.type, code: given, param: upstreamTerms.param ?? null } };
  }
  if (overflow) return { error: { message, type: terms.type, code: 'context_length_exceeded', param: null } };
  // Only the gateway's own refusals name a field; an upstream's words never make a `param`.
  const named = upstreamMessage === undefined && (code === 'invalid_request_error' || code === 'not_found_error') ? PARAM.exec(message)?.[1] : undefined;
  const param = named === undefined || named === 'body' ? null : named;
  let openaiCode = terms.code;
  if (code === 'not_found_error' && param === 'model') openaiCode = 'model_not_found';
  else if (code === 'not_found_error' && param === 'previous_response_id') openaiCode = 'previous_response_not_found';
  else if (code === 'invalid_request_error' && param !== null) openaiCode = message.endsWith(': Field required') ? 'missing_required_parameter' : 'invalid_value';
  return { error: { message, type: terms.type, code: openaiCode, param } };
}

/**
 * Turns anything thrown into a GatewayError. A 4xx raised by Express or its parsers (a bad
 * URI escape, say) keeps its class as `invalid_request_error` (404: `not_found_error`, 413:
 * `request_too_large`); anything else becomes a generic `api_error`.
 */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code: ErrorCode = status === 404 ? 'not_found_error' : status === 413 ? 'request_too_large' : 'invalid_request_error';
    return new GatewayError(code, code === 'invalid_request_error' ? 'Malformed request.' : SAFE_MESSAGES[code], { detail, cause: err });
  }
  return new GatewayError('api_error', SAFE_MESSAGES.api_error, { detail, cause: err });
}
