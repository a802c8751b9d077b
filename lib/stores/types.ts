/** Store interfaces the host implements (sync or async): keys, balance holds, settlement, request log. */
import type { RequestLogEntry, Settlement } from '../billing/records';
import type { Awaitable } from '../foundation/sync';
import type { Caller } from '../types';
import type { ScopeHold, ScopeRefusal } from './budgets';

/** What a store writes for a finished request: defined by billing, which makes them. */
export type { RequestLogEntry, Settlement } from '../billing/records';

/** A value or a promise (any thenable) of it: every store method may be sync or async (lib/foundation/sync.ts). */
export type { Awaitable } from '../foundation/sync';

/** How a request ended for billing (`waived`: a review resolved without a further charge); the list: BILLING_STATUSES (lib/schemas/shapes.ts). */
export type { BillingStatus } from '../schemas/shapes';

/** Looks a presented key up by its SHA-256 hex digest (keys are never stored in clear). */
export interface KeyStore {
  findCaller(keyHash: string): Awaitable<Caller | undefined>;
}

/** An atomic check-and-hold on a caller's balance. */
export interface ReserveRequest {
  callerId: string;
  requestId: string;
  /** Integer minor units to hold. */
  amount: number;
  /** Epoch milliseconds at which the hold's lease ends (renewHolds() moves it while the instance lives). */
  expiresAt: number;
  /** The instance holding it: renewHolds() renews every live hold of an instance at once. */
  instanceId: string;
  /**
   * The budgets on the request's path: each is held `amount`, `tokens` and one request, in the same
   * atomic step as the balance, and only if every one of them and the balance fit (spent + held +
   * this ≤ cap, per dimension). The hold's lease covers them; settle and release free them. Absent
   * or empty: the balance alone.
   */
  scopes?: readonly ScopeHold[];
  /** The most tokens the request can use (what a token cap holds). Default: 0. */
  tokens?: number;
}

/**
 * Outcome of a reserve: refused when the available balance (balance − live holds) is short, or
 * (`scope`) when a budget on the path is: the first of `scopes` in their order that does not fit.
 */
export type ReserveResult = { ok: true } | ({ ok: false; available: number } & Partial<ScopeRefusal>);

/** What a settle did: `charge` is the whole minor units charged for the request (the first result, on a retry). */
export interface SettleResult {
  applied: boolean;
  charge: number;
}

/**
 * Balances, as two-phase transfers: `reserve` makes a pending hold with a lease, `settle` posts
 * it (exactly once per request id: a retry is a no-op returning `applied: false` and the first
 * charge; it adds `cost` to the caller's carried remainder, charges the whole minor units of the
 * sum and carries the rest, drops the hold if any, and keeps a review record when
 * `billingStatus` is "needs_review"; with `scopes`, it frees their holds and adds the charge, the
 * tokens and one request (unless "not_billed") to each scope in the period the settlement names,
 * a scope's spend stopping at its cap and the rest kept as its excess), `release` voids it, and a
 * hold whose lease ended stops counting (its scopes' holds with it).
 */
export interface BalanceStore {
  reserve(request: ReserveRequest): Awaitable<ReserveResult>;
  /** Moves the lease end of every live hold of `instanceId` to `expiresAt`; a lapsed hold stays lapsed. */
  renewHolds(instanceId: string, expiresAt: number): Awaitable<void>;
  settle(settlement: Settlement): Awaitable<SettleResult>;
  release(requestId: string): Awaitable<void>;
}

/** Appends request-log entries. */
export interface RequestLogStore {
  appendLog(entry: RequestLogEntry): Awaitable<void>;
}

/** Everything the router needs from the host's persistence. */
export interface GatewayStore extends KeyStore, BalanceStore, RequestLogStore {}
