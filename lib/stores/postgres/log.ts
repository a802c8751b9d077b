/** PostgresStore's request log: batched writes to a table partitioned by day, and the retention that drops old partitions. */
import type { PgQueryable } from './migrate';
import type { RequestLogSink } from '../request-log-sink';
import type { RequestLogEntry } from '../types';

/**
 * One statement for a batch of entries. A request id is logged once: a sweeper's placeholder
 * (status 0) is replaced by the real entry, and a real entry is never replaced.
 */
export const appendLogsSql = (s: string): string => `WITH x AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(request_id text, caller_id text, endpoint text, model text, stream boolean,
      status integer, error_code text, usage jsonb, cost numeric, charge bigint, billing_status text, started_at double precision,
      duration_ms double precision, ttfb_ms double precision, upstream text, detail text, end_user text, attempts jsonb,
      key_id text, session_id text, session_source text, agent_id text)),
  d AS (DELETE FROM ${s}.request_log g USING x WHERE g.request_id = x.request_id AND g.status = 0 AND g.started_at <> to_timestamp(x.started_at / 1000))
  INSERT INTO ${s}.request_log (request_id, caller_id, endpoint, model, stream, status, error_code, usage, cost, charge,
      billing_status, started_at, duration_ms, ttfb_ms, upstream, detail, end_user, attempts, key_id, session_id, session_source, agent_id)
    SELECT request_id, caller_id, endpoint, model, stream, status, error_code, usage, cost, charge, billing_status,
      to_timestamp(started_at / 1000), duration_ms, ttfb_ms, upstream, detail, end_user, attempts, key_id, session_id, session_source, agent_id
    FROM x WHERE NOT EXISTS (SELECT 1 FROM ${s}.request_log g WHERE g.request_id = x.request_id AND g.status <> 0)
  ON CONFLICT (request_id, started_at) DO UPDATE SET caller_id = EXCLUDED.caller_id, endpoint = EXCLUDED.endpoint, model = EXCLUDED.model,
    stream = EXCLUDED.stream, status = EXCLUDED.status, error_code = EXCLUDED.error_code, usage = EXCLUDED.usage,
    cost = EXCLUDED.cost, charge = EXCLUDED.charge, billing_status = EXCLUDED.billing_status,
    duration_ms = EXCLUDED.duration_ms, ttfb_ms = EXCLUDED.ttfb_ms, upstream = EXCLUDED.upstream, detail = EXCLUDED.detail,
    end_user = EXCLUDED.end_user, attempts = EXCLUDED.attempts, key_id = EXCLUDED.key_id, session_id = EXCLUDED.session_id,
    session_source = EXCLUDED.session_source, agent_id = EXCLUDED.agent_id
  WHERE ${s}.request_log.status = 0`;

/** The store's own sink: the entries of a batch in one statement (one row per request id). */
export function postgresLog(db: PgQueryable, schema: string): RequestLogSink {
  const sql = appendLogsSql(schema);
  return {
    async write(list: readonly RequestLogEntry[]): Promise<void> {
      const rows = new Map<string, Record<string, unknown>>();
      for (const e of list) {
        if (rows.has(e.requestId)) continue;
        rows.set(e.requestId, {
          request_id: e.requestId, caller_id: e.callerId, endpoint: e.endpoint, model: e.model, stream: e.stream, status: e.status,
          error_code: e.errorCode, usage: e.usage, cost: e.cost, charge: e.charge, billing_status: e.billingStatus, started_at: e.startedAt,
          duration_ms: e.durationMs, ttfb_ms: e.ttfbMs, upstream: e.upstream, detail: e.detail, end_user: e.user,
          attempts: e.attempts.length > 0 ? e.attempts : null,
          key_id: e.keyId ?? null, session_id: e.sessionId ?? null, session_source: e.sessionSource ?? null, agent_id: e.agentId ?? null,
        });
      }
      // Planned for each call: a generic plan made while the log was small would scan it whole.
      await db.query(sql, [JSON.stringify([...rows.values()])]);
    },
  };
}

/**
 * Makes today's and tomorrow's partitions (UTC) and, with `retentionDays`, drops the days
 * wholly older than that many days. Safe on every instance at once (the SQL functions of
 * migration 013 serialise on an advisory lock); returns how many partitions were dropped.
 */
export async function maintainRequestLog(db: PgQueryable, schema: string, retentionDays?: number, now = Date.now()): Promise<number> {
  const day = (offset: number): string => new Date(now + offset * 86_400_000).toISOString().slice(0, 10);
  await db.query(`SELECT ${schema}.request_log_partition($1::date), ${schema}.request_log_partition($2::date)`, [day(0), day(1)]);
  if (retentionDays === undefined) return 0;
  return Number((await db.query(`SELECT ${schema}.request_log_drop_before($1::date) AS n`, [day(-retentionDays)])).rows[0]?.n ?? 0);
}
