/** What every admin route shares: async handlers, query parameters and bodies checked with errors naming the field. */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { GatewayError } from '../errors';
import { methodNotAllowed } from '../middleware/not-found';
import { compileSchema, describeError } from '../schemas/ajv';
import { utcDay } from '../stores/reads';
import { sendJson } from '../wire/send-json';

const bad = (field: string, what: string): GatewayError => new GatewayError('invalid_request_error', `${field}: ${what}`);

/** The path of the first string holding a NUL character (no store can keep one), if any. */
function nulAt(value: unknown, at: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = nulAt(item, at ? `${at}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Runs `work` and answers its result as JSON (`status`, default 200); anything thrown goes to the error handler. */
export function route(work: (req: Request, res: Response) => unknown, status = 200): RequestHandler {
  return function adminRoute(req: Request, res: Response, next: NextFunction) {
    Promise.resolve().then(() => {
      const nul = nulAt(req.params, '') ?? nulAt(req.query, '') ?? nulAt(req.body, '');
      if (nul !== undefined) throw bad(nul || 'body', 'must not contain the NUL character');
      return work(req, res);
    }).then((out) => sendJson(res, out, status), next);
  };
}

/** A date, or a date-time with its offset (without one it would be the server's local time). */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

/**
 * A time an operator gave, as epoch milliseconds: epoch milliseconds themselves (a number or its
 * digits) or ISO 8601 (`2026-11-24T10:00:00Z`; a date alone is its UTC midnight). Anything else is
 * a 400 naming the field and both forms.
 */
export function timeOf(field: string, value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,16}$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  const date = typeof value === 'string' ? ISO_8601.exec(value) : null;
  const at = date ? Date.parse(value as string) : NaN;
  // Date.parse rolls 2026-02-30 over to March: the calendar date must be one.
  if (date && !Number.isNaN(at) && utcDay(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]))) === `${date[1]}-${date[2]}-${date[3]}`) return at;
  throw bad(field, 'must be epoch milliseconds (1795514400000) or an ISO 8601 date-time with its offset (2026-11-24T10:00:00Z) or date (2026-11-24, UTC)');
}

/** The query parameters of a request, read with their types. */
export class Query {
  constructor(private readonly q: Request['query']) {}

  str(name: string): string | undefined {
    const v = this.q[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v.length === 0 || v.length > 512) throw bad(name, 'must be a string of 1 to 512 characters');
    return v;
  }

  int(name: string): number | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    if (!/^-?\d{1,16}$/.test(v) || !Number.isSafeInteger(Number(v))) throw bad(name, 'must be an integer');
    return Number(v);
  }

  /** A time: epoch milliseconds or ISO 8601 (see timeOf). */
  time(name: string): number | undefined {
    const v = this.str(name);
    return v === undefined ? undefined : timeOf(name, v);
  }

  bool(name: string): boolean | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    if (v !== 'true' && v !== 'false') throw bad(name, 'must be true or false');
    return v === 'true';
  }

  required(name: string, value: number | undefined): number {
    if (value === undefined) throw bad(name, 'Field required');
    return value;
  }
}

/** A body checker compiled once from a JSON Schema; it throws a 400 naming the JSON path. */
export function bodyOf<T>(schema: object): (body: unknown) => T {
  const check = compileSchema<T>(schema);
  return (body) => {
    if (!check(body)) {
      const first = check.errors?.[0];
      throw new GatewayError('invalid_request_error', first ? describeError(first) : 'body: is invalid');
    }
    return body;
  };
}

/** A 404 naming what was not found. */
export const notFoundError = (what: string): GatewayError => new GatewayError('not_found_error', what);

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * 405 for a documented path asked with a method it does not take (`allow` lists those it does),
 * from the OpenAPI document's paths: the one list of the admin routes.
 */
export function undocumentedMethod(paths: Readonly<Record<string, object>>): RequestHandler {
  const routes = Object.entries(paths).map(([template, operations]) => {
    const methods = Object.keys(operations).map((m) => m.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    const pattern = new RegExp(`^${template.split(/\{[^}]+\}/).map(escapeRegExp).join('[^/]+')}/?$`);
    return { pattern, methods, refuse: methodNotAllowed(methods) };
  });
  return function undocumentedMethodMiddleware(req, res, next) {
    const route = routes.find((r) => r.pattern.test(req.path));
    if (!route || route.methods.includes(req.method)) next();
    else route.refuse(req, res, next);
  };
}
