/** StatsReads in PostgreSQL: accounts by balance from the balances table, the request log grouped per bucket. */
import type { PgQueryable } from './migrate';
import { decimal, num } from './reads';
import { decodeCursor, encodeCursor, pageSize, type Page } from '../reads';
import { emptySeries, isAccountCursor, type AccountQuery, type AccountRow, type SeriesPoint, type SeriesQuery } from '../stats';

/** Accounts lowest balance first; caller ids in byte order ("C"), as MemoryStore orders them. */
export async function listAccounts(db: PgQueryable, s: string, q: AccountQuery): Promise<Page<AccountRow>> {
  const limit = pageSize(q.limit);
  const after = decodeCursor(q.after, isAccountCursor);
  const { rows } = await db.query(`SELECT caller_id, balance, held FROM ${s}.balances
    WHERE $1::bigint IS NULL OR (balance, caller_id COLLATE "C") > ($1::bigint, $2::text COLLATE "C")
    ORDER BY balance, caller_id COLLATE "C" LIMIT ${limit + 1}`, [after?.[0] ?? null, after?.[1] ?? null]);
  const items = rows.slice(0, limit).map((r): AccountRow => ({ callerId: r.caller_id as string, balance: num(r.balance), held: num(r.held) }));
  const last = items.at(-1);
  return { items, next: rows.length > limit && last ? encodeCursor([last.balance, last.callerId]) : null };
}

/**
 * The log of the range grouped by bucket. The bucket is computed on the exact interval from the
 * range's start (numeric, not a float), so an entry at a bucket's first millisecond is in it.
 */
export async function requestSeries(db: PgQueryable, s: string, q: SeriesQuery): Promise<SeriesPoint[]> {
  const points = emptySeries(q);
  const { rows } = await db.query(`WITH r AS (SELECT to_timestamp($1::double precision / 1000) AS t0, to_timestamp($2::double precision / 1000) AS t1)
    SELECT floor(extract(epoch FROM started_at - r.t0) * 1000 / $3::numeric)::int AS i, count(*)::int AS requests,
      count(*) FILTER (WHERE error_code IS NOT NULL OR status >= 400)::int AS errors, sum(coalesce(cost, charge))::text AS cost, sum(charge) AS charge
    FROM ${s}.request_log, r WHERE started_at >= r.t0 AND started_at < r.t1 AND ($4::text IS NULL OR caller_id = $4)
    GROUP BY 1`, [q.from, q.to, q.bucketMs, q.callerId ?? null]);
  for (const r of rows) {
    const point = points[r.i as number];
    if (!point) continue; // microsecond rounding of the range ends can put one past the last
    Object.assign(point, { requests: r.requests as number, errors: r.errors as number, cost: decimal(r.cost), charge: num(r.charge) });
  }
  return points;
}
