/** PostgresStore's budgets: stored budgets of organisations and accounts, membership, and usage per scope and period. */
import type { Budget, BudgetLimits } from '../../schemas/budgets';
import { checkBudget, checkOrgId, type BudgetUsage, type UsageQuery } from '../budgets';
import { noAccountError } from '../credit';
import { decodeCursor, encodeCursor, pageSize, type Page } from '../reads';
import type { PgPoolLike } from './migrate';
import { num } from './reads';

const isPair = (v: unknown): v is [string, string] => Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string');
const isOne = (v: unknown): v is [string] => Array.isArray(v) && v.length === 1 && typeof v[0] === 'string';

const budgetOf = (r: Record<string, unknown>): Budget => ({ scope: r.scope as string, limits: r.limits as BudgetLimits, updatedAt: Math.round(Number(r.updated_ms)) });

const usageOf = (r: Record<string, unknown>): BudgetUsage => ({
  scope: r.scope as string, period: r.period as string, spent: num(r.spent), held: num(r.held), excess: num(r.excess),
  requests: num(r.requests), requestsHeld: num(r.requests_held), tokens: num(r.tokens), tokensHeld: num(r.tokens_held),
});

const BUDGET = 'scope, limits, extract(epoch FROM updated_at) * 1000 AS updated_ms';

export async function putBudget(db: PgPoolLike, s: string, scope: string, limits: BudgetLimits): Promise<{ before: Budget | undefined; after: Budget }> {
  checkBudget(scope, limits);
  const { rows } = await db.query(`WITH old AS (SELECT ${BUDGET} FROM ${s}.budgets WHERE scope = $1),
      new AS (INSERT INTO ${s}.budgets (scope, limits, updated_at) VALUES ($1, $2, now())
        ON CONFLICT (scope) DO UPDATE SET limits = EXCLUDED.limits, updated_at = now() RETURNING ${BUDGET})
    SELECT (SELECT row_to_json(old) FROM old) AS before, (SELECT row_to_json(new) FROM new) AS after`, [scope, JSON.stringify(limits)]);
  const row = rows[0] as { before: Record<string, unknown> | null; after: Record<string, unknown> };
  return { before: row.before ? budgetOf(row.before) : undefined, after: budgetOf(row.after) };
}

export async function getBudget(db: PgPoolLike, s: string, scope: string): Promise<Budget | undefined> {
  const row = (await db.query(`SELECT ${BUDGET} FROM ${s}.budgets WHERE scope = $1`, [scope])).rows[0];
  return row ? budgetOf(row) : undefined;
}

export async function listBudgets(db: PgPoolLike, s: string, q: { limit?: number; after?: string }): Promise<Page<Budget>> {
  const limit = pageSize(q.limit);
  const after = decodeCursor(q.after, isOne);
  const { rows } = await db.query(`SELECT ${BUDGET} FROM ${s}.budgets WHERE ($1::text IS NULL OR scope COLLATE "C" > $1) ORDER BY scope COLLATE "C" LIMIT ${limit + 1}`, [after?.[0] ?? null]);
  const page = rows.slice(0, limit).map(budgetOf);
  return { items: page, next: rows.length > limit ? encodeCursor([page.at(-1)?.scope]) : null };
}

export async function deleteBudget(db: PgPoolLike, s: string, scope: string): Promise<Budget | undefined> {
  const row = (await db.query(`DELETE FROM ${s}.budgets WHERE scope = $1 RETURNING ${BUDGET}`, [scope])).rows[0];
  return row ? budgetOf(row) : undefined;
}

export async function setOrganization(db: PgPoolLike, s: string, callerId: string, orgId: string | null): Promise<{ before: string | null; after: string | null }> {
  checkOrgId(orgId);
  const { rows } = await db.query(`WITH a AS (SELECT EXISTS (SELECT 1 FROM ${s}.balances WHERE caller_id = $1) AS known),
      old AS (SELECT org_id FROM ${s}.organizations WHERE caller_id = $1),
      d AS (DELETE FROM ${s}.organizations WHERE caller_id = $1 AND $2::text IS NULL AND (SELECT known FROM a)),
      i AS (INSERT INTO ${s}.organizations (caller_id, org_id) SELECT $1, $2 FROM a WHERE a.known AND $2::text IS NOT NULL
        ON CONFLICT (caller_id) DO UPDATE SET org_id = EXCLUDED.org_id)
    SELECT (SELECT known FROM a) AS known, (SELECT org_id FROM old) AS before`, [callerId, orgId]);
  const row = rows[0] as { known: boolean; before: string | null };
  if (!row.known) throw noAccountError(callerId);
  return { before: row.before, after: orgId };
}

export async function getOrganization(db: PgPoolLike, s: string, callerId: string): Promise<string | null> {
  return ((await db.query(`SELECT org_id FROM ${s}.organizations WHERE caller_id = $1`, [callerId])).rows[0]?.org_id as string | undefined) ?? null;
}

export async function budgetUsage(db: PgPoolLike, s: string, q: UsageQuery): Promise<Page<BudgetUsage>> {
  const limit = pageSize(q.limit);
  const after = decodeCursor(q.after, isPair);
  // A prefix is matched by starts_with (its characters are never patterns), within the range an index can read.
  const { rows } = await db.query(`SELECT * FROM ${s}.budget_spend
    WHERE ($1::text IS NULL OR scope = $1) AND ($2::text IS NULL OR (scope COLLATE "C" >= $2 AND scope COLLATE "C" < $2 || chr(1114111) AND starts_with(scope, $2)))
      AND ($3::text IS NULL OR period = $3) AND ($4::text IS NULL OR (scope COLLATE "C", period COLLATE "C") > ($4, $5))
    ORDER BY scope COLLATE "C", period COLLATE "C" LIMIT ${limit + 1}`, [q.scope ?? null, q.prefix ?? null, q.period ?? null, after?.[0] ?? null, after?.[1] ?? null]);
  const page = rows.slice(0, limit).map(usageOf);
  const last = page.at(-1);
  return { items: page, next: rows.length > limit && last ? encodeCursor([last.scope, last.period]) : null };
}
