/** What the admin API needs of a store (both built-in stores have it all), and its audit helper. */
import type { Response } from 'express';
import type { AuditStore } from '../stores/audit';
import type { Credit, CreditResult } from '../stores/credit';
import type { KeyAdminStore } from '../stores/keys';
import type { LedgerReads } from '../stores/reads';
import type { ReviewStore } from '../stores/reviews';
import type { StatsReads } from '../stores/stats';
import type { Awaitable } from '../stores/types';

/** A store the admin API can run on. */
export type AdminStore = KeyAdminStore & AuditStore & ReviewStore & LedgerReads & StatsReads & { credit(credit: Credit): Awaitable<CreditResult> };

export const ADMIN_METHODS = ['createKey', 'getKey', 'listKeys', 'updateKey', 'appendAudit', 'listAudit', 'listReviews', 'resolveReview',
  'getAccount', 'listLedger', 'listRequests', 'spend', 'credit', 'listAccounts', 'requestSeries'] as const;

/** Records an operator's write in the audit trail, under the name of the token that made it. */
export async function audit(store: AdminStore, res: Response, action: string, target: string, before: unknown, after: unknown): Promise<void> {
  await store.appendAudit({ actor: res.locals.admin?.name ?? 'unknown', action, target, before: before ?? null, after: after ?? null });
}
