/** The admin API as rows of one table (method, path, summary, access, inputs' schemas, answer, handler): the Express routes, their checks, access and 405s are built from it here, the OpenAPI document in openapi.ts. */
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Catalog } from '../catalog/catalog';
import { GatewayError } from '../foundation/errors';
import { methodNotAllowed } from '../middleware/not-found';
import { sendJson } from '../wire/send-json';
import { bodyReader, queryReader } from './inputs';
import type { AdminCatalog } from './catalog';
import type { AdminStore } from './store';

export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** What every handler may use: the store, the catalog the API shows and edits, the catalog keys' allow-lists are checked against (none: unchecked). */
export interface AdminContext {
  store: AdminStore;
  catalog: AdminCatalog;
  models: (() => Catalog) | undefined;
}

/** A request's inputs as its row's schemas read them. */
export interface RouteInput<Q, B> {
  params: Record<string, string>;
  query: Q;
  body: B;
  /** The admin token's name, for the audit trail. */
  actor: string;
  req: Request;
  res: Response;
  ctx: AdminContext;
}

/** One route: everything the Express route and its OpenAPI operation are built from. */
export interface RouteRow<Q extends TObject = TObject, B extends TSchema = TSchema> {
  method: Method;
  /** An OpenAPI path template (`/keys/{keyId}`); Express's `/keys/:keyId` derives from it. */
  path: string;
  summary: string;
  /** `read`: any admin token; `write`: a write token (a read token is refused 403). */
  access: 'read' | 'write';
  query?: Q;
  /** Headers the route reads itself (documented; checked by its handler, which names the fix). */
  headers?: TObject;
  /** The JSON body's schema; a bodiless request reads as {} (optional in the document when the schema takes {}). */
  body?: B;
  /** The answer's status (default 200) and schema, and its description (default OK). */
  status?: 200 | 201;
  answer: object;
  answerDescription?: string;
  handle(input: RouteInput<Static<Q>, Static<B>>): unknown;
}

/** A row of the table, its inputs' types erased. */
export type AdminRoute = RouteRow<TObject, TSchema>;

/** A row, its handler typed by its schemas. */
export const defineRoute = <Q extends TObject = TObject<{}>, B extends TSchema = TSchema>(row: RouteRow<Q, B>): AdminRoute => row as unknown as AdminRoute;

/** The path parameters of a path template, in order. */
export const paramsOf = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);

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

/** The handler of a row: inputs read by its schemas (readers compiled now, once), its handler run, its answer sent as JSON; anything thrown goes to the error handler. */
function handlerOf(row: AdminRoute, ctx: AdminContext): RequestHandler {
  const query = row.query && queryReader<Static<TObject>>(row.query);
  const body = row.body && bodyReader<unknown>(row.body);
  return function adminRoute(req: Request, res: Response, next) {
    Promise.resolve().then(() => {
      const nul = nulAt(req.params, '') ?? nulAt(req.query, '') ?? nulAt(req.body, '');
      if (nul !== undefined) throw new GatewayError('invalid_request_error', `${nul || 'body'}: must not contain the NUL character`);
      const params = Object.fromEntries(Object.entries(req.params).map(([name, value]) => [name, String(value)]));
      return row.handle({ params, query: query ? query(req.query) : {}, body: body ? body(req.body) : req.body, actor: res.locals.admin?.name ?? 'unknown', req, res, ctx });
    }).then((out) => sendJson(res, out, row.status ?? 200), next);
  };
}

/** The Express routes of the table. */
export function routerOf(rows: readonly AdminRoute[], ctx: AdminContext): Router {
  const router = express.Router();
  for (const row of rows) router[row.method](row.path.replace(/\{([^}]+)\}/g, ':$1'), handlerOf(row, ctx));
  return router;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The table by path: which row a request is, which methods its path takes. */
export class RouteMatcher {
  private readonly paths: Array<{ pattern: RegExp; rows: Map<string, AdminRoute>; allowed: string[]; refuse: RequestHandler }>;

  constructor(rows: readonly AdminRoute[]) {
    const byPath = new Map<string, Map<string, AdminRoute>>();
    for (const row of rows) byPath.set(row.path, (byPath.get(row.path) ?? new Map()).set(row.method.toUpperCase(), row));
    this.paths = [...byPath].map(([template, methods]) => {
      const pattern = new RegExp(`^${template.split(/\{[^}]+\}/).map(escapeRegExp).join('[^/]+')}/?$`);
      const allowed = [...methods.keys(), ...(methods.has('GET') ? ['HEAD'] : [])];
      return { pattern, rows: methods, allowed, refuse: methodNotAllowed(allowed) };
    });
  }

  /** Whether a request needs a write token: its row's access; a request no row takes (HEAD included), any method but GET. */
  writes(req: Request): boolean {
    const row = this.paths.find((p) => p.pattern.test(req.path))?.rows.get(req.method);
    return row ? row.access === 'write' : req.method !== 'GET';
  }

  /** 405 for a path of the table asked with a method it does not take (`allow` lists those it does). */
  undocumentedMethod(): RequestHandler {
    return (req, res, next) => {
      const path = this.paths.find((p) => p.pattern.test(req.path));
      if (!path || path.allowed.includes(req.method)) next();
      else path.refuse(req, res, next);
    };
  }
}
