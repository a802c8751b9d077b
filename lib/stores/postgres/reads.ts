/** PostgresStore's reads: ledger, request log and spend (each query built from the filters given, for the indexes of 006), and reviews. */
import { FIGURE_NAMES, type UsageFigureName } from '../../billing/figures';
import { fromPico, toPico } from '../../billing/money';
import type { PgQueryable } from './migrate';
import { checkRange, decodeCursor, encodeCursor, pageSize, utcDay, type LedgerEntry, type Page, type ReadQuery, type RequestQuery, type SpendRow } from '../reads';
import { GatewayError } from '../../foundation/errors';
import type { PgResult } from './migrate';
import { alreadyResolved, checkDecision, resolvedStatus, type ReviewQuery, type ReviewRecord, type ResolveReview } from '../reviews';
import type { AuditEntry, AuditQuery } from '../audit';
import type { RequestLogEntry } from '../types';

/** A number PostgreSQL returned (bigint and numeric come as text). */
export const num = (v: unknown): number => (typeof v === 'string' ? Number(v) : (v as number));

/** A numeric PostgreSQL returned, as the store contract's decimal string (no trailing zeros; rows before v7 cost their charge). */
export const decimal = (v: unknown): string => fromPico(toPico(String(v ?? 0)) ?? 0n);

/** A cursor of `n` strings. */
const strings = (n: number) => (v: unknown): v is string[] => Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'string');

/** A timestamptz column as a cursor's time: exact to the microsecond, the same whatever the session's DateStyle and TimeZone. */
export const cursorTime = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const CURSOR_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A cursor of a time (as cursorTime() wrote it: a real one, so the cast back never fails) and an id. */
export const isCursor = (v: unknown): v is [string, string] => {
  const date = strings(2)(v) ? CURSOR_TIME.exec(v[0] as string) : null;
  return date !== null && utcDay(Date.parse((v as string[])[0] as string) || 0) === date[1];
};

/** A cursor of a bigserial id (digits). */
const isId = (v: unknown): v is string => typeof v === 'string' && /^\d{1,18}$/.test(v);

/** A WHERE clause built from the filters present, with numbered parameters. */
class Where {
  readonly values: unknown[] = [];
  private readonly parts: string[] = [];
  add(sql: (param: string) => string, value: unknown): void {
    if (value === undefined) return;
    this.values.push(value);
    this.parts.push(sql(`$${this.values.length}`));
  }
  /** A condition on two values at once (a cursor's time and id). */
  addPair(sql: (a: string, b: string) => string, a: unknown, b: unknown): void {
    this.values.push(a, b);
    this.parts.push(sql(`$${this.values.length - 1}`, `$${this.values.length}`));
  }
  get sql(): string {
    return this.parts.length > 0 ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}


export async function listLedger(db: PgQueryable, s: string, q: ReadQuery): Promise<Page<LedgerEntry>> {
  checkRange(q);
  const limit = pageSize(q.limit);
  const after = decodeCursor(q.after, isId);
  const w = new Where();
  w.add((p) => `caller_id = ${p}`, q.callerId);
  w.add((p) => `at >= to_timestamp(${p}::double precision / 1000)`, q.from);
  w.add((p) => `at < to_timestamp(${p}::double precision / 1000)`, q.to);
  w.add((p) => `id < ${p}::bigint`, after);
  // The id is sent as text under another name: ORDER BY id would pick an output column `id`, and sort its text.
  // A charge shows the usage it was for, from its settlement.
  const { rows } = await db.query(`SELECT l.id::text AS entry_id, l.caller_id, coalesce(l.request_id, l.refers_to) AS request_id, l.amount, l.kind,
      extract(epoch FROM l.at) * 1000 AS at, x.usage
    FROM (SELECT * FROM ${s}.ledger ${w.sql} ORDER BY id DESC LIMIT ${limit + 1}) l
    LEFT JOIN ${s}.settlements x ON l.kind = 'charge' AND x.request_id = l.request_id ORDER BY l.id DESC`, w.values);
  const items = rows.slice(0, limit).map((r): LedgerEntry => ({
    id: r.entry_id as string, callerId: r.caller_id as string, requestId: (r.request_id as string | null) ?? null,
    amount: num(r.amount), kind: r.kind as LedgerEntry['kind'], at: Math.round(num(r.at)), usage: (r.usage as LedgerEntry['usage']) ?? null,
  }));
  return { items, next: rows.length > limit && items.length > 0 ? encodeCursor(items.at(-1)?.id) : null };
}

export async function listRequests(db: PgQueryable, s: string, q: RequestQuery): Promise<Page<RequestLogEntry>> {
  checkRange(q);
  const limit = pageSize(q.limit);
  const after = decodeCursor(q.after, isCursor);
  const w = new Where();
  w.add((p) => `caller_id = ${p}`, q.callerId);
  w.add((p) => `model = ${p}`, q.model);
  w.add((p) => `request_id = ${p}`, q.requestId);
  w.add((p) => `endpoint = ${p}`, q.endpoint);
  w.add((p) => `status = ${p}`, q.status);
  w.add((p) => `billing_status = ${p}`, q.billingStatus);
  w.add((p) => `started_at >= to_timestamp(${p}::double precision / 1000)`, q.from);
  w.add((p) => `started_at < to_timestamp(${p}::double precision / 1000)`, q.to);
  if (after) w.addPair((at, id) => `(started_at, request_id) < (${at}::timestamptz, ${id}::text)`, after[0], after[1]);
  const { rows } = await db.query(`SELECT *, extract(epoch FROM started_at) * 1000 AS started_ms, ${cursorTime('started_at')} AS cursor_at
    FROM ${s}.request_log ${w.sql} ORDER BY started_at DESC, request_id DESC LIMIT ${limit + 1}`, w.values);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(entryOf), next: rows.length > limit && last ? encodeCursor([last.cursor_at, last.request_id]) : null };
}

function entryOf(r: Record<string, unknown>): RequestLogEntry {
  return {
    requestId: r.request_id as string, callerId: (r.caller_id as string | null) ?? null, endpoint: r.endpoint as string, model: (r.model as string | null) ?? null,
    stream: r.stream as boolean, status: r.status as number, errorCode: (r.error_code as RequestLogEntry['errorCode']) ?? null,
    usage: (r.usage as RequestLogEntry['usage']) ?? null, cost: decimal(r.cost ?? r.charge), charge: num(r.charge), billingStatus: r.billing_status as RequestLogEntry['billingStatus'],
    startedAt: Math.round(num(r.started_ms)), durationMs: num(r.duration_ms), ttfbMs: r.ttfb_ms === null ? null : num(r.ttfb_ms),
    upstream: (r.upstream as string | null) ?? null, detail: (r.detail as string | null) ?? null, user: (r.end_user as string | null) ?? null,
    attempts: (r.attempts as RequestLogEntry['attempts'] | null) ?? [],
    ...(typeof r.key_id === 'string' ? { keyId: r.key_id } : {}),
    ...(typeof r.session_id === 'string' ? { sessionId: r.session_id } : {}),
    ...(typeof r.session_source === 'string' ? { sessionSource: r.session_source } : {}),
    ...(typeof r.agent_id === 'string' ? { agentId: r.agent_id } : {}),
  };
}

/** The sum of each usage figure, under its own name (names are the table's own identifiers, never input). */
const FIGURE_SUMS = FIGURE_NAMES.map((name) => `coalesce(sum((usage->>'${name}')::numeric), 0) AS "${name}"`).join(', ');
const figuresOf = (r: Record<string, unknown>): Record<UsageFigureName, number> =>
  Object.fromEntries(FIGURE_NAMES.map((name) => [name, num(r[name])])) as Record<UsageFigureName, number>;

/** A spend cursor: the last row's day (a real one: it is cast to a date), caller and model. */
const isSpendCursor = (v: unknown): v is [string, string, string] => strings(3)(v) && /^\d{4}-\d{2}-\d{2}$/.test(v[0] as string) && utcDay(Date.parse(v[0] as string) || 0) === v[0];

/** Spend by day, caller and model, a page at a time (the cursor is the last row's day, caller and model). */
export async function spend(db: PgQueryable, s: string, q: ReadQuery & { from: number; to: number }): Promise<Page<SpendRow>> {
  checkRange(q);
  const limit = pageSize(q.limit);
  const after = decodeCursor(q.after, isSpendCursor);
  const day = `to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const w = new Where();
  w.add((p) => `started_at >= to_timestamp(${p}::double precision / 1000)`, q.from);
  w.add((p) => `started_at < to_timestamp(${p}::double precision / 1000)`, q.to);
  w.add((p) => `caller_id = ${p}`, q.callerId);
  w.add((p) => `started_at >= ${p}::date::timestamp AT TIME ZONE 'UTC'`, after?.[0]); // earlier days are not read again
  const n = w.values.length;
  const { rows } = await db.query(`SELECT ${day} AS day, caller_id, model, count(*)::int AS requests, sum(coalesce(cost, charge))::text AS cost, sum(charge) AS charge,
      ${FIGURE_SUMS}
    FROM ${s}.request_log ${w.sql} AND caller_id IS NOT NULL AND model IS NOT NULL GROUP BY 1, 2, 3
    ${after ? `HAVING (${day}, caller_id, model) > ($${n + 1}, $${n + 2}, $${n + 3})` : ''} ORDER BY 1, 2, 3 LIMIT ${limit + 1}`, [...w.values, ...(after ?? [])]);
  const items = rows.slice(0, limit).map((r): SpendRow => ({
    callerId: r.caller_id as string, model: r.model as string, day: r.day as string, requests: r.requests as number,
    cost: decimal(r.cost), charge: num(r.charge), ...figuresOf(r),
  }));
  const last = items.at(-1);
  return { items, next: rows.length > limit && last ? encodeCursor([last.day, last.callerId, last.model]) : null };
}

/** A review row as the store contract shows it. */
export function reviewOfRow(row: Record<string, unknown>): ReviewRecord {
  return {
    requestId: row.request_id as string, callerId: row.caller_id as string, model: row.model as string, endpoint: row.endpoint as string,
    charge: num(row.charge), usage: row.usage as ReviewRecord['usage'], upstream: (row.upstream as string | null) ?? null,
    detail: (row.detail as string | null) ?? null, attempts: (row.attempts as ReviewRecord['attempts'] | null) ?? [], at: Math.round(num(row.at)),
    resolution: row.resolution === null ? null : {
      action: row.resolution as 'charge' | 'waive', amount: num(row.resolved_charge), by: row.resolved_by as string,
      reason: row.reason as string, at: Math.round(num(row.resolved_at)),
    },
  };
}

/** Runs one of the store's named statements. */
type Run = (name: 'listReviews' | 'resolveReview', values: unknown[]) => Promise<PgResult>;


/** Reviews oldest first (open ones only unless `open: false`), a page at a time. */
export async function listReviews(run: Run, query: ReviewQuery): Promise<Page<ReviewRecord>> {
  const limit = pageSize(query.limit);
  const after = decodeCursor(query.after, isCursor);
  const open = query.requestId === undefined && (query.open ?? true);
  const { rows } = await run('listReviews', [query.callerId ?? null, open, after?.[0] ?? null, after?.[1] ?? null, query.requestId ?? null, limit + 1]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(reviewOfRow), next: rows.length > limit && last ? encodeCursor([last.cursor_at, last.request_id]) : null };
}

/** Charges or waives one review, exactly once across instances (see ReviewStore). */
export async function resolveReview(run: Run, decision: ResolveReview): Promise<{ applied: boolean; review: ReviewRecord }> {
  const d = checkDecision(decision);
  const applied = (await run('resolveReview', [d.requestId, d.action, d.amount, d.by, d.reason, resolvedStatus(d.action)])).rows[0]?.applied === 1;
  const row = (await run('listReviews', [null, false, null, null, d.requestId, 1])).rows[0];
  if (!row) throw new GatewayError('not_found_error', `requestId: no review for ${d.requestId}`);
  return applied ? { applied, review: reviewOfRow(row) } : alreadyResolved(reviewOfRow(row), d);
}

/** The audit trail newest first, optionally of one target. */
export async function listAudit(db: PgQueryable, s: string, q: AuditQuery): Promise<Page<AuditEntry>> {
  const limit = pageSize(q.limit);
  const after = decodeCursor(q.after, isId);
  const w = new Where();
  w.add((p) => `target = ${p}`, q.target);
  w.add((p) => `id < ${p}::bigint`, after);
  const { rows } = await db.query(`SELECT id::text AS entry_id, extract(epoch FROM at) * 1000 AS at, actor, action, target, before, after
    FROM ${s}.audit ${w.sql} ORDER BY id DESC LIMIT ${limit + 1}`, w.values);
  const items = rows.slice(0, limit).map(auditOf);
  return { items, next: rows.length > limit && items.length > 0 ? encodeCursor(items.at(-1)?.id) : null };
}

/** An audit row as the store contract shows it. */
export function auditOf(r: Record<string, unknown>): AuditEntry {
  return { id: r.entry_id as string, at: Math.round(num(r.at)), actor: r.actor as string, action: r.action as string, target: r.target as string, before: r.before ?? null, after: r.after ?? null };
}
