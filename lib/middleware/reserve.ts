/** reserve(): holds the estimated cost on the caller's balance before the upstream call. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { NextFunction, RequestHandler } from 'express';
import { boundAmount, requestBound, type BoundSettings } from '../billing/bound';
import { defaultEstimator, type Estimator } from '../billing/estimate';
import { holdFor } from '../billing/pricing';
import { agentOf, sessionOf } from '../budgets/session';
import { GATEWAY_DEFAULTS } from '../foundation/defaults';
import { BudgetPaths, budgetRefusal, type BudgetPath } from './budget-path';
import { servingMembers } from '../catalog/members';
import { gatewayContext, type GatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import { DEFAULT_LEASE_MS, HoldLeases } from '../foundation/leases';
import { callStore, DEFAULT_STORE_TIMEOUT_MS } from '../stores/call';
import type { BalanceStore, ReserveRequest, ReserveResult } from '../stores/types';
import { checkDuration } from '../foundation/duration';
import { checkTimeout } from '../foundation/timeout';

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
   * settled and billed on its confirmed usage). Default: false. A request under a budget never
   * fails open: a budget is a promise.
   */
  failOpen?: boolean;
  /** The clock that puts a request in its budgets' periods, epoch ms. Default: Date.now. */
  clock?: () => number;
  /**
   * What the bound of a request under a budget counts per image and per non-text document, and how
   * far it lets web search and fetch go (billing/bound.ts). Default: GATEWAY_DEFAULTS.budgets.
   */
  bounds?: Partial<BoundSettings>;
}

/** The bound's settings, checked: whole numbers, 1 or more (`maxSearches` may be 0: server tools refused). */
function checkBounds(given: Partial<BoundSettings> | undefined): BoundSettings {
  const out: BoundSettings = { ...GATEWAY_DEFAULTS.budgets, ...given };
  for (const [name, value] of Object.entries(out)) {
    if (!Number.isSafeInteger(value) || value < (name === 'maxSearches' ? 0 : 1)) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', `reserve: option "bounds.${name}" must be a whole number${name === 'maxSearches' ? '' : ', 1 or more'}.`);
  }
  return out;
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
 * The hold only admits: the bill is decided later from the confirmed usage. When budgets are on the
 * caller's path (docs/budgets.md), it holds the request's bound (billing/bound.ts) on the balance
 * and on every budget at once, and a full budget is refused like an empty balance, naming itself.
 * It notes the client session and subagent the request names (for the log and the budgets).
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
  const clock = options.clock ?? Date.now;
  if (typeof clock !== 'function') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'reserve: option "clock" must be a function returning epoch milliseconds.');
  const bounds = checkBounds(options.bounds);
  const paths = new BudgetPaths();
  const timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS, 'reserve: option "timeoutMs"');
  const failOpen = options.failOpen === true;
  /** Gives a request's hold back, if the store has one (best effort: a hold left over lapses with its lease). */
  const giveBack = (requestId: string): void => {
    Promise.resolve().then(() => store.release(requestId)).catch(() => undefined);
  };
  /** The hold is taken (or refused): carry on, or answer 402. */
  const held = (ctx: GatewayContext, request: ReserveRequest, result: ReserveResult, next: NextFunction, path?: BudgetPath): void => {
    if (!result.ok) {
      if (path && result.scope !== undefined) next(budgetRefusal(path, result, request.amount, request.tokens ?? 0));
      else next(new GatewayError('billing_error', `Insufficient balance: this request may cost up to ${request.amount}; available ${result.available}.`));
      return;
    }
    if (ctx.closed) {
      // The client left while the hold was being taken, and the request was already settled: give it back.
      giveBack(request.requestId);
      return;
    }
    ctx.hold = request.amount;
    if (path) ctx.budget = { scopes: path.scopes, bound: request.amount };
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
    next(failOpen && request.scopes === undefined ? undefined : new GatewayError('api_error', 'The balance store is unavailable; retry later.', { detail: ctx.detail }));
  };
  const reserveMiddleware: RequestHandler = (req, res, next) => {
    const ctx = gatewayContext(res);
    if (!ctx.caller || !ctx.model) {
      next(new Error('model-gateway: reserve() needs authenticate() and resolveModel() before it.'));
      return;
    }
    const estimate = (ctx.estimate ??= estimator(req.body));
    ctx.session = sessionOf(req.headers, ctx.clientBody ?? req.body);
    ctx.agentId = agentOf(req.headers);
    const path = paths.of(ctx.caller, ctx.session, ctx.agentId, clock());
    const request: ReserveRequest = { callerId: ctx.caller.id, requestId: ctx.requestId, amount: 0, expiresAt: leases.expiry(), instanceId: leases.instanceId };
    // Any failover member may serve: the hold covers the dearest.
    const members = servingMembers(ctx.model);
    if (path) {
      // Under a budget the hold is the most the request can cost, not an estimate: no budget is ever exceeded.
      const bound = requestBound(req.body, bounds);
      if ('unbounded' in bound) {
        next(new GatewayError('invalid_request_error', `${bound.unbounded}: not available under a budget: the upstream would read input (tool output, an MCP server's answers) that no bound can hold before the call.`));
        return;
      }
      let amount = 0;
      for (const m of members) amount = Math.max(amount, boundAmount(bound.inputTokens, bound.outputTokens, m.pricing, bound.searches, bound.searchUnits));
      Object.assign(request, { amount, tokens: bound.inputTokens + bound.outputTokens, scopes: path.scopes });
    } else {
      for (const m of members) request.amount = Math.max(request.amount, holdFor(estimate, m.pricing, m.format));
      if (request.amount === 0) {
        ctx.hold = 0;
        next();
        return;
      }
    }
    callStore(() => store.reserve(request), timeoutMs, 'reserve', (answer) => held(ctx, request, answer, next, path), (err, late) => failed(ctx, request, err, late, next));
  };
  return Object.assign(reserveMiddleware, { close: () => leases.stop() });
}
