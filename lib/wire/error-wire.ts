/** An error in each wire format the gateway answers in: the JSON body, and the frame that ends a stream. */
import { errorBody, OPENAI_ERRORS, openaiErrorBody, type ErrorCode, type GatewayError } from '../foundation/errors';
import { dataFrame, frame } from './sse-writer';

/** The wire format of a route's answers: Anthropic's (Messages, rerank, models, admin) or OpenAI's (chat completions, Responses). */
export type WireFormat = 'anthropic' | 'openai';

/** The JSON body of an error (OpenAI's shape carries no request id: it travels in the `request-id` header). */
export function errorJson(format: WireFormat, code: ErrorCode, message: string, requestId?: string): object {
  return format === 'openai' ? openaiErrorBody(code, message) : errorBody(code, message, requestId);
}

/**
 * How an error is answered in a format: its status (OpenAI's routes answer an exhausted balance
 * with 429 `insufficient_quota`), its body, and whether the client should retry it (`x-should-retry`):
 * 5xx and rate limits, never an exhausted balance.
 */
export function errorAnswer(format: WireFormat, error: GatewayError, requestId: string): { status: number; body: object; retry: boolean } {
  if (format !== 'openai') return { status: error.status, body: errorBody(error.code, error.message, requestId), retry: error.status >= 500 || error.status === 429 };
  const status = OPENAI_ERRORS[error.code].status;
  return { status, body: openaiErrorBody(error.code, error.message, error.upstreamMessage, error.upstreamTerms), retry: status >= 500 || (status === 429 && error.code !== 'billing_error') };
}

/** The frame that ends a stream with an error: `event: error` (Anthropic) or `data: {"error":…}` (OpenAI). */
export function errorFrame(format: WireFormat, code: ErrorCode, message: string): string {
  return format === 'openai' ? dataFrame(openaiErrorBody(code, message)) : frame({ type: 'error', error: { type: code, message } });
}
