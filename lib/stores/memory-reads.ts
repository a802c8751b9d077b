/** LedgerReads over in-memory lists: newest-first pages and spend by day. */
import { fromPico, toPico } from '../billing/money';
import { checkRange, decodeCursor, encodeCursor, pageSize, utcDay, type Page, type ReadQuery, type RequestQuery, type SpendRow } from './reads';
import type { RequestLogEntry } from './types';

/** The page of `list` (oldest first, as kept) newest first, of the items `keep` accepts, after the cursor. */
export function newestPage<T>(list: readonly T[], keep: (item: T) => boolean, idOf: (item: T) => string, query: ReadQuery): Page<T> {
  checkRange(query);
  const limit = pageSize(query.limit);
  const after = decodeCursor(query.after, (v): v is string => typeof v === 'string');
  let i = list.length - 1;
  if (after !== undefined) {
    while (i >= 0 && idOf(list[i] as T) !== after) i--;
    i--;
  }
  const items: T[] = [];
  for (; i >= 0 && items.length < limit; i--) if (keep(list[i] as T)) items.push(list[i] as T);
  while (i >= 0 && !keep(list[i] as T)) i--; // a next page only if something is left to show
  const last = items.at(-1);
  return { items, next: i >= 0 && last !== undefined ? encodeCursor(idOf(last)) : null };
}

/** Whether a time falls in the query's range. */
export const inRange = (at: number, q: ReadQuery): boolean => (q.from === undefined || at >= q.from) && (q.to === undefined || at < q.to);

/** Whether a log entry passes a request query's filters. */
export function matches(e: RequestLogEntry, q: RequestQuery): boolean {
  return (q.requestId === undefined || e.requestId === q.requestId) && (q.callerId === undefined || e.callerId === q.callerId) && (q.model === undefined || e.model === q.model)
    && (q.endpoint === undefined || e.endpoint === q.endpoint) && (q.status === undefined || e.status === q.status)
    && (q.billingStatus === undefined || e.billingStatus === q.billingStatus) && inRange(e.startedAt, q);
}

/** Spend per caller × model × UTC day of the entries started in the query's range. */
export function spendOf(entries: readonly RequestLogEntry[], q: ReadQuery & { from: number; to: number }): SpendRow[] {
  checkRange(q);
  const rows = new Map<string, SpendRow>();
  for (const e of entries) {
    if (e.callerId === null || e.model === null || !matches(e, q)) continue;
    const day = utcDay(e.startedAt);
    const key = `${e.callerId}\u0000${e.model}\u0000${day}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { callerId: e.callerId, model: e.model, day, requests: 0, cost: '0', charge: 0, inputTokens: 0, outputTokens: 0 }));
    row.requests++;
    row.cost = fromPico((toPico(row.cost) ?? 0n) + (toPico(e.cost) ?? 0n));
    row.charge += e.charge;
    row.inputTokens += e.usage?.inputTokens ?? 0;
    row.outputTokens += e.usage?.outputTokens ?? 0;
  }
  return [...rows.values()].sort((a, b) => a.day.localeCompare(b.day) || a.callerId.localeCompare(b.callerId) || a.model.localeCompare(b.model));
}
