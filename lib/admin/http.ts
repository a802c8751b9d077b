/** What every admin route shares: async handlers, query parameters and bodies checked with errors naming the field. */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { GatewayError } from '../errors';
import { compileSchema, describeError } from '../schemas/ajv';
import { sendJson } from '../wire/send-json';

/** Runs `work` and answers its result as JSON (`status`, default 200); anything thrown goes to the error handler. */
export function route(work: (req: Request, res: Response) => unknown, status = 200): RequestHandler {
  return function adminRoute(req: Request, res: Response, next: NextFunction) {
    Promise.resolve().then(() => work(req, res)).then((out) => sendJson(res, out, status), next);
  };
}

const bad = (field: string, what: string): GatewayError => new GatewayError('invalid_request_error', `${field}: ${what}`);

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
