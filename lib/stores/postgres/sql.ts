import { findKeysSql } from './keys';
import { cursorTime } from './reads';

/** The SQL of PostgresStore: each money movement is one statement (a batch of reserves, of settlements). */

/** What deleted holds (`from`: a CTE returning amount, tokens, scopes) held on each scope and period. */
export const scopeTotals = (from: string): string => `SELECT e->>'scope' AS scope, e->>'period' AS period, sum(${from}.amount) AS amount,
  sum(${from}.tokens) AS tokens, count(*) AS n FROM ${from} CROSS JOIN LATERAL jsonb_array_elements(coalesce(${from}.scopes, '[]'::jsonb)) e GROUP BY 1, 2`;

/** The tail of a statement that gives back, on their scopes, the holds a CTE `from` deleted. */
const releaseScopes = (s: string, from: string): string => `, t AS (${scopeTotals(from)})
  UPDATE ${s}.budget_spend p SET held = p.held - t.amount, tokens_held = p.tokens_held - t.tokens, requests_held = p.requests_held - t.n
  FROM t WHERE p.scope = t.scope AND p.period = t.period`;

/** Statements for a schema (its name is checked before it gets here). */
export function statements(s: string) {
  return Object.freeze({
    findCallers: findKeysSql(s),
    touchKeys: `UPDATE ${s}.callers SET last_used_at = now() WHERE key_hash = ANY($1::text[])`,
    // The reserves of one tick in one statement: balance rows locked in caller order, then per
    // caller the requests are admitted in arrival order while their running total fits.
    reserveMany: `WITH x AS (
        SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(i int, request_id text, caller_id text, amount bigint, expires_at double precision, instance_id text)),
      b AS (SELECT caller_id, balance - held AS available FROM ${s}.balances
        WHERE caller_id IN (SELECT caller_id FROM x) ORDER BY caller_id FOR UPDATE),
      w AS (SELECT x.*, b.available, sum(x.amount) OVER (PARTITION BY x.caller_id ORDER BY x.i) AS running FROM x JOIN b USING (caller_id)),
      h AS (INSERT INTO ${s}.holds (request_id, caller_id, amount, expires_at, instance_id)
        SELECT request_id, caller_id, amount, to_timestamp(expires_at / 1000), instance_id FROM w WHERE running <= available
        ON CONFLICT (request_id) DO NOTHING RETURNING request_id, caller_id, amount),
      u AS (UPDATE ${s}.balances SET held = held + t.total
        FROM (SELECT caller_id, sum(amount) AS total FROM h GROUP BY caller_id) t WHERE ${s}.balances.caller_id = t.caller_id)
      SELECT w.i, h.request_id IS NOT NULL AS ok, w.available - w.running + w.amount AS available
      FROM w LEFT JOIN h USING (request_id)`,
    // Only live holds: one whose lease lapsed may already have been released by a sweeper.
    renewHolds: `UPDATE ${s}.holds SET expires_at = to_timestamp($2::double precision / 1000)
      WHERE instance_id = $1 AND expires_at > now()`,
    // The reserves of a tick when any is under a budget (migration 016): balance and scopes in one transaction.
    reserveScoped: `SELECT * FROM ${s}.reserve_scoped($1::jsonb)`,
    release: `WITH h AS (DELETE FROM ${s}.holds WHERE request_id = $1 RETURNING caller_id, amount, tokens, scopes),
      b AS (UPDATE ${s}.balances b SET held = b.held - h.amount FROM h WHERE b.caller_id = h.caller_id)
      ${releaseScopes(s, 'h')}`,
    // Safe on every instance at once: a hold is subtracted only by the statement that deleted it.
    // Each expired hold also leaves a placeholder log line (status 0, needs_review), so a request
    // whose instance died is never missing from the log; a later real entry replaces it.
    sweep: `WITH d AS (DELETE FROM ${s}.holds WHERE expires_at <= now() RETURNING request_id, caller_id, amount, tokens, scopes),
      ds AS (${scopeTotals('d')}),
      us AS (UPDATE ${s}.budget_spend p SET held = p.held - ds.amount, tokens_held = p.tokens_held - ds.tokens, requests_held = p.requests_held - ds.n
        FROM ds WHERE p.scope = ds.scope AND p.period = ds.period),
      t AS (SELECT caller_id, sum(amount) AS total FROM d GROUP BY caller_id),
      l AS (INSERT INTO ${s}.request_log (request_id, caller_id, endpoint, stream, status, error_code, charge, billing_status,
          started_at, duration_ms, detail)
        SELECT d.request_id, d.caller_id, 'unknown', false, 0, 'api_error', 0, 'needs_review', now(), 0,
          'hold expired before settlement: the instance serving this request stopped' FROM d
        WHERE NOT EXISTS (SELECT 1 FROM ${s}.settlements x WHERE x.request_id = d.request_id)
          AND NOT EXISTS (SELECT 1 FROM ${s}.request_log g WHERE g.request_id = d.request_id)
        ON CONFLICT DO NOTHING)
      UPDATE ${s}.balances b SET held = b.held - t.total FROM t WHERE b.caller_id = t.caller_id`,
    // Provisioning: a new key, or new grants for a known one; its status changes only when `disabled` is given (revoked stays revoked).
    addKey: `WITH c AS (INSERT INTO ${s}.callers (key_hash, key_id, prefix, caller_id, models, limits, status)
        VALUES ($1, 'key_' || left($1, 20), $6, $2, $3, $4, CASE WHEN $5::boolean THEN 'disabled' ELSE 'active' END)
        ON CONFLICT (key_hash) DO UPDATE SET caller_id = $2, models = $3, limits = $4,
          status = CASE WHEN ${s}.callers.status = 'revoked' OR $5::boolean IS NULL THEN ${s}.callers.status WHEN $5 THEN 'disabled' ELSE 'active' END)
      INSERT INTO ${s}.balances (caller_id) VALUES ($2) ON CONFLICT DO NOTHING`,
    // Exactly once per idempotency key: the balance moves only with the ledger row the key inserts,
    // and only into an account that exists (a balances row) unless $4 opens it.
    credit: `WITH a AS (SELECT EXISTS (SELECT 1 FROM ${s}.balances WHERE caller_id = $1) AS known),
      l AS (INSERT INTO ${s}.ledger (caller_id, amount, kind, idempotency_key) SELECT $1, $2, 'credit', $3 FROM a WHERE a.known OR $4::boolean
        ON CONFLICT (idempotency_key) DO NOTHING RETURNING amount),
      b AS (INSERT INTO ${s}.balances (caller_id, balance) SELECT $1, amount FROM l
        ON CONFLICT (caller_id) DO UPDATE SET balance = ${s}.balances.balance + EXCLUDED.balance)
      SELECT (SELECT count(*) FROM l)::int AS applied, (SELECT known FROM a) AS known, x.caller_id, x.amount
      FROM (SELECT 1) one LEFT JOIN ${s}.ledger x ON x.idempotency_key = $3`,
    // Reviews oldest first, with the upstream, detail and attempts from the log; `cursor_at` is the exact timestamp as text (see cursorTime).
    listReviews: `SELECT r.request_id, r.caller_id, r.model, r.endpoint, r.charge, r.usage, g.upstream, g.detail, g.attempts,
        extract(epoch FROM r.created_at) * 1000 AS at, ${cursorTime('r.created_at')} AS cursor_at,
        r.resolution, r.resolved_charge, r.resolved_by, r.reason, extract(epoch FROM r.resolved_at) * 1000 AS resolved_at
      FROM ${s}.reviews r LEFT JOIN ${s}.request_log g USING (request_id)
      WHERE ($1::text IS NULL OR r.caller_id = $1) AND (NOT $2::boolean OR r.resolved_at IS NULL)
        AND ($3::timestamptz IS NULL OR (r.created_at, r.request_id) > ($3::timestamptz, $4::text))
        AND ($5::text IS NULL OR r.request_id = $5)
      ORDER BY r.created_at, r.request_id LIMIT $6`,
    // Exactly once: only the update that finds the review unresolved moves money and the log line.
    resolveReview: `WITH r AS (UPDATE ${s}.reviews SET resolved_at = now(), resolution = $2, resolved_charge = $3, resolved_by = $4, reason = $5
          WHERE request_id = $1 AND resolved_at IS NULL RETURNING caller_id),
        l AS (INSERT INTO ${s}.ledger (caller_id, amount, kind, refers_to, idempotency_key)
          SELECT caller_id, -$3::bigint, 'review', $1, 'review:' || $1 FROM r WHERE $3::bigint <> 0),
        b AS (UPDATE ${s}.balances x SET balance = x.balance - $3::bigint FROM r WHERE x.caller_id = r.caller_id AND $3::bigint <> 0),
        g AS (UPDATE ${s}.request_log SET charge = charge + $3::bigint, billing_status = $6 WHERE request_id = $1 AND EXISTS (SELECT 1 FROM r))
      SELECT count(*)::int AS applied FROM r`,
    appendAudit: `INSERT INTO ${s}.audit (actor, action, target, before, after) VALUES ($1, $2, $3, $4, $5)
      RETURNING id::text AS entry_id, extract(epoch FROM at) * 1000 AS at, actor, action, target, before, after`,
    balance: `SELECT balance, held, carry, (SELECT coalesce(sum(amount), 0) FROM ${s}.ledger WHERE caller_id = $1) AS ledger
      FROM ${s}.balances WHERE caller_id = $1`,
  });
}
