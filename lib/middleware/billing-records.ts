/** What billingHook() writes for a finished request, read off its context: the rule's facts, the settlement, the log line. */
import { exceedsBound } from '../billing/bound';
import { decide, servedBy, type BillingDecision, type PricedBy } from '../billing/settle';
import type { RequestLogEntry, Settlement, UpstreamAttempt } from '../billing/records';
import { ownPricedBy } from '../catalog/members';
import type { GatewayContext } from '../context';

/** The attempts of a request that made no failover attempts: one shared array, not one kept per log entry. */
const NO_ATTEMPTS: readonly UpstreamAttempt[] = Object.freeze([]);

const UNPRICED: PricedBy = Object.freeze({ pricing: undefined, format: undefined });

/** What a request's usage is priced by: the serving failover member's prices and format, else its model's (and its adapter's format). */
export function pricedByOf(ctx: GatewayContext): PricedBy {
  return servedBy(ctx.attempts, ctx.model ? ownPricedBy(ctx.model) : UNPRICED);
}

/** The billing rule (lib/billing/settle.ts) applied to a finished request. */
export function decisionOf(ctx: GatewayContext, succeeded: boolean): BillingDecision {
  const { pricing, format } = pricedByOf(ctx);
  const decision = decide({
    usage: ctx.usage.snapshot(),
    pricing,
    format,
    invalidAnswer: ctx.invalidAnswer,
    answered: succeeded || ctx.ttfbMs !== undefined,
    ...(ctx.budget ? { bound: ctx.budget.bound } : {}),
  });
  if (ctx.budget && exceedsBound(decision.cost, ctx.budget.bound)) {
    const note = `confirmed cost ${decision.cost} exceeds the budget bound ${ctx.budget.bound} held for it: charged as confirmed, its budgets stopped at their caps (excess kept)`;
    ctx.detail = ctx.detail ? `${ctx.detail}; ${note}` : note;
  }
  return decision;
}

/** The settlement record for a decided request. */
export function settlementOf(ctx: GatewayContext, decision: BillingDecision): Settlement {
  return {
    requestId: ctx.requestId,
    callerId: ctx.caller?.id ?? '',
    model: ctx.model?.id ?? '',
    endpoint: ctx.endpoint,
    ...decision,
    ...(ctx.budget ? { scopes: ctx.budget.scopes } : {}),
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
    keyId: ctx.caller?.keyId,
    sessionId: ctx.session?.id,
    sessionSource: ctx.session?.source,
    agentId: ctx.agentId,
  };
}
