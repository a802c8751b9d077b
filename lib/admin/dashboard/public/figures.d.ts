/** assets/figures.js, written by the gateway from its tables (lib/admin/dashboard/figures.ts): [field, label] pairs; the billing statuses. */
export const USAGE_FIGURES: ReadonlyArray<readonly [string, string]>;
/** [field, short label] pairs: a figure where room is short ("cache read"). */
export const SHORT_LABELS: ReadonlyArray<readonly [string, string]>;
export const PRICE_FIELDS: ReadonlyArray<readonly [string, string]>;
export const BILLING_STATUSES: ReadonlyArray<import('./shapes').BillingStatus>;
