/**
 * The budget half of the store contract. The request path names each scope a request passes
 * through with its caps and its period (the key of the period the gateway's clock put it in), and
 * the store holds and settles them in the same atomic step as the balance: a period is a row of
 * its own (a reset is a new row, never a write), and a hold settles in the period it was taken in.
 */
import { GatewayError } from '../foundation/errors';
import { budgetLimitsSchema, type Budget, type BudgetLimits } from '../schemas/budgets';
import type { Page } from './reads';
import type { Awaitable } from '../foundation/sync';

/** One scope on a request's path, as reserve and settle carry it (defined with the records a request leaves). */
export type { ScopeHold } from '../billing/records';

/** Which cap refused a request. */
export type BudgetDimension = 'amount' | 'requests' | 'tokens';

/** A scope's refusal: which scope, which cap, and what was left of it for this request. */
export interface ScopeRefusal {
  scope: string;
  dimension: BudgetDimension;
  /** Minor units, requests or tokens left before this request (0 or more). */
  left: number;
}

/**
 * A scope's figures in one period. `spent` never exceeds the cap it was charged under: a charge
 * beyond it (an upstream that confirmed more than the request's bound, a hold that lapsed before
 * its request settled) goes to `excess` and the request is flagged for review.
 */
export interface BudgetUsage {
  scope: string;
  period: string;
  spent: number;
  /** Minor units held by requests in flight. */
  held: number;
  excess: number;
  requests: number;
  requestsHeld: number;
  tokens: number;
  tokensHeld: number;
}

/** A read of budget usage: one scope (and period), or every scope under a prefix (a key's sessions: `session:key:key_…/`). */
export interface UsageQuery {
  scope?: string;
  prefix?: string;
  period?: string;
  limit?: number;
  after?: string;
}

/** Budgets of organisations and accounts, account membership of organisations, and the usage of every scope (both built-in stores). */
export interface BudgetStore {
  /** Creates or replaces the budget of an `org:` or `account:` scope; returns it before (undefined: new) and after. */
  putBudget(scope: string, limits: BudgetLimits): Awaitable<{ before: Budget | undefined; after: Budget }>;
  getBudget(scope: string): Awaitable<Budget | undefined>;
  /** Budgets by scope, in scope order. */
  listBudgets(query?: { limit?: number; after?: string }): Awaitable<Page<Budget>>;
  /** Removes a budget (its usage rows stay); returns it, or undefined when there was none. */
  deleteBudget(scope: string): Awaitable<Budget | undefined>;
  /** Puts an account in an organisation (null: in none); a caller with no account is a `not_found_error`. Returns the organisation before and after. */
  setOrganization(callerId: string, orgId: string | null): Awaitable<{ before: string | null; after: string | null }>;
  getOrganization(callerId: string): Awaitable<string | null>;
  /** Usage rows in (scope, period) order. */
  budgetUsage(query: UsageQuery): Awaitable<Page<BudgetUsage>>;
}

/** A scope a stored budget may sit on: an organisation or an account. */
const STORED_SCOPE = /^(org|account):[^\s]{1,256}$/;

/** Checks a budget before a store keeps it: its scope's form and its caps' shape; throws a 400 naming the field. */
export function checkBudget(scope: string, limits: BudgetLimits): void {
  if (typeof scope !== 'string' || !STORED_SCOPE.test(scope)) throw new GatewayError('invalid_request_error', `scope: must be "org:<id>" or "account:<callerId>" (a key's budget is on its record), got ${JSON.stringify(String(scope).slice(0, 80))}`);
  if (typeof limits !== 'object' || limits === null || Object.keys(budgetLimitsSchema.properties).some((k) => !(k in limits))) {
    throw new GatewayError('invalid_request_error', `limits: must have ${Object.keys(budgetLimitsSchema.properties).join(', ')}`);
  }
}

/** Checks an organisation id (null: none); throws a 400 naming the field. */
export function checkOrgId(orgId: string | null): void {
  if (orgId !== null && (typeof orgId !== 'string' || !/^[^\s]{1,256}$/.test(orgId))) throw new GatewayError('invalid_request_error', 'orgId: must be 1 to 256 characters without spaces, or null');
}

/** The usage of a scope and period nothing has touched yet. */
export const emptyUsage = (scope: string, period: string): BudgetUsage => ({ scope, period, spent: 0, held: 0, excess: 0, requests: 0, requestsHeld: 0, tokens: 0, tokensHeld: 0 });
