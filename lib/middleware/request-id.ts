/** requestId(): gives every request its own id, a `request-id` header and its typed context. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { Request, RequestHandler } from 'express';
import { createContext, responseClosed } from '../context';
import { randomHex } from '../foundation/random-id';
import type { WireFormat } from '../wire/error-wire';

/** Options of requestId(). */
export interface RequestIdOptions {
  /** Response header carrying the id. Default: "request-id". */
  header?: string;
  /** Endpoint label for the log. Default: the path segment after `/v1/` or `/v2/`, e.g. "messages". */
  endpoint?: string | ((req: Request) => string);
  /** The wire format the route answers in: errors written at shutdown, and errorHandler()'s default, follow it. Default: "anthropic". */
  format?: WireFormat;
}

const defaultEndpoint = (req: Request): string => {
  const path = req.originalUrl.split('?')[0] ?? '';
  return /\/v\d+\/([^/]+)/.exec(path)?.[1] ?? path;
};

/** Creates an id of the form `req_<32 hex>`; ids sent by clients are never trusted as the gateway's own. */
export function newRequestId(): string {
  return `req_${randomHex()}`;
}

/**
 * Must run first: creates `res.locals.gateway` and sets the `request-id` response header.
 * A context created earlier (by an outer router) is kept.
 */
export function requestId(options: RequestIdOptions = {}): RequestHandler {
  const header = options.header ?? 'request-id';
  const label = options.endpoint ?? defaultEndpoint;
  const format = options.format ?? 'anthropic';
  if (format !== 'anthropic' && format !== 'openai') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'requestId: option "format" must be "anthropic" or "openai".');
  if (typeof header !== 'string' || header.length === 0) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'requestId: option "header" must be a non-empty string.');
  return function requestIdMiddleware(req, res, next) {
    if (!res.locals.gateway) {
      const ctx = createContext(newRequestId(), typeof label === 'string' ? label : label(req), format);
      res.locals.gateway = ctx;
      res.setHeader(header, ctx.requestId);
      res.on('close', responseClosed);
    }
    next();
  };
}
