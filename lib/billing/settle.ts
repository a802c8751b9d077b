/** The billing rule: what a finished request is charged, decided only from confirmed usage. */
import type { GatewayContext } from '../context';
import type { BillingStatus, RequestLogEntry, Settlement } from '../stores/types';
import type { Usage } from '../types';
import type { UpstreamAttempt } from '../upstreams/types';
import { formatOf } from '../catalog';
import type { UpstreamFormat } from './figures';
import { costOf } from './pricing';

/** The attempts of a request that made no failover attempts: one shared array, not one kept per log entry. */
const NO_ATTEMPTS: readonly UpstreamAttempt[] = Object.freeze([]);

/** The outcome of a request for billing. */
export interface BillingDecision {
  /** Exact cost in minor units (decimal string); the store turns it into a whole charge. */
  cost: string;
  billingStatus: BillingStatus;
  usage: Usage;
}

/**
 * The format a request's usage is priced by (prices left out default by it): the one the last
 * successful attempt names (the failover member that served), else the model's adapter's.
 */
export function pricingFormatOf(ctx: GatewayContext): UpstreamFormat | undefined {
  for (let i = ctx.attempts.length - 1; i >= 0; i--) {
    const attempt = ctx.attempts[i] as UpstreamAttempt;
    if (attempt.ok && attempt.format !== undefined) return attempt.format;
  }
  return ctx.model && formatOf(ctx.model);
}

/**
 * - `confirmed` usage: billed its exact cost at the model's price (0 for a free model);
 * - `partial` (a stream ended before its final usage): only the confirmed figures are
 *   charged, and the request is marked needs_review;
 * - `units_only` (search units), `implausible` figures, or no usage although the upstream
 *   answered (a successful answer, or a stream that had started): charged 0, needs_review;
 * - no usage and no answer (refused or failed before the upstream answered), or an answer the
 *   gateway refused as invalid (`ctx.invalidAnswer`, JSON or stream): not billed, with whatever
 *   usage the upstream reported before the refusal kept in the log.
 * The admission estimate never enters this function.
 */
export function decide(ctx: GatewayContext, succeeded: boolean): BillingDecision {
  const usage = ctx.usage.snapshot();
  if (ctx.invalidAnswer) return { usage, cost: '0', billingStatus: 'not_billed' };
  const price = ctx.model?.pricing;
  const format = pricingFormatOf(ctx);
  switch (usage.provenance) {
    case 'confirmed':
      return { usage, cost: costOf(usage, price, format), billingStatus: 'billed' };
    case 'partial':
      return { usage, cost: costOf(usage, price, format), billingStatus: 'needs_review' };
    case 'units_only':
    case 'implausible':
      return { usage, cost: '0', billingStatus: 'needs_review' };
    default: {
      const answered = succeeded || ctx.ttfbMs !== undefined;
      return { usage, cost: '0', billingStatus: answered ? 'needs_review' : 'not_billed' };
    }
  }
}

/** The settlement record for a decided request. */
export function settlementOf(ctx: GatewayContext, decision: BillingDecision): Settlement {
  return {
    requestId: ctx.requestId,
    callerId: ctx.caller?.id ?? '',
    model: ctx.model?.id ?? '',
    endpoint: ctx.endpoint,
    ...decision,
  };
}

/** Two private details as one (either may be missing). */
const joined = (a: string | undefined, b: string | undefined): string | null => (a && b ? `${a}; ${b}` : a ?? b ?? null);

/** The request-log entry of a finished request; `charge` is 0 until the store's settle says what it charged. */
export function logEntryOf(ctx: GatewayContext, status: number, decision: BillingDecision | undefined): RequestLogEntry {
  return {
    requestId: ctx.requestId,
    callerId: ctx.caller?.id ?? null,
    endpoint: ctx.endpoint,
    model: ctx.model?.id ?? ctx.requestedModel ?? null,
    stream: ctx.stream,
    status,
    errorCode: ctx.errorCode ?? null,
    usage: decision ? decision.usage : null,
    cost: decision?.cost ?? '0',
    charge: 0,
    billingStatus: decision?.billingStatus ?? 'not_billed',
    startedAt: ctx.startedAt,
    durationMs: Math.round((performance.now() - ctx.startedHr) * 1000) / 1000,
    ttfbMs: ctx.ttfbMs === undefined ? null : Math.round(ctx.ttfbMs * 1000) / 1000,
    upstream: ctx.upstream ?? null,
    detail: decision?.usage.provenance === 'implausible' ? joined(ctx.detail, ctx.usage.observed()) : ctx.detail ?? null,
    user: ctx.user ?? null,
    attempts: ctx.attempts.length > 0 ? ctx.attempts : NO_ATTEMPTS,
  };
}
