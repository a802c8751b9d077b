/** The SQL of PostgresStore: each money movement is one statement, so it is atomic without a transaction. */

/** Statements for a schema (its name is checked before it gets here). */
export function statements(s: string) {
  return Object.freeze({
    findCaller: `SELECT caller_id, models, limits, disabled FROM ${s}.callers WHERE key_hash = $1`,
    // Check-and-hold in one row update: concurrent reserves serialise on the balance row.
    reserve: `WITH r AS (
        UPDATE ${s}.balances SET held = held + $3 WHERE caller_id = $1 AND balance - held >= $3 RETURNING caller_id)
      INSERT INTO ${s}.holds (request_id, caller_id, amount, expires_at)
      SELECT $2, caller_id, $3, to_timestamp($4::double precision / 1000) FROM r RETURNING 1`,
    available: `SELECT balance - held AS available FROM ${s}.balances WHERE caller_id = $1`,
    // Exactly once: the settlement's primary key decides; every other write depends on it.
    settle: `WITH s AS (
        INSERT INTO ${s}.settlements (request_id, caller_id, model, endpoint, charge, billing_status, usage)
        VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (request_id) DO NOTHING RETURNING request_id),
      h AS (DELETE FROM ${s}.holds WHERE request_id = $1 AND EXISTS (SELECT 1 FROM s) RETURNING caller_id, amount),
      l AS (INSERT INTO ${s}.ledger (caller_id, request_id, amount, kind) SELECT $2, $1, -$5::bigint, 'charge' FROM s WHERE $5::bigint <> 0),
      r AS (INSERT INTO ${s}.reviews (request_id, caller_id, model, endpoint, charge, usage, search_units)
        SELECT $1, $2, $3, $4, $5, $7, $8 FROM s WHERE $6 = 'needs_review'),
      b AS (UPDATE ${s}.balances SET balance = balance - $5::bigint, held = held - coalesce((SELECT sum(amount) FROM h), 0)
        WHERE caller_id = $2 AND EXISTS (SELECT 1 FROM s))
      SELECT count(*)::int AS applied FROM s`,
    release: `WITH h AS (DELETE FROM ${s}.holds WHERE request_id = $1 RETURNING caller_id, amount)
      UPDATE ${s}.balances b SET held = b.held - h.amount FROM h WHERE b.caller_id = h.caller_id`,
    // Safe on every instance at once: a hold is subtracted only by the statement that deleted it.
    // Each expired hold also leaves a placeholder log line (status 0, needs_review), so a request
    // whose instance died is never missing from the log; a later real entry replaces it.
    sweep: `WITH d AS (DELETE FROM ${s}.holds WHERE expires_at <= now() RETURNING request_id, caller_id, amount),
      t AS (SELECT caller_id, sum(amount) AS total FROM d GROUP BY caller_id),
      l AS (INSERT INTO ${s}.request_log (request_id, caller_id, endpoint, stream, status, error_code, charge, billing_status,
          started_at, duration_ms, detail)
        SELECT d.request_id, d.caller_id, 'unknown', false, 0, 'api_error', 0, 'needs_review', now(), 0,
          'hold expired before settlement: the instance serving this request stopped' FROM d
        WHERE NOT EXISTS (SELECT 1 FROM ${s}.settlements x WHERE x.request_id = d.request_id)
        ON CONFLICT (request_id) DO NOTHING)
      UPDATE ${s}.balances b SET held = b.held - t.total FROM t WHERE b.caller_id = t.caller_id`,
    appendLog: `INSERT INTO ${s}.request_log (request_id, caller_id, endpoint, model, stream, status, error_code, usage, charge,
        billing_status, started_at, duration_ms, ttfb_ms, upstream, detail, end_user, attempts)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, to_timestamp($11::double precision / 1000), $12, $13, $14, $15, $16, $17)
      ON CONFLICT (request_id) DO UPDATE SET caller_id = EXCLUDED.caller_id, endpoint = EXCLUDED.endpoint, model = EXCLUDED.model,
        stream = EXCLUDED.stream, status = EXCLUDED.status, error_code = EXCLUDED.error_code, usage = EXCLUDED.usage,
        charge = EXCLUDED.charge, billing_status = EXCLUDED.billing_status, started_at = EXCLUDED.started_at,
        duration_ms = EXCLUDED.duration_ms, ttfb_ms = EXCLUDED.ttfb_ms, upstream = EXCLUDED.upstream, detail = EXCLUDED.detail,
        end_user = EXCLUDED.end_user, attempts = EXCLUDED.attempts
      WHERE ${s}.request_log.status = 0`,
    addKey: `WITH c AS (INSERT INTO ${s}.callers (key_hash, caller_id, models, limits, disabled) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (key_hash) DO UPDATE SET caller_id = $2, models = $3, limits = $4, disabled = $5)
      INSERT INTO ${s}.balances (caller_id) VALUES ($2) ON CONFLICT DO NOTHING`,
    credit: `WITH l AS (INSERT INTO ${s}.ledger (caller_id, amount, kind) VALUES ($1, $2, 'credit'))
      INSERT INTO ${s}.balances (caller_id, balance) VALUES ($1, $2)
      ON CONFLICT (caller_id) DO UPDATE SET balance = ${s}.balances.balance + $2`,
    balance: `SELECT balance, held, (SELECT coalesce(sum(amount), 0) FROM ${s}.ledger WHERE caller_id = $1) AS ledger
      FROM ${s}.balances WHERE caller_id = $1`,
  });
}
