/** validate(kind): checks a Messages or Rerank body against its schema, compiled once. */
import type { RequestHandler } from 'express';
import { gatewayContext } from '../context';
import { GatewayError } from '../errors';
import { compileSchema, describeError } from '../schemas/ajv';
import { findUnsupported, messagesSchema } from '../schemas/messages';
import { DEFAULT_RERANK_BOUNDS, rerankSchema, type RerankBounds } from '../schemas/rerank';

/** Which body a validate() middleware checks. */
export type BodyKind = 'messages' | 'rerank';

/** Options of validate(). */
export interface ValidateOptions {
  /** Bounds of rerank bodies. Defaults: DEFAULT_RERANK_BOUNDS. */
  rerank?: RerankBounds;
}

/**
 * Refuses an invalid body with 400 `invalid_request_error` whose message names the JSON path,
 * before anything reaches the upstream. For Messages, V1's unsupported features (tools,
 * tool_choice, thinking, top_k, stop_sequences, cache_control, non-text blocks) get an
 * explicit message. Also records `stream` and the caller's user tag in the context.
 */
export function validate(kind: BodyKind, options: ValidateOptions = {}): RequestHandler {
  if (kind !== 'messages' && kind !== 'rerank') throw new TypeError('validate: kind must be "messages" or "rerank".');
  const bounds = Object.freeze({ ...DEFAULT_RERANK_BOUNDS, ...options.rerank });
  for (const [key, value] of Object.entries(bounds)) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`validate: option "rerank.${key}" must be a positive integer.`);
  }
  const check = compileSchema<Record<string, unknown>>(kind === 'messages' ? messagesSchema : rerankSchema(bounds));
  return function validateMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const body = req.body as Record<string, unknown>;
    if (kind === 'messages') {
      const unsupported = findUnsupported(body);
      if (unsupported) {
        next(new GatewayError('invalid_request_error', `${unsupported.path}: ${unsupported.message}`));
        return;
      }
    }
    if (!check(body)) {
      const first = check.errors?.[0];
      next(new GatewayError('invalid_request_error', first ? describeError(first) : 'body: is invalid'));
      return;
    }
    ctx.stream = body.stream === true;
    const user = kind === 'rerank' ? body.user : (body.metadata as { user_id?: unknown } | undefined)?.user_id;
    if (typeof user === 'string') ctx.user = user;
    next();
  };
}
