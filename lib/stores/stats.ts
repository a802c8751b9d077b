/** Reads for an operator's overview, the same on every store: accounts by balance, and the request log counted per time bucket. */
import { GatewayError } from '../foundation/errors';
import { checkRange, type Page } from './reads';
import type { Awaitable } from './types';

/** A caller's balance and live holds, as the accounts list shows them. */
export interface AccountRow {
  callerId: string;
  /** Integer minor units. */
  balance: number;
  /** Sum of the live holds. */
  held: number;
}

/** A page of accounts, lowest balance first (ties by caller id). */
export interface AccountQuery {
  /** Page size, 1 to 1000. Default: 100. */
  limit?: number;
  /** The `next` of the page before. */
  after?: string;
}

/** The request log of [from, to) counted in buckets of `bucketMs`, the first starting at `from`. */
export interface SeriesQuery {
  from: number;
  to: number;
  /** Bucket length in ms: at least one minute, and at most MAX_BUCKETS buckets in the range. */
  bucketMs: number;
  callerId?: string;
}

/** One bucket of a series: every bucket of the range is present, empty ones with zeros. */
export interface SeriesPoint {
  /** Epoch ms at which the bucket starts. */
  at: number;
  requests: number;
  /** Requests that failed: an error code, or a status of 400 or more. */
  errors: number;
  /** Exact cost of the requests in minor units (decimal string). */
  cost: string;
  /** Integer minor units charged (review resolutions included). */
  charge: number;
}

/** The overview reads both built-in stores offer. */
export interface StatsReads {
  /** Accounts, lowest balance first. */
  listAccounts(query?: AccountQuery): Awaitable<Page<AccountRow>>;
  /** Requests, errors and spend per bucket of the range. */
  requestSeries(query: SeriesQuery): Awaitable<SeriesPoint[]>;
}

/** Most buckets one series may have. */
export const MAX_BUCKETS = 1000;
const MIN_BUCKET_MS = 60_000;

/** Checks a series query (throwing a 400 naming the field) and returns its number of buckets. */
export function bucketCount(q: SeriesQuery): number {
  checkRange(q);
  if (!Number.isSafeInteger(q.from) || !Number.isSafeInteger(q.to)) throw new GatewayError('invalid_request_error', `${Number.isSafeInteger(q.from) ? 'to' : 'from'}: Field required (epoch milliseconds)`);
  if (!Number.isSafeInteger(q.bucketMs) || q.bucketMs < MIN_BUCKET_MS) throw new GatewayError('invalid_request_error', `bucketMs: must be an integer of at least ${MIN_BUCKET_MS} (one minute)`);
  const count = Math.ceil((q.to - q.from) / q.bucketMs);
  if (count > MAX_BUCKETS) throw new GatewayError('invalid_request_error', `bucketMs: the range holds ${count} buckets, more than ${MAX_BUCKETS}; choose a longer bucket or a shorter range`);
  return count;
}

/** Every bucket of a query, empty. */
export function emptySeries(q: SeriesQuery): SeriesPoint[] {
  return Array.from({ length: bucketCount(q) }, (_, i) => ({ at: q.from + i * q.bucketMs, requests: 0, errors: 0, cost: '0', charge: 0 }));
}

/** Whether a request failed, as the logs and the overview count it. */
export const failed = (status: number, errorCode: string | null): boolean => errorCode !== null || status >= 400;

/** The accounts cursor: the balance and caller id of the last row shown. */
export const isAccountCursor = (v: unknown): v is [number, string] => Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string';
