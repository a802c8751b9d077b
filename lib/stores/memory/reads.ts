/** LedgerReads over in-memory lists: cursor pages in a fixed key order, and spend by day. */
import { everyFigure, FIGURE_NAMES } from '../../billing/figures';
import { fromPico, toPico } from '../../billing/money';
import type { AuditEntry, AuditQuery } from '../audit';
import type { LedgerRow } from './records';
import { checkRange, decodeCursor, encodeCursor, pageSize, utcDay, type LedgerEntry, type Page, type ReadQuery, type RequestQuery, type SpendRow } from '../reads';
import type { RequestLogEntry } from '../types';

/** A place in a list's order: compared part by part (numbers by value, strings by code unit); unique per item. */
export type SortKey = readonly (number | string)[];

function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number | string;
    const y = b[i] as number | string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** How a list is paged: the items kept, each one's key, the key's part types (to check a cursor), and the direction. */
export interface Paging<T> {
  keep?: (item: T) => boolean;
  key: (item: T) => SortKey;
  shape: readonly ('number' | 'string')[];
  order: 'newest' | 'oldest';
}

/**
 * One page of `list` in key order, after the cursor: the cursor is the last key shown, so an
 * item dropped or added meanwhile never shifts the rest (each is given exactly once).
 */
export function pageOf<T>(list: Iterable<T>, query: ReadQuery, { keep, key, shape, order }: Paging<T>): Page<T> {
  checkRange(query);
  const limit = pageSize(query.limit);
  const after = decodeCursor(query.after, (v): v is SortKey => Array.isArray(v) && v.length === shape.length && v.every((x, i) => typeof x === shape[i]));
  const sign = order === 'newest' ? -1 : 1;
  const rows: Array<{ item: T; key: SortKey }> = [];
  for (const item of list) {
    if (keep && !keep(item)) continue;
    const k = key(item);
    if (after === undefined || sign * compareKeys(k, after) > 0) rows.push({ item, key: k });
  }
  rows.sort((a, b) => sign * compareKeys(a.key, b.key)); // the lists are kept nearly in order: a near-linear sort
  const page = rows.slice(0, limit);
  return { items: page.map((r) => r.item), next: rows.length > limit ? encodeCursor(page.at(-1)?.key) : null };
}

/** Whether a time falls in the query's range. */
export const inRange = (at: number, q: ReadQuery): boolean => (q.from === undefined || at >= q.from) && (q.to === undefined || at < q.to);

/** Whether a log entry passes a request query's filters. */
export function matches(e: RequestLogEntry, q: RequestQuery): boolean {
  return (q.requestId === undefined || e.requestId === q.requestId) && (q.callerId === undefined || e.callerId === q.callerId) && (q.model === undefined || e.model === q.model)
    && (q.endpoint === undefined || e.endpoint === q.endpoint) && (q.status === undefined || e.status === q.status)
    && (q.billingStatus === undefined || e.billingStatus === q.billingStatus) && inRange(e.startedAt, q);
}

/** The ledger newest first, by sequence number (its id). */
export function ledgerPage(rows: readonly LedgerRow[], q: ReadQuery): Page<LedgerEntry> {
  const page = pageOf(rows, q, {
    keep: (r) => (q.callerId === undefined || r.callerId === q.callerId) && inRange(r.at, q), key: (r) => [r.seq], shape: ['number'], order: 'newest',
  });
  return { items: page.items.map(({ seq, ...r }) => ({ id: String(seq), ...r })), next: page.next };
}

/** The audit trail newest first, by id (a sequence number). */
export const auditPage = (entries: readonly AuditEntry[], q: AuditQuery): Page<AuditEntry> =>
  pageOf(entries, q, { keep: (e) => q.target === undefined || e.target === q.target, key: (e) => [Number(e.id)], shape: ['number'], order: 'newest' });

/** The request log newest first, by start time then request id (entries are kept in the order they ended). */
export const requestPage = (entries: readonly RequestLogEntry[], q: RequestQuery): Page<RequestLogEntry> =>
  pageOf(entries, q, { keep: (e) => matches(e, q), key: (e) => [e.startedAt, e.requestId], shape: ['number', 'string'], order: 'newest' });

/** Spend per caller × model × UTC day of the entries started in the query's range, a page at a time. */
export function spendOf(entries: readonly RequestLogEntry[], q: ReadQuery & { from: number; to: number }): Page<SpendRow> {
  const rows = new Map<string, SpendRow>();
  for (const e of entries) {
    if (e.callerId === null || e.model === null || !matches(e, q)) continue;
    const day = utcDay(e.startedAt);
    const key = `${e.callerId}\u0000${e.model}\u0000${day}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { callerId: e.callerId, model: e.model, day, requests: 0, cost: '0', charge: 0, ...everyFigure(0) }));
    row.requests++;
    row.cost = fromPico((toPico(row.cost) ?? 0n) + (toPico(e.cost) ?? 0n));
    row.charge += e.charge;
    for (const name of FIGURE_NAMES) row[name] += e.usage?.[name] ?? 0;
  }
  return pageOf(rows.values(), q, { key: (r) => [r.day, r.callerId, r.model], shape: ['string', 'string', 'string'], order: 'oldest' });
}
