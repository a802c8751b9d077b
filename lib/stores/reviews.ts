/** Requests flagged for review: what was observed, and their resolution (charge or waive), once. */
import { GatewayError } from '../foundation/errors';
import type { UpstreamAttempt } from '../billing/records';
import type { Usage } from '../types';
import type { Page } from './reads';

/** How a review was settled: an amount charged (0 when waived), by whom, why, when. */
export interface ReviewResolution {
  action: 'charge' | 'waive';
  /** Integer minor units charged by the resolution (0 for `waive`). */
  amount: number;
  by: string;
  reason: string;
  /** Epoch ms. */
  at: number;
}

/** A request settled as `needs_review`, with the figures observed and their provenance. */
export interface ReviewRecord {
  requestId: string;
  callerId: string;
  model: string;
  endpoint: string;
  /** What its settlement charged (the confirmed part only). */
  charge: number;
  usage: Usage;
  upstream: string | null;
  /** Its request-log line's private detail (why the usage was not confirmed, e.g. the figure not believed); null without one. */
  detail: string | null;
  /** Its request-log line's upstream attempts (the one that served names the format its usage is priced by). */
  attempts: readonly UpstreamAttempt[];
  /** Epoch ms of the settlement. */
  at: number;
  resolution: ReviewResolution | null;
}

/** A decision on one review. */
export interface ResolveReview {
  requestId: string;
  action: 'charge' | 'waive';
  /** Integer minor units to charge; required for `charge`, absent or 0 for `waive`. */
  amount?: number;
  /** Who decides (an operator or token name), for the ledger and the log. */
  by: string;
  reason: string;
}

/** A page of reviews, oldest first (by time, then request id); `next` continues it. */
export type ReviewPage = Page<ReviewRecord>;

/** Which reviews to list. */
export interface ReviewQuery {
  callerId?: string;
  /** Only this request's review (listed whether open or not). */
  requestId?: string;
  /** Only those not resolved yet. Default: true. */
  open?: boolean;
  /** Page size, 1 to 1000. Default: 100. */
  limit?: number;
  /** The `next` of the page before. */
  after?: string;
}

/** Listing and resolving reviews (both built-in stores). */
export interface ReviewStore {
  listReviews(query?: ReviewQuery): Promise<ReviewPage> | ReviewPage;
  /** Applies a decision exactly once; the same decision again is a no-op (`applied: false`), another one is refused. */
  resolveReview(decision: ResolveReview): Promise<{ applied: boolean; review: ReviewRecord }> | { applied: boolean; review: ReviewRecord };
}

/** Checks a decision; throws a GatewayError (400) that names the field. */
export function checkDecision(d: ResolveReview): ResolveReview & { amount: number } {
  const fail = (message: string): never => { throw new GatewayError('invalid_request_error', message); };
  if (typeof d?.requestId !== 'string' || d.requestId.length === 0) fail('requestId: must be a request id');
  if (d.action !== 'charge' && d.action !== 'waive') fail('action: must be "charge" or "waive"');
  const amount = d.amount ?? 0;
  if (!Number.isSafeInteger(amount) || amount < 0) fail('amount: must be a non-negative integer of minor units');
  if (d.action === 'charge' && amount === 0) fail('amount: a charge needs a positive amount (or waive it)');
  if (d.action === 'waive' && amount !== 0) fail('amount: a waiver charges nothing');
  if (typeof d.by !== 'string' || d.by.length === 0 || d.by.length > 200) fail('by: must name who decides (1 to 200 characters)');
  if (typeof d.reason !== 'string' || d.reason.trim().length === 0 || d.reason.length > 2000) fail('reason: must say why (1 to 2000 characters)');
  return { ...d, amount };
}

/** The result of resolving a review already resolved: the same decision is a no-op, another is refused. */
export function alreadyResolved(review: ReviewRecord, d: ResolveReview & { amount: number }): { applied: false; review: ReviewRecord } {
  const r = review.resolution as ReviewResolution;
  if (r.action !== d.action || r.amount !== d.amount) {
    throw new GatewayError('invalid_request_error', `requestId: ${d.requestId} was already resolved (${r.action} ${r.amount} by ${r.by}).`);
  }
  return { applied: false, review };
}

/** The billing status a resolution leaves in the request log. */
export const resolvedStatus = (action: ReviewResolution['action']): 'billed' | 'waived' => (action === 'charge' ? 'billed' : 'waived');
