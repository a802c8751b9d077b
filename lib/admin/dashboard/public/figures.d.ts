/** assets/figures.js, written by the gateway from its one table of figures (lib/admin/dashboard/figures.ts): [field, label] pairs. */
export const USAGE_FIGURES: ReadonlyArray<readonly [string, string]>;
export const PRICE_FIELDS: ReadonlyArray<readonly [string, string]>;
