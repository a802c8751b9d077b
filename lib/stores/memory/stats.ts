/** StatsReads over MemoryStore's maps and its kept request log. */
import { fromPico, toPico } from '../../billing/money';
import { decodeCursor, encodeCursor, pageSize, type Page } from '../reads';
import { emptySeries, failed, isAccountCursor, type AccountQuery, type AccountRow, type SeriesPoint, type SeriesQuery } from '../stats';
import type { RequestLogEntry } from '../types';

const byBalance = (a: AccountRow, b: AccountRow): number => a.balance - b.balance || (a.callerId < b.callerId ? -1 : a.callerId > b.callerId ? 1 : 0);

/** The accounts of `balances`, lowest balance first, a page after the cursor. */
export function accountsPage(balances: ReadonlyMap<string, number>, held: (callerId: string) => number, q: AccountQuery): Page<AccountRow> {
  const limit = pageSize(q.limit);
  const after = decodeCursor(q.after, isAccountCursor);
  const rows: AccountRow[] = [];
  for (const [callerId, balance] of balances) {
    if (!after || byBalance({ callerId, balance, held: 0 }, { callerId: after[1], balance: after[0], held: 0 }) > 0) rows.push({ callerId, balance, held: 0 });
  }
  rows.sort(byBalance);
  const items = rows.slice(0, limit).map((r) => ({ ...r, held: held(r.callerId) }));
  const last = items.at(-1);
  return { items, next: rows.length > limit && last ? encodeCursor([last.balance, last.callerId]) : null };
}

/** The kept log entries of the query's range, counted per bucket. */
export function seriesOf(log: readonly RequestLogEntry[], q: SeriesQuery): SeriesPoint[] {
  const points = emptySeries(q);
  const cost = points.map(() => 0n);
  for (const e of log) {
    if (e.startedAt < q.from || e.startedAt >= q.to || (q.callerId !== undefined && e.callerId !== q.callerId)) continue;
    const i = Math.floor((e.startedAt - q.from) / q.bucketMs);
    const point = points[i] as SeriesPoint;
    point.requests++;
    if (failed(e.status, e.errorCode)) point.errors++;
    point.charge += e.charge;
    cost[i] = (cost[i] as bigint) + (toPico(e.cost) ?? 0n);
  }
  points.forEach((p, i) => { p.cost = fromPico(cost[i] as bigint); });
  return points;
}
