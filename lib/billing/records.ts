/** The records a finished request leaves: its settlement, its request-log line and the upstream attempts the line lists. The stores keep them as they are. */
import type { ErrorCode } from '../foundation/errors';
import type { BillingStatus } from '../schemas/shapes';
import type { Pricing, UpstreamFormat, Usage } from './figures';

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
  /**
   * The budgets the request was held on, each with the period it was admitted in: the charge moves
   * each scope in that period (so a request in flight across a reset settles in the period it began in).
   */
  scopes?: readonly ScopeHold[];
}

/** A budget on a request's path, as reserve holds it and settle moves it: its scope, the key of the period it was admitted in, and its caps. */
export interface ScopeHold {
  /** `org:<id>`, `account:<callerId>`, `key:<keyId>`, `run:<keyId>`, `session:<owner scope>/<session>`, `subagent:<owner scope>/<session>/<agent>`. */
  scope: string;
  /** The period's key (`d:2026-11-24`, `w:2026-11-23`, `m:2026-11`, `total`): spend is kept per scope and period. */
  period: string;
  /** Caps for this period (null: none on that dimension). */
  amount: number | null;
  requests: number | null;
  tokens: number | null;
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
  /** The key that made the request (absent when unknown). */
  keyId?: string;
  /** The client session it named, and where that id was read: a header or a body field (lib/budgets/session.ts). */
  sessionId?: string;
  sessionSource?: string;
  /** The subagent that made it (Claude Code's `x-claude-code-agent-id`, or `x-agent-id`). */
  agentId?: string;
}

/** One attempt at an upstream, as the request log keeps it. */
export interface UpstreamAttempt {
  upstream: string;
  ok: boolean;
  /** Standard code of a failed attempt. */
  code?: string;
  /** Private detail of a failed attempt. */
  detail?: string;
  ms: number;
  /**
   * The wire format of the upstream this attempt reached. The request's cache figures are priced
   * by the format of the successful attempt that served it (see `servedBy()`), else by the
   * model's adapter's; failover() sets it, and a host's own failover wrapper should too.
   */
  format?: UpstreamFormat;
  /** The model name this attempt sent upstream (failover() records it: a member may have its own). */
  model?: string;
  /** The prices of the member this attempt reached, when it carries its own: they bill the request it served. */
  pricing?: Pricing;
}
