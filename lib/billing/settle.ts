/** The billing rule: what a finished request is charged, decided only from confirmed usage, from plain facts (no request context). */
import type { BillingStatus } from '../schemas/shapes';
import { REVIEW_PRICES, type Pricing, type UpstreamFormat, type Usage } from './figures';
import { costOf } from './pricing';
import { exceedsBound } from './bound';
import type { UpstreamAttempt } from './records';

/** The outcome of a request for billing. */
export interface BillingDecision {
  /** Exact cost in minor units (decimal string); the store turns it into a whole charge. */
  cost: string;
  billingStatus: BillingStatus;
  usage: Usage;
}

/** What the rule decides from: the request's confirmed usage and what it is priced by. */
export interface BillingFacts {
  readonly usage: Usage;
  /** The price of the model or of the member that served (servedBy()); none: a free model. */
  readonly pricing: Pricing | undefined;
  /** The upstream format its cache figures are priced by (servedBy()). */
  readonly format: UpstreamFormat | undefined;
  /** The upstream's answer was refused as invalid (JSON or stream). */
  readonly invalidAnswer: boolean;
  /** The upstream answered: the request succeeded, or its stream had started. */
  readonly answered: boolean;
  /** Under a budget: the bound held for it (whole minor units). A confirmed cost above it is still charged, and flagged for review. */
  readonly bound?: number;
}

/** What a request's usage is priced by: the prices, and the upstream format those left out default by. */
export interface PricedBy {
  readonly pricing: Pricing | undefined;
  readonly format: UpstreamFormat | undefined;
}

/**
 * What a request is priced by: the member that served it, else `model` (its own prices and its
 * adapter's format). The successful attempts are read innermost first (a nested group's member
 * records its attempt before the group around it does): the first that names a format gives the
 * format, the first that carries prices (a member with its own) gives the prices.
 */
export function servedBy(attempts: readonly UpstreamAttempt[], model: PricedBy): PricedBy {
  let format: UpstreamFormat | undefined;
  let pricing: Pricing | undefined;
  for (const attempt of attempts) {
    if (!attempt.ok) continue;
    format ??= attempt.format;
    pricing ??= attempt.pricing;
  }
  if (pricing === undefined && (format === undefined || format === model.format)) return model;
  return { pricing: pricing ?? model.pricing, format: format ?? model.format };
}

/**
 * - `confirmed` usage: billed its exact cost at the model's price (0 for a free model); under a
 *   budget, a cost above the bound held for it (an upstream that confirmed more than any request
 *   could use) is charged as confirmed and marked needs_review;
 * - `partial` (a stream ended before its final usage): only the confirmed figures are
 *   charged, and the request is marked needs_review;
 * - `units_only` (search units): billed their exact cost when the model sets their price
 *   (`searchUnit`, which has no default), else charged 0, needs_review (never billed from a guess);
 * - `implausible` figures, or no usage although the upstream answered (a successful answer, or
 *   a stream that had started): charged 0, needs_review;
 * - no usage and no answer (refused or failed before the upstream answered), or an answer the
 *   gateway refused as invalid (`invalidAnswer`, JSON or stream): not billed, with whatever
 *   usage the upstream reported before the refusal kept in the log.
 * The admission estimate never enters this function.
 */
export function decide(facts: BillingFacts): BillingDecision {
  const usage = facts.usage;
  if (facts.invalidAnswer) return { usage, cost: '0', billingStatus: 'not_billed' };
  switch (usage.provenance) {
    case 'confirmed': {
      const cost = costOf(usage, facts.pricing, facts.format);
      return { usage, cost, billingStatus: facts.bound !== undefined && exceedsBound(cost, facts.bound) ? 'needs_review' : 'billed' };
    }
    case 'partial':
      return { usage, cost: costOf(usage, facts.pricing, facts.format), billingStatus: 'needs_review' };
    case 'units_only':
      if (facts.pricing && REVIEW_PRICES.every((field) => facts.pricing?.[field] !== undefined)) {
        return { usage, cost: costOf(usage, facts.pricing, facts.format), billingStatus: 'billed' };
      }
      return { usage, cost: '0', billingStatus: 'needs_review' };
    case 'implausible':
      return { usage, cost: '0', billingStatus: 'needs_review' };
    default:
      return { usage, cost: '0', billingStatus: facts.answered ? 'needs_review' : 'not_billed' };
  }
}
