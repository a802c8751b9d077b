/** MemoryStore's reviews: kept bounded, listed oldest first, resolved once. */
import { GatewayError } from '../../foundation/errors';
import { keepBounded, lastOf } from './bounded';
import { pageOf } from './reads';
import type { Page } from '../reads';
import {
  alreadyResolved, checkDecision, resolvedStatus, type ReviewQuery, type ReviewRecord, type ReviewResolution, type ResolveReview,
} from '../reviews';
import type { RequestLogEntry, Settlement } from '../types';

/** A settlement with the whole charge the store made for it. */
export type ChargedSettlement = Settlement & { charge: number };

interface Kept {
  settlement: ChargedSettlement;
  at: number;
}

/** The reviews of one MemoryStore; it lends the log lookup and applies a resolution's money. */
export class MemoryReviews {
  private readonly kept: Kept[] = [];
  private readonly resolutions = new Map<string, ReviewResolution>();

  constructor(private readonly max: number, private readonly logEntry: (requestId: string) => RequestLogEntry | undefined) {}

  add(settlement: ChargedSettlement): void {
    keepBounded(this.kept, { settlement, at: Date.now() }, this.max);
  }

  all(): ReviewRecord[] {
    return lastOf(this.kept, this.max).map((k) => this.recordOf(k));
  }

  private recordOf({ settlement: s, at }: Kept): ReviewRecord {
    const line = this.logEntry(s.requestId);
    return {
      requestId: s.requestId, callerId: s.callerId, model: s.model, endpoint: s.endpoint, charge: s.charge, usage: s.usage,
      upstream: line?.upstream ?? null, detail: line?.detail ?? null, attempts: line?.attempts ?? [], at, resolution: this.resolutions.get(s.requestId) ?? null,
    };
  }

  /** Oldest first, by time then request id (as PostgresStore). */
  list(query: ReviewQuery): Page<ReviewRecord> {
    const open = query.requestId === undefined && (query.open ?? true);
    const page = pageOf(lastOf(this.kept, this.max), { limit: query.limit, after: query.after }, {
      keep: (k) => (query.callerId === undefined || k.settlement.callerId === query.callerId) && (query.requestId === undefined || k.settlement.requestId === query.requestId)
        && !(open && this.resolutions.has(k.settlement.requestId)),
      key: (k) => [k.at, k.settlement.requestId], shape: ['number', 'string'], order: 'oldest',
    });
    return { items: page.items.map((k) => this.recordOf(k)), next: page.next };
  }

  /** Records the decision once; `charge(callerId, amount)` moves its money. */
  resolve(decision: ResolveReview, charge: (callerId: string, requestId: string, amount: number) => void): { applied: boolean; review: ReviewRecord } {
    const d = checkDecision(decision);
    const kept = this.kept.findLast((k) => k.settlement.requestId === d.requestId);
    if (!kept) throw new GatewayError('not_found_error', `requestId: no review for ${d.requestId}`);
    if (this.resolutions.has(d.requestId)) return alreadyResolved(this.recordOf(kept), d);
    this.resolutions.set(d.requestId, { action: d.action, amount: d.amount, by: d.by, reason: d.reason, at: Date.now() });
    if (d.amount > 0) charge(kept.settlement.callerId, d.requestId, d.amount);
    const entry = this.logEntry(d.requestId);
    if (entry) Object.assign(entry, { charge: entry.charge + d.amount, billingStatus: resolvedStatus(d.action) });
    return { applied: true, review: this.recordOf(kept) };
  }
}
