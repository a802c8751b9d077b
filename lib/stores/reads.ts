/** Reads of the money and the request log, the same on every store: filters, cursor pages, spend by day. */
import type { UsageFigureName } from '../billing/figures';
import type { Usage } from '../types';
import { GatewayError } from '../foundation/errors';
import type { Awaitable, BillingStatus, RequestLogEntry } from './types';

/**
 * A page of a list in its fixed order; `next` continues it (null on the last page). Walking the
 * pages gives every entry that existed when the walk began exactly once, whatever the page size
 * and however many entries share a time: a cursor names the last entry's place in the order.
 */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** A caller's money: whole minor units, plus the remainder below one unit owed but not charged yet. */
export interface Account {
  balance: number;
  /** Sum of the live holds. */
  held: number;
  /** Cost carried to the next charge, a decimal string below 1 ("0.0258"). */
  carry: string;
  /** Sum of the ledger: always equal to `balance`. */
  ledger: number;
}

/** One movement of money. */
export interface LedgerEntry {
  /** A whole number, as a string, that grows with every entry of a store (lists order by its value, never its text). */
  id: string;
  callerId: string;
  /** The request it charged, or the request a review resolution charged. */
  requestId: string | null;
  /** Positive for a credit, negative for a charge or debit. */
  amount: number;
  kind: 'credit' | 'charge' | 'review';
  /** Epoch ms. */
  at: number;
  /** What a charge was for, figure by figure; null for credits, debits and review resolutions. */
  usage: Usage | null;
}

/** Filters shared by the reads; times are epoch ms, `from` included, `to` excluded. */
export interface ReadQuery {
  callerId?: string;
  from?: number;
  to?: number;
  /** Page size, 1 to 1000. Default: 100. */
  limit?: number;
  /** The `next` of the page before. */
  after?: string;
}

/** Filters of the request log. */
export interface RequestQuery extends ReadQuery {
  /** One request by its id. */
  requestId?: string;
  model?: string;
  endpoint?: string;
  status?: number;
  billingStatus?: BillingStatus;
}

/** Spend of one caller on one model on one UTC day, with the sum of every usage figure (USAGE_FIGURES). */
export interface SpendRow extends Record<UsageFigureName, number> {
  callerId: string;
  model: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  requests: number;
  /** Exact cost of the requests in minor units (decimal string). */
  cost: string;
  /** Integer minor units charged (review resolutions included). */
  charge: number;
}

/** Reads every built-in store offers. */
export interface LedgerReads {
  /** A caller's money; throws a `not_found_error` GatewayError for a caller with no account (see Credit). */
  getAccount(callerId: string): Awaitable<Account>;
  /** Newest first: by id (a number, as a string), which grows with time. */
  listLedger(query?: ReadQuery): Awaitable<Page<LedgerEntry>>;
  /** Newest first: by `startedAt`, then by request id. */
  listRequests(query?: RequestQuery): Awaitable<Page<RequestLogEntry>>;
  /** Spend per caller × model × UTC day of the requests started in [from, to), by day, caller, then model. */
  spend(query: ReadQuery & { from: number; to: number }): Awaitable<Page<SpendRow>>;
}

/** Checks the time range of a query; throws a 400 naming the field. */
export function checkRange(query: ReadQuery): void {
  for (const key of ['from', 'to'] as const) {
    const value = query[key];
    if (value !== undefined && !Number.isSafeInteger(value)) throw new GatewayError('invalid_request_error', `${key}: must be epoch milliseconds`);
  }
  if (query.from !== undefined && query.to !== undefined && query.from > query.to) throw new GatewayError('invalid_request_error', 'from: must not be after to');
}

/** The UTC day of an epoch-ms time. */
export const utcDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

/** Page size of a query, checked. */
export function pageSize(limit: number | undefined): number {
  const n = limit ?? 100;
  if (!Number.isSafeInteger(n) || n < 1 || n > 1000) throw new GatewayError('invalid_request_error', 'limit: must be an integer from 1 to 1000');
  return n;
}

/** Opaque cursors: base64url of JSON, checked when read back. */
export const encodeCursor = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export function decodeCursor<T>(cursor: string | undefined, valid: (value: unknown) => value is T): T | undefined {
  if (cursor === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    value = undefined;
  }
  if (!valid(value)) throw new GatewayError('invalid_request_error', 'after: is not a cursor this list gave');
  return value;
}
