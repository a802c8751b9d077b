/** errorHandler(): answers every error in the one standard shape, with the request id. */
import { GatewayConfigError } from '../foundation/config-errors';
import { sendJson } from '../wire/send-json';
import type { ErrorRequestHandler } from 'express';
import { toGatewayError } from '../foundation/errors';
import { errorAnswer, type WireFormat } from '../wire/error-wire';
import { bodyParserError } from './json-body';
import { newRequestId } from './request-id';

/** Options of errorHandler(). */
export interface ErrorHandlerOptions {
  /**
   * `'openai'` answers `{"error":{"message","type","code","param"}}` in OpenAI's terms (the
   * chat-completions and Responses routes; an exhausted balance is 429 `insufficient_quota`).
   * Default: the format requestId() gave the request, else `'anthropic'`.
   */
  format?: WireFormat;
}

/**
 * Turns anything thrown into `{type:"error", error:{type, message}, request_id}` (or OpenAI's
 * shape) with the status of its code. Unknown errors become a generic 500 `api_error`; their text goes to the
 * request log only. Sets `x-should-retry` so the official SDKs retry only what may succeed.
 * Mounted at app level (after the router), it also answers a host's body parser's errors,
 * with a request id of its own.
 */
export function errorHandler({ format }: ErrorHandlerOptions = {}): ErrorRequestHandler {
  if (format !== undefined && format !== 'anthropic' && format !== 'openai') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'errorHandler: option "format" must be "anthropic" or "openai".');
  return function errorHandlerMiddleware(err, _req, res, _next) {
    const error = bodyParserError(err) ?? toGatewayError(err);
    const ctx = res.locals.gateway;
    if (ctx) {
      ctx.errorCode = error.code;
      if (error.detail) ctx.detail = ctx.detail ? `${ctx.detail}; ${error.detail}` : error.detail;
    }
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    const requestId = ctx?.requestId ?? newRequestId();
    if (!ctx) res.setHeader('request-id', requestId);
    const answer = errorAnswer(format ?? ctx?.wireFormat ?? 'anthropic', error, requestId);
    res.setHeader('x-should-retry', String(answer.retry));
    if (error.retryAfter !== undefined) res.setHeader('retry-after', String(error.retryAfter));
    sendJson(res, answer.body, answer.status);
  };
}
