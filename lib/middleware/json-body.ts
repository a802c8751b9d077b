/** jsonBody(): parses JSON bodies and turns every parse failure into the standard error shape. */
import { GATEWAY_DEFAULTS } from '../foundation/defaults';
import { GatewayConfigError } from '../foundation/config-errors';
import bytes from 'bytes';
import express, { type RequestHandler } from 'express';
import { GatewayError } from '../foundation/errors';

/** Options of jsonBody(). */
export interface JsonBodyOptions {
  /** Largest body accepted (bytes or a string like "32mb"). Default: "32mb", as the compatible vendor. */
  limit?: number | string;
}

/** The default body limit, as the compatible vendor's. */
export const DEFAULT_BODY_LIMIT = GATEWAY_DEFAULTS.bodyLimit;

/**
 * The GatewayError for a body parser's failure (ours, or a host's app-wide express.json()), or
 * undefined when `err` is not one.
 */
export function bodyParserError(err: unknown, limit?: number | string): GatewayError | undefined {
  const type = (err as { type?: unknown } | null)?.type;
  if (typeof type !== 'string') return undefined;
  const detail = String((err as Error).message);
  if (type === 'entity.too.large') {
    return new GatewayError('request_too_large', `Request body is larger than the limit${limit === undefined ? '' : ` of ${String(limit)}`}.`, { detail });
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new GatewayError('invalid_request_error', 'content-encoding: unsupported encoding or charset', { detail });
  if (type === 'entity.parse.failed' || type === 'request.aborted' || type === 'request.size.invalid') {
    return new GatewayError('invalid_request_error', 'Request body is not valid JSON.', { detail });
  }
  return undefined;
}

/**
 * Requires `content-type: application/json` and a JSON object body. Malformed JSON: 400
 * `invalid_request_error`; over the limit: 413 `request_too_large`. A body a host's app-wide
 * parser already read is taken as it is (the same checks follow), its size checked by its
 * `content-length`; that parser's own errors reach the host's error handler, where
 * errorHandler() can answer them in the standard shape.
 */
export function jsonBody(options: JsonBodyOptions = {}): RequestHandler {
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  const maxBytes = bytes.parse(limit);
  if (maxBytes === null || !Number.isSafeInteger(maxBytes) || maxBytes <= 0) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', 'jsonBody: option "limit" must be a positive number of bytes or a string like "32mb".');
  const parse = express.json({ limit: maxBytes, strict: true, type: () => true });
  return function jsonBodyMiddleware(req, res, next) {
    // The SDKs send exactly "application/json": only other values need type-is's full parse.
    if (req.headers['content-type'] !== 'application/json' && !req.is('application/json')) {
      next(new GatewayError('invalid_request_error', 'content-type: must be application/json'));
      return;
    }
    if (Number(req.headers['content-length']) > maxBytes) {
      next(new GatewayError('request_too_large', `Request body is larger than the limit of ${String(limit)}.`));
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err) {
        next(bodyParserError(err, limit) ?? new GatewayError('invalid_request_error', 'Request body is not valid JSON.', { detail: String(err) }));
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
