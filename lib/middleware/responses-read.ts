/** storedResponses(): the routes of stored responses: GET and DELETE /v1/responses/{id}, GET …/input_items, and the refusal of …/cancel. */
import type { Request, RequestHandler } from 'express';
import { gatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import { ENCRYPTED_INCLUDE, shownItem, shownResponse } from '../formats/openai-responses';
import type { ResolvedResponses } from '../responses-options';
import { checkResolvedResponses } from './responses-state';
import { DEFAULT_STORE_TIMEOUT_MS } from '../stores/call';
import type { InputItemsQuery, ResponseStore } from '../stores/responses';
import type { Awaitable } from '../foundation/sync';
import { checkTimeout, withTimeout } from '../foundation/timeout';
import { sendJson } from '../wire/send-json';

/** Options of storedResponses(). */
export interface StoredResponsesOptions {
  /** The resolved `responses` option (`resolveOptions(options).responses`). Required. */
  responses: ResolvedResponses;
  /** Longest wait for the store, in ms. Default: 5000. */
  timeoutMs?: number;
}

/** The handlers, each after authenticate() (the account is the caller's). */
export interface StoredResponsesRoutes {
  /** `GET /v1/responses/:id` (`include[]=reasoning.encrypted_content` shows encrypted reasoning). */
  get: RequestHandler;
  /** `DELETE /v1/responses/:id`: `{id, object: "response", deleted: true}`. */
  delete: RequestHandler;
  /** `GET /v1/responses/:id/input_items` (`after`, `before`, `limit`, `order`, `include[]`). */
  inputItems: RequestHandler;
  /** `POST /v1/responses/:id/cancel`: refused, there being no background responses here. */
  cancel: RequestHandler;
}

/** The path of a stored response's routes (at the end of the URL, however the router is mounted). */
const STORED_PATH = /\/v1\/responses\/[^/?]+(\/input_items|\/cancel)?\/?(?:\?|$)/;

/** The log's endpoint label of a request to a stored response's path: `responses_get`, `_delete`, `_input_items`, `_cancel`; `unknown` for other paths and methods. */
export function storedResponseEndpoint(req: Request): string {
  const match = STORED_PATH.exec(req.originalUrl);
  if (!match) return 'unknown';
  const [, sub] = match;
  if (sub === '/input_items') return req.method === 'GET' || req.method === 'HEAD' ? 'responses_input_items' : 'unknown';
  if (sub === '/cancel') return req.method === 'POST' ? 'responses_cancel' : 'unknown';
  return req.method === 'GET' || req.method === 'HEAD' ? 'responses_get' : req.method === 'DELETE' ? 'responses_delete' : 'unknown';
}

/** One answer for an id unknown, expired, deleted or another account's: nothing tells them apart. */
const notFound = (): GatewayError => new GatewayError('not_found_error', 'No stored response has this id (it may never have existed, have expired or been deleted).');
const storingOff = (): GatewayError =>
  new GatewayError('not_found_error', 'No responses are stored here: this gateway keeps them only when its operator turns on the responses.store option.');
const unavailable = (err: unknown): GatewayError =>
  new GatewayError('api_error', 'Stored responses are unavailable; retry later.', { detail: `response store: ${String(err)}` });
const bad = (param: string, what: string): GatewayError => new GatewayError('invalid_request_error', `${param}: ${what}`);

/** The query's values by name, as sent (`include[]` and `include` are one list): read from the URL, whatever query parser the host set. */
function queryOf(req: Request): (name: string) => string[] {
  const at = req.originalUrl.indexOf('?');
  const params = new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1));
  return (name) => [...params.getAll(name), ...params.getAll(`${name}[]`)];
}

/** The one value of a query parameter, or undefined; sent twice: a 400 naming it. */
function single(values: string[], name: string): string | undefined {
  if (values.length > 1) throw bad(name, 'must be given once');
  return values[0];
}

/** Whether `include` asks for encrypted reasoning (other values change nothing here). */
const encryptedOf = (query: (name: string) => string[]): boolean => query('include').includes(ENCRYPTED_INCLUDE);

/** The input-items query: `limit` a whole number, `order`, the cursors (the store checks their values and names them). */
function itemsQuery(query: (name: string) => string[]): InputItemsQuery {
  const out: InputItemsQuery = {};
  const limit = single(query('limit'), 'limit');
  if (limit !== undefined) {
    if (!/^\d{1,3}$/.test(limit)) throw bad('limit', 'must be an integer from 1 to 100');
    out.limit = Number(limit);
  }
  const order = single(query('order'), 'order');
  if (order !== undefined) out.order = order as InputItemsQuery['order'];
  for (const cursor of ['after', 'before'] as const) {
    const value = single(query(cursor), cursor);
    if (value !== undefined) out[cursor] = value;
  }
  return out;
}

/**
 * The routes of stored responses, scoped to the caller's account: another account's response,
 * an expired, deleted or never issued one are the same 404. With storing off every id is a 404
 * that says storing is off. Unbilled (mount them with limits() by requests, as the router does).
 */
export function storedResponses(options: StoredResponsesOptions): StoredResponsesRoutes {
  const responses = checkResolvedResponses(options?.responses, 'storedResponses');
  const timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS, 'storedResponses: option "timeoutMs"');
  /** A handler reading the store as the caller: what `run` answers is sent as JSON; undefined is the 404. */
  const reading = (run: (store: ResponseStore, callerId: string, id: string, query: (name: string) => string[]) => Promise<object | undefined>): RequestHandler =>
    function storedResponseMiddleware(req, res, next) {
      const ctx = gatewayContext(res);
      ctx.unbilled = true;
      const caller = ctx.caller;
      if (!caller) return next(new Error('model-gateway: storedResponses() needs authenticate() before it.'));
      const store = responses.store;
      if (!store) return next(storingOff());
      let work: Promise<object | undefined>;
      try {
        work = run(store, caller.id, String(req.params.id), queryOf(req));
      } catch (err) {
        return next(err);
      }
      work.then((body) => (body ? sendJson(res, body) : next(notFound())), (err: unknown) => next(err instanceof GatewayError ? err : unavailable(err)));
    };
  const bounded = <T>(work: Awaitable<T>, what: string): Promise<T> => withTimeout(work, timeoutMs, what);
  return {
    get: reading(async (store, callerId, id, query) => {
      if (query('stream').some((v) => v !== 'false')) throw bad('stream', 'a stored response is read whole here (streaming one back is for background responses, which this gateway does not run)');
      const encrypted = encryptedOf(query);
      const found = await bounded(store.getResponse(callerId, id), 'stored response read');
      return found && shownResponse(found.response, encrypted);
    }),
    delete: reading(async (store, callerId, id) => ((await bounded(store.deleteResponse(callerId, id), 'stored response delete')) ? { id, object: 'response', deleted: true } : undefined)),
    inputItems: reading(async (store, callerId, id, query) => {
      const encrypted = encryptedOf(query);
      const page = await bounded(store.listInputItems(callerId, id, itemsQuery(query)), 'input items read');
      return page && { ...page, data: page.data.map((item) => shownItem(item, encrypted)) };
    }),
    cancel: function cancelRefused(_req, res, next) {
      gatewayContext(res).unbilled = true;
      next(new GatewayError('invalid_request_error', 'Only a response made with background: true can be cancelled, and this gateway runs none (background is refused); a stream stops when its client closes it.'));
    },
  };
}
