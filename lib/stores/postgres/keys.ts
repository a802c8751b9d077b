/** PostgresStore's keys: records in the callers table (digest, id, prefix, grants, status, use, expiry). */
import type { BudgetLimits, RunKeyGrant } from '../../schemas/budgets';
import type { LimitSettings } from '../../types';
import { callerOf, checkPatch, keyIdOf, type KeyPatch, type KeyRecord, type NewKey } from '../keys';
import type { PgQueryable } from './migrate';
import { cursorTime, isCursor } from './reads';
import { decodeCursor, encodeCursor, pageSize, type Page } from '../reads';

const COLUMNS = `key_id, prefix, caller_id, models, limits, metadata, status, budget, parent_key_id, run_keys, extract(epoch FROM created_at) * 1000 AS created_ms,
  extract(epoch FROM last_used_at) * 1000 AS used_ms, extract(epoch FROM expires_at) * 1000 AS expires_ms, ${cursorTime('created_at')} AS cursor_at`;

const ms = (v: unknown): number | null => (v === null || v === undefined ? null : Math.round(Number(v)));

/** A callers row as the store contract shows it. */
export function keyOf(r: Record<string, unknown>): KeyRecord {
  return {
    keyId: r.key_id as string, prefix: r.prefix as string, callerId: r.caller_id as string, models: (r.models as string[] | null) ?? null,
    limits: (r.limits as LimitSettings | null) ?? null, metadata: (r.metadata as Record<string, string> | null) ?? null,
    status: r.status as KeyRecord['status'], createdAt: ms(r.created_ms) ?? 0, lastUsedAt: ms(r.used_ms), expiresAt: ms(r.expires_ms),
    budget: (r.budget as BudgetLimits | null) ?? null, parentKeyId: (r.parent_key_id as string | null) ?? null, runKeys: (r.run_keys as RunKeyGrant | null) ?? null,
  };
}

/** The caller of a row found by digest (refused when the key, or its parent, is not active or has expired), with the budgets on its path. */
export const callerOfRow = (r: Record<string, unknown>) => callerOf(keyOf(r), Date.now(), {
  parent: r.parent ? keyOf(r.parent as Record<string, unknown>) : undefined,
  account: r.account_budget as BudgetLimits | null, orgId: r.org_id as string | null, org: r.org_budget as BudgetLimits | null,
});

/** The SELECT of keys by digest, for authentication (the lookups of a tick together), with a run key's parent and the account's and organisation's budgets. */
export const findKeysSql = (s: string): string => `SELECT c.*, o.org_id,
    (SELECT row_to_json(p) FROM (SELECT ${COLUMNS} FROM ${s}.callers WHERE key_id = c.parent_key_id) p) AS parent,
    (SELECT limits FROM ${s}.budgets WHERE scope = 'account:' || c.caller_id) AS account_budget,
    (SELECT limits FROM ${s}.budgets WHERE scope = 'org:' || o.org_id) AS org_budget
  FROM (SELECT key_hash, ${COLUMNS} FROM ${s}.callers WHERE key_hash = ANY($1::text[])) c
  LEFT JOIN ${s}.organizations o ON o.caller_id = c.caller_id`;

export async function createKey(db: PgQueryable, s: string, k: NewKey): Promise<KeyRecord> {
  const { rows } = await db.query(`WITH c AS (INSERT INTO ${s}.callers (key_hash, key_id, prefix, caller_id, models, limits, metadata, expires_at, budget, parent_key_id, run_keys)
      VALUES ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8::double precision / 1000), $9, $10, $11)
      ON CONFLICT (key_hash) DO UPDATE SET caller_id = EXCLUDED.caller_id, models = EXCLUDED.models, limits = EXCLUDED.limits,
        metadata = coalesce(EXCLUDED.metadata, ${s}.callers.metadata), expires_at = coalesce(EXCLUDED.expires_at, ${s}.callers.expires_at),
        budget = coalesce(EXCLUDED.budget, ${s}.callers.budget), parent_key_id = coalesce(EXCLUDED.parent_key_id, ${s}.callers.parent_key_id),
        run_keys = coalesce(EXCLUDED.run_keys, ${s}.callers.run_keys)
      RETURNING *),
    b AS (INSERT INTO ${s}.balances (caller_id) SELECT caller_id FROM c ON CONFLICT DO NOTHING)
    SELECT ${COLUMNS} FROM c`,
  [k.keyHash, keyIdOf(k.keyHash), k.prefix, k.callerId, k.models ?? null, k.limits ?? null, k.metadata ?? null, k.expiresAt ?? null,
    k.budget ?? null, k.parentKeyId ?? null, k.runKeys ?? null]);
  return keyOf(rows[0] as Record<string, unknown>);
}

export async function getKey(db: PgQueryable, s: string, keyId: string): Promise<KeyRecord | undefined> {
  const row = (await db.query(`SELECT ${COLUMNS} FROM ${s}.callers WHERE key_id = $1`, [keyId])).rows[0];
  return row ? keyOf(row) : undefined;
}

export async function listKeys(db: PgQueryable, s: string, q: { callerId?: string; limit?: number; after?: string }): Promise<Page<KeyRecord>> {
  const limit = pageSize(q.limit);
  const after = decodeCursor(q.after, isCursor);
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM ${s}.callers
    WHERE ($1::text IS NULL OR caller_id = $1) AND ($2::timestamptz IS NULL OR (created_at, key_id) < ($2::timestamptz, $3::text))
    ORDER BY created_at DESC, key_id DESC LIMIT ${limit + 1}`, [q.callerId ?? null, after?.[0] ?? null, after?.[1] ?? null]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(keyOf), next: rows.length > limit && last ? encodeCursor([last.cursor_at, last.key_id]) : null };
}

export async function updateKey(db: PgQueryable, s: string, keyId: string, patch: KeyPatch): Promise<{ before: KeyRecord; after: KeyRecord } | undefined> {
  const before = await getKey(db, s, keyId);
  if (!before) return undefined;
  checkPatch(before, patch);
  const sets: string[] = [];
  const values: unknown[] = [keyId];
  const set = (column: string, value: unknown, cast = ''): void => {
    values.push(value);
    sets.push(`${column} = ${cast ? cast.replace('$', `$${values.length}`) : `$${values.length}`}`);
  };
  if (patch.models !== undefined) set('models', patch.models);
  if (patch.limits !== undefined) set('limits', patch.limits);
  if (patch.metadata !== undefined) set('metadata', patch.metadata);
  if (patch.status !== undefined) set('status', patch.status);
  if (patch.expiresAt !== undefined) set('expires_at', patch.expiresAt, 'to_timestamp($::double precision / 1000)');
  if (patch.budget !== undefined) set('budget', patch.budget);
  if (patch.runKeys !== undefined) set('run_keys', patch.runKeys);
  if (sets.length === 0) return { before, after: before };
  const row = (await db.query(`UPDATE ${s}.callers SET ${sets.join(', ')} WHERE key_id = $1 AND status <> 'revoked' RETURNING ${COLUMNS}`, values)).rows[0];
  return row ? { before, after: keyOf(row) } : undefined;
}
