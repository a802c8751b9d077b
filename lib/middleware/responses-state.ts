/** responsesState(): a Responses request's stored state: the history it chains from (`previous_response_id`), and whether its own response is to be stored. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestHandler } from 'express';
import { atEnd, gatewayContext, type GatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import { historyOf, itemsOf, type ResponsesRequest } from '../formats/openai-responses';
import type { ResolvedResponses } from '../responses-options';
import { callStore, DEFAULT_STORE_TIMEOUT_MS } from '../stores/call';
import type { StoredResponse } from '../stores/responses';
import { checkTimeout } from '../foundation/timeout';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** The request's stored state: set by responsesState(), read by proxyResponses(). */
      responsesState?: ResponsesState;
    }
  }
}

/** What responsesState() leaves for the answer. */
export interface ResponsesState {
  /**
   * The stored response the request chains from (undefined: none). Its history was prepended to
   * the input; its `upstreamResponseId`, when it has one, means something to its `upstream` only.
   */
  readonly previous: StoredResponse | undefined;
  /** The items prepended to the input: the previous response's input items, then its output (none without a chain). */
  readonly history: ReadonlyArray<Record<string, unknown>>;
  /** The body as the client sent it (its own input, instructions and tools are stored). */
  readonly body: Readonly<ResponsesRequest>;
  /** `not_requested` when the request said `store: false`; undefined otherwise (storing off is `responses.store` undefined). */
  readonly notStored: 'not_requested' | undefined;
}

/** Options of responsesState(). */
export interface ResponsesStateOptions {
  /** The resolved `responses` option (`resolveOptions(options).responses`). Required. */
  responses: ResolvedResponses;
  /** Longest wait for the stored response, in ms. Default: 5000. */
  timeoutMs?: number;
}

/** Checks that `value` is the resolved `responses` option (what resolveOptions() makes of the user's), for a factory named `who`. */
export function checkResolvedResponses(value: unknown, who: string): ResolvedResponses {
  const r = value as Partial<ResolvedResponses> | null | undefined;
  const storeOk = r?.store === undefined || typeof r.store?.putResponse === 'function';
  if (typeof r !== 'object' || r === null || !storeOk || !Number.isSafeInteger(r.retentionDays) || !Number.isSafeInteger(r.maxBytes)) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `${who}: option "responses" must be the resolved responses option (resolveOptions(options).responses), not the option itself.`);
  }
  return r as ResolvedResponses;
}

/** Adds `text` to the request log's detail when the request concludes (after whatever else set the detail). */
export function logDetail(ctx: GatewayContext, text: string): void {
  atEnd(ctx, (c) => {
    c.detail = c.detail ? `${text}; ${c.detail}` : text;
  });
}

/** One answer for an id unknown, expired, deleted or another account's: nothing tells them apart. */
const notFound = (): GatewayError =>
  new GatewayError('not_found_error', 'previous_response_id: no stored response has this id (it may never have existed, have expired or been deleted)');
const storingOff = (): GatewayError =>
  new GatewayError('invalid_request_error', 'previous_response_id: needs stored responses, which this gateway keeps only when its operator turns on the responses.store option; send the whole conversation in input instead');
const unavailable = (err: unknown): GatewayError =>
  new GatewayError('api_error', 'Stored responses are unavailable; retry later.', { detail: `response store: ${String(err)}` });

/**
 * Runs after authenticate() and before validateResponses(). With `previous_response_id`, reads
 * that response as the caller's account: the body goes on with the stored input and output
 * before its own input and without `previous_response_id`, so the rest of the pipeline (the
 * translation, the estimate, the upstream) sees the whole conversation and no upstream ever sees
 * the id. Not the caller's, unknown or expired: 404 `previous_response_not_found`, the same for
 * each. Storing off: 400 naming the field and the option. The log line says `chained from <id>`.
 */
export function responsesState(options: ResponsesStateOptions): RequestHandler {
  const responses = checkResolvedResponses(options?.responses, 'responsesState');
  const timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS, 'responsesState: option "timeoutMs"');
  return function responsesStateMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const caller = ctx.caller;
    if (!caller) return next(new Error('model-gateway: responsesState() needs authenticate() before it.'));
    const body = req.body as ResponsesRequest;
    const notStored = body.store === false ? 'not_requested' : undefined;
    const id = body.previous_response_id;
    if (id === undefined || id === null) {
      res.locals.responsesState = { previous: undefined, history: [], body, notStored };
      return next();
    }
    if (typeof id !== 'string') return next(new GatewayError('invalid_request_error', 'previous_response_id: must be a string'));
    const store = responses.store;
    if (!store) return next(storingOff());
    const chain = (previous: StoredResponse | undefined): void => {
      if (!previous) return next(notFound());
      const history = historyOf(previous);
      const { previous_response_id: _chained, ...rest } = body;
      const input = body.input as unknown;
      req.body = typeof input === 'string' || Array.isArray(input) ? { ...rest, input: [...history, ...itemsOf(body.input)] } : rest;
      res.locals.responsesState = { previous, history, body, notStored };
      logDetail(ctx, `chained from ${previous.id}`);
      next();
    };
    callStore(() => store.getResponse(caller.id, id), timeoutMs, 'stored response read', chain, (err) => next(unavailable(err)));
  };
}
