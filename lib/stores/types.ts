/** Store interfaces the host implements (sync or async): keys, balance holds, settlement, request log. */
import type { ErrorCode } from '../errors';
import type { BillingStatus } from '../schemas/shapes';
import type { Caller, Usage } from '../types';
import type { UpstreamAttempt } from '../upstreams/types';

/** A value or a promise of it: every store method may be sync or async. */
export type Awaitable<T> = T | Promise<T>;

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
}

/** Outcome of a reserve: refused when the available balance (balance − live holds) is short. */
export type ReserveResult = { ok: true } | { ok: false; available: number };

/** The final money movement of one request. */
export interface Settlement {
  requestId: string;
  callerId: string;
  model: string;
  endpoint: string;
  /**
   * Exact cost in minor units, a decimal string with at most 12 decimals ("0.0258"); "0" when
   * nothing is billed. The store charges it through the caller's carried remainder (carryCharge()).
   */
  cost: string;
  billingStatus: BillingStatus;
  usage: Usage;
}

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
 * `billingStatus` is "needs_review"), `release` voids it, and a hold whose lease ended stops counting.
 */
export interface BalanceStore {
  reserve(request: ReserveRequest): Awaitable<ReserveResult>;
  /** Moves the lease end of every live hold of `instanceId` to `expiresAt`; a lapsed hold stays lapsed. */
  renewHolds(instanceId: string, expiresAt: number): Awaitable<void>;
  settle(settlement: Settlement): Awaitable<SettleResult>;
  release(requestId: string): Awaitable<void>;
}

/** One line of the request log: one per request that reached the router. */
export interface RequestLogEntry {
  requestId: string;
  callerId: string | null;
  endpoint: string;
  model: string | null;
  stream: boolean;
  status: number;
  errorCode: ErrorCode | null;
  usage: Usage | null;
  /** Exact cost in minor units (decimal string). */
  cost: string;
  /** Whole minor units charged (the cost plus the caller's carried remainder, rounded down). */
  charge: number;
  billingStatus: BillingStatus;
  /** Epoch milliseconds when the request arrived. */
  startedAt: number;
  durationMs: number;
  /** Time to the first byte of a stream, in milliseconds; null for JSON answers. */
  ttfbMs: number | null;
  upstream: string | null;
  /** Private diagnosis (upstream status and text); never sent to a client. */
  detail: string | null;
  /** The caller's own `user` tag or `metadata.user_id`, if any. */
  user: string | null;
  /** Every upstream attempt when failover() retried; empty otherwise. */
  attempts: readonly UpstreamAttempt[];
}

/** Appends request-log entries. */
export interface RequestLogStore {
  appendLog(entry: RequestLogEntry): Awaitable<void>;
}

/** Everything the router needs from the host's persistence. */
export interface GatewayStore extends KeyStore, BalanceStore, RequestLogStore {}
