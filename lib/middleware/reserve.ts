/** reserve(): holds the estimated cost on the caller's balance before the upstream call. */
import type { NextFunction, RequestHandler } from 'express';
import { defaultEstimator, type Estimator } from '../billing/estimate';
import { chargeFor } from '../billing/pricing';
import { gatewayContext, type GatewayContext } from '../context';
import { GatewayError } from '../errors';
import type { BalanceStore, ReserveRequest, ReserveResult } from '../stores/types';
import { checkTimeout, withTimeout } from '../timeout';

/** Options of reserve(). */
export interface ReserveOptions {
  /** Where balances are held. Required. */
  store: BalanceStore;
  /** How long a hold lives if the request never settles (a crashed process), in ms. Default: 900000 (15 min). */
  holdTtlMs?: number;
  /** Admission estimate. Default: defaultEstimator (characters / 3, plus max_tokens). */
  estimator?: Estimator;
  /** Longest wait for the balance store, in ms. Default: 5000. */
  timeoutMs?: number;
  /**
   * When the balance store fails or times out: false refuses the request with 500
   * `api_error` (fails closed); true admits it without a hold (fails open; it is still
   * settled and billed on its confirmed usage). Default: false.
   */
  failOpen?: boolean;
}

/**
 * Needs resolveModel() before it and billingHook() around it (which settles and so releases
 * the hold; without it a hold lasts until `holdTtlMs`). Holds price × estimate atomically; when the available
 * balance (balance − live holds) is short: 402 `billing_error`, and no upstream call.
 * The hold only admits: the bill is decided later from the confirmed usage.
 */
export function reserve(options: ReserveOptions): RequestHandler {
  const store = options?.store;
  if (!store || typeof store.reserve !== 'function') {
    throw new TypeError('reserve: option "store" must implement reserve() (e.g. new MemoryStore()).');
  }
  const ttl = options.holdTtlMs ?? 900_000;
  if (!Number.isSafeInteger(ttl) || ttl <= 0) throw new TypeError('reserve: option "holdTtlMs" must be a positive integer of milliseconds.');
  const estimator = options.estimator ?? defaultEstimator;
  const timeoutMs = checkTimeout(options.timeoutMs ?? 5000, 'reserve: option "timeoutMs"');
  const failOpen = options.failOpen === true;
  /** The hold is taken (or refused): carry on, or answer 402. */
  const held = (ctx: GatewayContext, request: ReserveRequest, result: ReserveResult, next: NextFunction): void => {
    if (!result.ok) {
      next(new GatewayError('billing_error', `Insufficient balance: this request may cost up to ${request.amount}; available ${result.available}.`));
      return;
    }
    if (ctx.closed) {
      // The client left while the hold was being taken, and the request was already settled: give it back.
      Promise.resolve().then(() => store.release(request.requestId)).catch(() => undefined);
      return;
    }
    ctx.hold = request.amount;
    next();
  };
  /** The store failed: refuse (fail closed), or go on without a hold (fail open). */
  const failed = (ctx: GatewayContext, err: unknown, next: NextFunction): void => {
    ctx.detail = `balance store: ${String(err)}`;
    next(failOpen ? undefined : new GatewayError('api_error', 'The balance store is unavailable; retry later.', { detail: ctx.detail }));
  };
  return function reserveMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    if (!ctx.caller || !ctx.model) {
      next(new Error('model-gateway: reserve() needs authenticate() and resolveModel() before it.'));
      return;
    }
    const estimate = (ctx.estimate ??= estimator(req.body));
    const amount = chargeFor(estimate, ctx.model.pricing);
    if (amount === 0) {
      ctx.hold = 0;
      next();
      return;
    }
    const request: ReserveRequest = { callerId: ctx.caller.id, requestId: ctx.requestId, amount, expiresAt: Date.now() + ttl };
    let result: ReturnType<BalanceStore['reserve']>;
    try {
      result = store.reserve(request);
    } catch (err) {
      failed(ctx, err, next);
      return;
    }
    // A synchronous store (MemoryStore) answers in the same tick: no promise, no timer, no closure.
    if (result instanceof Promise) withTimeout(result, timeoutMs, 'reserve').then((answer) => held(ctx, request, answer, next), (err: unknown) => failed(ctx, err, next));
    else held(ctx, request, result, next);
  };
}
