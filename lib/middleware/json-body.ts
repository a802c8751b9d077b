/** jsonBody(): parses JSON bodies and turns every parse failure into the standard error shape. */
import express, { type RequestHandler } from 'express';
import { GatewayError } from '../errors';

/** Options of jsonBody(). */
export interface JsonBodyOptions {
  /** Largest body accepted (bytes or a string like "32mb"). Default: "32mb", as the compatible vendor. */
  limit?: number | string;
}

/**
 * Requires `content-type: application/json` and a JSON object body. Malformed JSON: 400
 * `invalid_request_error`; over the limit: 413 `request_too_large`.
 */
export function jsonBody(options: JsonBodyOptions = {}): RequestHandler {
  const limit = options.limit ?? '32mb';
  const parse = express.json({ limit, strict: true, type: () => true });
  return function jsonBodyMiddleware(req, res, next) {
    // The SDKs send exactly "application/json": only other values need type-is's full parse.
    if (req.headers['content-type'] !== 'application/json' && !req.is('application/json')) {
      next(new GatewayError('invalid_request_error', 'content-type: must be application/json'));
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err) {
        const type = (err as { type?: string }).type;
        if (type === 'entity.too.large') next(new GatewayError('request_too_large', `Request body is larger than the limit of ${String(limit)}.`));
        else if (type === 'encoding.unsupported' || type === 'charset.unsupported') next(new GatewayError('invalid_request_error', 'content-encoding: unsupported encoding or charset'));
        else next(new GatewayError('invalid_request_error', 'Request body is not valid JSON.', { detail: String((err as Error).message) }));
        return;
      }
      if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
        next(new GatewayError('invalid_request_error', 'Request body must be a JSON object.'));
        return;
      }
      next();
    });
  };
}
