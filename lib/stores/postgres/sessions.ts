/** PostgresStore's dashboard sessions and failed sign-ins (tables of migration 012), shared by every instance on the schema. */
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { DashboardSessionStore, FailureCounter, StoredSession } from '../dashboard-sessions';
import type { PgPoolLike } from './migrate';

const num = (v: unknown): number => Number(v);
const sessionOf = (r: Record<string, unknown>): StoredSession => ({
  tokenName: r.token_name as string, tokenCheck: r.token_check as string, createdAt: num(r.created_at), expiresAt: num(r.expires_at), lastSeen: num(r.last_seen),
});

export class PostgresSessions implements DashboardSessionStore {
  constructor(private readonly pool: PgPoolLike, private readonly schema: string) {}

  /** One statement: the ended and the oldest live sessions beyond the bound go, the new one is kept. */
  async openSession(idHash: string, s: StoredSession, { now, idleMs, maxSessions }: { now: number; idleMs: number; maxSessions: number }): Promise<void> {
    const t = `${this.schema}.dashboard_sessions`;
    await this.pool.query(`WITH gone AS (DELETE FROM ${t} WHERE expires_at <= $6::bigint OR last_seen <= $6::bigint - $7::bigint
        OR id_hash IN (SELECT id_hash FROM ${t} WHERE expires_at > $6::bigint AND last_seen > $6::bigint - $7::bigint ORDER BY seq DESC OFFSET $8::bigint))
      INSERT INTO ${t} (id_hash, token_name, token_check, created_at, expires_at, last_seen) VALUES ($1, $2, $3, $4, $5, $4)`,
    [idHash, s.tokenName, s.tokenCheck, s.createdAt, s.expiresAt, now, idleMs, maxSessions - 1]);
  }

  async touchSession(idHash: string, now: number, idleMs: number): Promise<StoredSession | undefined> {
    const row = (await this.pool.query(`UPDATE ${this.schema}.dashboard_sessions SET last_seen = $2
      WHERE id_hash = $1 AND expires_at > $2::bigint AND last_seen > $2::bigint - $3::bigint RETURNING *`, [idHash, now, idleMs])).rows[0];
    return row && sessionOf(row);
  }

  async closeSession(idHash: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.schema}.dashboard_sessions WHERE id_hash = $1`, [idHash]);
  }

  /**
   * rate-limiter-flexible's RateLimiterPostgres on the table migration 012 made. Its statements
   * are prepared under names of its own; the schema goes into them, so stores of two schemas on
   * one pool never share one.
   */
  failureCounter(points: number, durationS: number): FailureCounter {
    const { pool, schema } = this;
    const client = { query: (q: { name?: string; text: string; values?: unknown[] }) => (q.name ? pool.query({ ...q, name: `${schema}:${q.name}` }) : pool.query(q.text, q.values)) };
    return new RateLimiterPostgres({
      storeClient: client, storeType: 'pool', schemaName: schema, tableName: 'sign_in_failures', tableCreated: true, keyPrefix: 'sign-in', points, duration: durationS,
    });
  }
}
