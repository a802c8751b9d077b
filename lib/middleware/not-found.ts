/** notFound(): 404 `not_found_error` for any path the router does not serve; methodNotAllowed(): 405 for a path it serves with other methods. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestHandler } from 'express';
import { GatewayError } from '../foundation/errors';

/**
 * Paths of OpenAI's API that Anthropic's does not have (each with everything under it): the router
 * answers an unknown one in OpenAI's error shape, which an OpenAI client reads; any other unknown
 * path (`/v1/models/…` and `/v1/files` are both vendors') in Anthropic's.
 */
export const OPENAI_PATHS: readonly string[] = Object.freeze([
  '/v1/chat', '/v1/responses', '/v1/completions', '/v1/embeddings', '/v1/images', '/v1/audio', '/v1/moderations', '/v1/assistants',
  '/v1/threads', '/v1/vector_stores', '/v1/fine_tuning', '/v1/batches', '/v1/uploads', '/v1/realtime', '/v1/conversations', '/v1/evals', '/v1/containers', '/v1/videos',
]);

/** Answers every request that reaches it with 404 `not_found_error` naming the method and path (in the route's wire format: see requestId()). */
export function notFound(): RequestHandler {
  return function notFoundMiddleware(req, _res, next) {
    const path = req.originalUrl.split('?')[0] ?? '';
    const message = `${req.method} ${path.slice(0, 200)} was not found`;
    next(new GatewayError('not_found_error', message, { detail: message }));
  };
}

/**
 * Answers a path that exists, asked with a method it does not take: 405 `method_not_allowed`,
 * with `allow` listing the methods it takes.
 */
export function methodNotAllowed(methods: readonly string[]): RequestHandler {
  if (!Array.isArray(methods) || methods.length === 0) throw new GatewayConfigError('ERR_MGW_MISSING_OPTION', 'methodNotAllowed: pass the methods the path takes, e.g. ["POST"].');
  const allow = methods.join(', ');
  return function methodNotAllowedMiddleware(req, res, next) {
    res.setHeader('allow', allow);
    const path = req.originalUrl.split('?')[0] ?? '';
    next(new GatewayError('method_not_allowed', `${req.method} ${path.slice(0, 200)}: this path takes ${allow}`));
  };
}
