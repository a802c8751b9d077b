/** notFound(): 404 `not_found_error` for any path the router does not serve. */
import type { RequestHandler } from 'express';
import { GatewayError } from '../errors';

/** Answers every request that reaches it with 404 `not_found_error` naming the method and path. */
export function notFound(): RequestHandler {
  return function notFoundMiddleware(req, _res, next) {
    const path = req.originalUrl.split('?')[0] ?? '';
    next(new GatewayError('not_found_error', `${req.method} ${path.slice(0, 200)} was not found`));
  };
}
