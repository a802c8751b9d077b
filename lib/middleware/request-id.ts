/** requestId(): gives every request its own id, a `request-id` header and its typed context. */
import type { Request, RequestHandler } from 'express';
import { createContext, responseClosed } from '../context';
import { randomHex } from '../random-id';

/** Options of requestId(). */
export interface RequestIdOptions {
  /** Response header carrying the id. Default: "request-id". */
  header?: string;
  /** Endpoint label for the log. Default: the path segment after `/v1/` or `/v2/`, e.g. "messages". */
  endpoint?: string | ((req: Request) => string);
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
  if (typeof header !== 'string' || header.length === 0) throw new TypeError('requestId: option "header" must be a non-empty string.');
  return function requestIdMiddleware(req, res, next) {
    if (!res.locals.gateway) {
      const ctx = createContext(newRequestId(), typeof label === 'string' ? label : label(req));
      res.locals.gateway = ctx;
      res.setHeader(header, ctx.requestId);
      res.on('close', responseClosed);
    }
    next();
  };
}
