/** What the admin API needs of a store (both built-in stores have it all), and its audited writes. */
import type { Response } from 'express';
import { GatewayError } from '../foundation/errors';
import type { AuditStore } from '../stores/audit';
import type { BudgetStore } from '../stores/budgets';
import type { Credit, CreditResult } from '../stores/credit';
import type { KeyAdminStore } from '../stores/keys';
import type { Account, LedgerReads } from '../stores/reads';
import type { ResponseStore } from '../stores/responses';
import type { ReviewStore } from '../stores/reviews';
import type { StatsReads } from '../stores/stats';
import type { Awaitable } from '../stores/types';

/**
 * A store the admin API can run on. `responses` (stored Responses API responses) is optional: a
 * store without it has stored none, so an erasure deletes none and no request shows a response.
 */
export type AdminStore = KeyAdminStore & AuditStore & ReviewStore & LedgerReads & StatsReads & BudgetStore & {
  credit(credit: Credit): Awaitable<CreditResult>;
  readonly responses?: Pick<ResponseStore, 'deleteResponsesOf' | 'responseOfRequest'>;
};

export const ADMIN_METHODS = ['createKey', 'getKey', 'listKeys', 'updateKey', 'appendAudit', 'listAudit', 'listReviews', 'resolveReview',
  'getAccount', 'listLedger', 'listRequests', 'spend', 'credit', 'listAccounts', 'requestSeries',
  'putBudget', 'getBudget', 'listBudgets', 'deleteBudget', 'setOrganization', 'getOrganization', 'budgetUsage'] as const;

/** Records an operator's write in the audit trail, under the name of the token that made it. */
export async function audit(store: AdminStore, res: Response, action: string, target: string, before: unknown, after: unknown): Promise<void> {
  await store.appendAudit({ actor: res.locals.admin?.name ?? 'unknown', action, target, before: before ?? null, after: after ?? null });
}

/**
 * A credit or debit (admin API and CLI alike): the store refuses an unknown caller unless
 * `createAccount`; an applied one is audited with the account before (null if it was opened) and after.
 */
export async function creditAudited(store: AdminStore, actor: string, credit: Credit): Promise<CreditResult & { account: Account }> {
  const before = await Promise.resolve().then(() => store.getAccount(credit.callerId)).catch((err: unknown) => {
    if (err instanceof GatewayError && err.code === 'not_found_error') return null; // the credit says why, or opens it
    throw err;
  });
  const result = await store.credit(credit);
  const account = await store.getAccount(credit.callerId);
  const after = { ...account, amount: credit.amount, idempotencyKey: credit.idempotencyKey };
  if (result.applied) await store.appendAudit({ actor, action: credit.amount > 0 ? 'credit' : 'debit', target: `caller:${credit.callerId}`, before, after });
  return { ...result, account };
}
