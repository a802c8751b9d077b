/** Admin routes of reviews (listed, one, resolved), each shown with why it was flagged and what its observed usage costs at the model's prices. */
import { Type } from '@sinclair/typebox';
import type { UsageFigureName, UsageProvenance } from '../billing/figures';
import { PICO_PER_UNIT, toPico } from '../billing/money';
import { costOf, unpricedFigures } from '../billing/pricing';
import { servedBy } from '../billing/settle';
import { formatOf, type Catalog } from '../catalog/catalog';
import { ownEntry } from '../foundation/own';
import { enumOf } from '../schemas/shapes';
import type { ReviewRecord } from '../stores/reviews';
import { notFoundError } from './http';
import { page, paging, queryText, ref } from './schemas';
import { audit } from './store';
import { defineRoute, type AdminRoute, type AdminContext } from './table';

const { Optional } = Type;

/** Why a request was flagged, by its usage's provenance (the log line's detail says more). */
const FLAGGED: Readonly<Record<UsageProvenance, string>> = {
  partial: 'its stream ended before the upstream\'s final usage: only the figures it confirmed were charged',
  units_only: 'the upstream reported only search units, and the model set no searchUnit price for them',
  implausible: 'the upstream reported a usage figure no request could have: kept as observed, charged 0',
  none: 'the upstream answered but reported no usage',
  confirmed: 'its usage was confirmed',
};

/** What a review's observed usage costs at its model's prices now. */
export interface ObservedCost {
  /** Exact cost in minor units, a decimal string. */
  cost: string;
  /** The whole minor units of that cost, rounded down (null beyond 2^53 − 1: an implausible figure). */
  charge: number | null;
  /** What charging it would still add: `charge` less what the settlement and any resolution charged, at least 0 (null with `charge`). */
  outstanding: number | null;
  /** Figures observed that the model does not price (search units without `searchUnit`): not in `cost`. */
  unpriced: UsageFigureName[];
}

/** A review as the admin API shows it. */
export type ReviewView = ReviewRecord & { flagged: string; observed: ObservedCost | null };

/** The cost of a review's observed usage at its model's prices now (null when the model left the catalog). */
function observedCost(r: ReviewRecord, catalog: Catalog | undefined): ObservedCost | null {
  const model = catalog?.byId.get(r.model);
  if (!model) return null;
  const by = servedBy(r.attempts, { pricing: model.pricing, format: formatOf(model) }); // the serving failover member's prices, when it has its own
  const cost = costOf(r.usage, by.pricing, by.format);
  const whole = (toPico(cost) ?? 0n) / PICO_PER_UNIT;
  const charge = whole <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(whole) : null;
  const charged = r.charge + (r.resolution?.amount ?? 0);
  return { cost, charge, outstanding: charge === null ? null : Math.max(0, charge - charged), unpriced: unpricedFigures(r.usage, by.pricing) };
}

/** Each review with why it was flagged and its observed cost, priced by the catalog as it serves now. */
export async function reviewViews(records: readonly ReviewRecord[], ctx: AdminContext): Promise<ReviewView[]> {
  const catalog = records.length > 0 ? await ctx.catalog.current() : undefined;
  return records.map((r) => ({ ...r, flagged: ownEntry(FLAGGED, r.usage?.provenance ?? 'none') ?? FLAGGED.none, observed: observedCost(r, catalog) }));
}

/** One request's review as shown, or null when it was never flagged. */
export async function reviewOf(requestId: string, ctx: AdminContext): Promise<ReviewView | null> {
  const [review] = (await ctx.store.listReviews({ requestId, limit: 1 })).items;
  return review ? ((await reviewViews([review], ctx))[0] as ReviewView) : null;
}

export const reviewRoutes: readonly AdminRoute[] = [
  defineRoute({
    method: 'get', path: '/reviews', summary: 'Reviews, oldest first (open only by default), each with why it was flagged and its observed usage\'s cost', access: 'read', answer: page('Review'),
    query: Type.Object({ callerId: Optional(queryText), open: Optional(Type.Boolean()), ...paging }),
    handle: async ({ query, ctx }) => {
      const out = await ctx.store.listReviews(query);
      return { items: await reviewViews(out.items, ctx), next: out.next };
    },
  }),
  defineRoute({
    method: 'get', path: '/reviews/{requestId}', summary: 'One review (open or resolved), with why it was flagged and its observed usage\'s cost', access: 'read', answer: ref('Review'),
    async handle({ params, ctx }) {
      const requestId = params.requestId ?? '';
      const review = await reviewOf(requestId, ctx);
      if (!review) throw notFoundError(`requestId: no review for ${requestId}`);
      return review;
    },
  }),
  defineRoute({
    method: 'post', path: '/reviews/{requestId}/resolve', summary: 'Charge or waive a flagged request, once', access: 'write',
    body: Type.Object({
      action: enumOf(['charge', 'waive']), amount: Optional(Type.Integer({ minimum: 0 })), reason: Type.String({ minLength: 1, maxLength: 1000 }),
    }, { additionalProperties: false }),
    answer: { type: 'object', required: ['applied', 'review'], properties: { applied: { type: 'boolean' }, review: ref('Review') } },
    async handle({ params, body, res, actor, ctx }) {
      const requestId = params.requestId ?? '';
      const out = await ctx.store.resolveReview({ requestId, action: body.action, amount: body.amount, reason: body.reason, by: actor });
      if (out.applied) await audit(ctx.store, res, `review.${body.action}`, `request:${requestId}`, null, out.review);
      return { applied: out.applied, review: (await reviewViews([out.review], ctx))[0] };
    },
  }),
];
