/** reserve(): holds the estimated cost on the caller's balance before the upstream call. */
import { GatewayConfigError } from '../config-errors';
import type { NextFunction, RequestHandler } from 'express';
import { defaultEstimator, type Estimator } from '../billing/estimate';
import { holdFor } from '../billing/pricing';
import { servingMembers } from '../catalog-members';
import { gatewayContext, type GatewayContext } from '../context';
import { GatewayError } from '../errors';
import { DEFAULT_LEASE_MS, HoldLeases } from '../leases';
import { callStore, DEFAULT_STORE_TIMEOUT_MS } from '../stores/call';
import type { BalanceStore, ReserveRequest, ReserveResult } from '../stores/types';
import { checkDuration } from '../duration';
import { checkTimeout } from '../timeout';

/** Options of reserve(). */
export interface ReserveOptions {
  /** Where balances are held. Required. */
  store: BalanceStore;
  /**
   * The lease of a hold, in ms: this instance renews all its holds every quarter lease, and a
   * hold leaves with its settlement, so it lives as long as its request; a crashed instance's
   * holds lapse one lease after it. Default: 60000.
   */
  leaseMs?: number;
  /** Called when renewing the leases fails (they are tried again at the next renewal). Default: none. */
  onError?: (err: unknown) => void;
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

/** The reserve() middleware, and close(): stops renewing this instance's holds. */
export interface ReserveMiddleware extends RequestHandler {
  /** Stops the lease renewals; call it once the requests it admitted have settled (router.close() does). A later hold starts them again. */
  close(): void;
}

/**
 * Needs resolveModel() before it and billingHook() around it (which settles and so releases
 * the hold; without it a hold is renewed for as long as the process lives). Holds price × estimate atomically; when the available
 * balance (balance − live holds) is short: 402 `billing_error`, and no upstream call.
 * The hold only admits: the bill is decided later from the confirmed usage.
 */
export function reserve(options: ReserveOptions): ReserveMiddleware {
  const store = options?.store;
  if (!store || typeof store.reserve !== 'function') {
    throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', 'reserve: option "store" must implement reserve() (e.g. new MemoryStore()).');
  }
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  checkDuration(leaseMs, 'reserve: option "leaseMs"', { min: 100 });
  if (typeof store.renewHolds !== 'function') throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', 'reserve: option "store" must implement renewHolds(instanceId, expiresAt) (see "Writing your own store").');
  const leases = new HoldLeases(leaseMs, (instanceId, until) => store.renewHolds(instanceId, until), options.onError);
  const estimator = options.estimator ?? defaultEstimator;
  const timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS, 'reserve: option "timeoutMs"');
  const failOpen = options.failOpen === true;
  /** Gives a request's hold back, if the store has one (best effort: a hold left over lapses with its lease). */
  const giveBack = (requestId: string): void => {
    Promise.resolve().then(() => store.release(requestId)).catch(() => undefined);
  };
  /** The hold is taken (or refused): carry on, or answer 402. */
  const held = (ctx: GatewayContext, request: ReserveRequest, result: ReserveResult, next: NextFunction): void => {
    if (!result.ok) {
      next(new GatewayError('billing_error', `Insufficient balance: this request may cost up to ${request.amount}; available ${result.available}.`));
      return;
    }
    if (ctx.closed) {
      // The client left while the hold was being taken, and the request was already settled: give it back.
      giveBack(request.requestId);
      return;
    }
    ctx.hold = request.amount;
    leases.start();
    next();
  };
  /**
   * The store failed: refuse (fail closed), or go on without a hold (fail open). Either way the
   * request has no hold, so one the store took before its answer was lost, or takes after a
   * timeout, is given back: now, and when a late call ends (this instance would renew it forever).
   */
  const failed = (ctx: GatewayContext, request: ReserveRequest, err: unknown, late: Promise<unknown> | undefined, next: NextFunction): void => {
    giveBack(request.requestId);
    late?.then(() => giveBack(request.requestId), () => giveBack(request.requestId));
    ctx.detail = `balance store: ${String(err)}`;
    next(failOpen ? undefined : new GatewayError('api_error', 'The balance store is unavailable; retry later.', { detail: ctx.detail }));
  };
  const reserveMiddleware: RequestHandler = (req, res, next) => {
    const ctx = gatewayContext(res);
    if (!ctx.caller || !ctx.model) {
      next(new Error('model-gateway: reserve() needs authenticate() and resolveModel() before it.'));
      return;
    }
    const estimate = (ctx.estimate ??= estimator(req.body));
    // Any member may serve: the hold covers the dearest.
    let amount = 0;
    for (const m of servingMembers(ctx.model)) amount = Math.max(amount, holdFor(estimate, m.pricing, m.format));
    if (amount === 0) {
      ctx.hold = 0;
      next();
      return;
    }
    const request: ReserveRequest = { callerId: ctx.caller.id, requestId: ctx.requestId, amount, expiresAt: leases.expiry(), instanceId: leases.instanceId };
    callStore(() => store.reserve(request), timeoutMs, 'reserve', (answer) => held(ctx, request, answer, next), (err, late) => failed(ctx, request, err, late, next));
  };
  return Object.assign(reserveMiddleware, { close: () => leases.stop() });
}
