/** An error in each wire format the gateway answers in: the JSON body, and the frame that ends a stream. */
import { errorBody, openaiErrorBody, type ErrorCode } from '../errors';
import { dataFrame, frame } from './sse-writer';

/** The wire format of a route's answers: Anthropic's (Messages, rerank, models, admin) or OpenAI's (chat completions). */
export type WireFormat = 'anthropic' | 'openai';

/** The JSON body of an error (OpenAI's shape carries no request id: it travels in the `request-id` header). */
export function errorJson(format: WireFormat, code: ErrorCode, message: string, requestId?: string): object {
  return format === 'openai' ? openaiErrorBody(code, message) : errorBody(code, message, requestId);
}

/** The frame that ends a stream with an error: `event: error` (Anthropic) or `data: {"error":…}` (OpenAI). */
export function errorFrame(format: WireFormat, code: ErrorCode, message: string): string {
  return format === 'openai' ? dataFrame(openaiErrorBody(code, message)) : frame({ type: 'error', error: { type: code, message } });
}
