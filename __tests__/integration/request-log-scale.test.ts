/** The request log at scale on PostgresStore: daily partitions, retention on every instance at once, reads cursor-exact across partitions, an operator's sink. */
import { randomBytes } from 'node:crypto';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { createGatewayRouter, migrate, PostgresStore, type RequestLogEntry, type RequestLogSink } from '../../lib';
import { anthropicAdapter } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { pgPool, pgStore, uniqueSchema } from '../helpers/services';
import { refused } from '../helpers/config-error';

const DAY = 86_400_000;
const entry = (requestId: string, startedAt: number, status = 200): RequestLogEntry => ({
  requestId, callerId: 'c', endpoint: 'messages', model: 'm', stream: false, status, errorCode: null, usage: null,
  cost: '1', charge: 1, billingStatus: 'billed', startedAt, durationMs: 1, ttfbMs: null, upstream: 'fake', detail: null, user: null, attempts: [],
});
const partitions = async (made: { pool: { query(q: string): Promise<{ rows: Array<Record<string, unknown>> }> }; schema: string }): Promise<string[]> =>
  (await made.pool.query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '${made.schema}.request_log'::regclass ORDER BY 1`)).rows.map((r) => r.relname as string);
const dayName = (t: number): string => `request_log_p${new Date(t).toISOString().slice(0, 10).replaceAll('-', '')}`;

it('partitions the log by day; retention run by three instances at once drops the old days only; reads page exactly across partitions', async () => {
  const made = await pgStore();
  try {
    const now = Date.now();
    expect(await partitions(made)).toEqual(['request_log_default', dayName(now), dayName(now + DAY)].sort());
    // Rows of five days, made while only today's partitions exist: the old days land in the default partition, then get their own.
    const ids: string[] = [];
    for (let d = 0; d < 5; d++) {
      for (let i = 0; i < 7; i++) {
        ids.push(`req_${d}_${i}`);
        await made.store.appendLog(entry(`req_${d}_${i}`, now - d * DAY - i * 1000));
      }
    }
    for (let d = 1; d < 5; d++) await made.pool.query(`SELECT ${made.schema}.request_log_partition($1::date)`, [new Date(now - d * DAY).toISOString().slice(0, 10)]);
    expect((await made.pool.query(`SELECT count(*)::int AS n FROM ${made.schema}.request_log_default`)).rows[0]?.n).toBe(0);
    expect((await partitions(made)).length).toBe(7);
    // Pages of 3 cross every partition boundary: each entry once, newest first.
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await made.store.listRequests({ callerId: 'c', limit: 3, ...(after ? { after } : {}) });
      seen.push(...page.items.map((e) => e.requestId));
      after = page.next ?? undefined;
    } while (after);
    expect(seen).toEqual(ids);
    // Retention of 2 days, run by three instances at once: the days older than two go, the rest stay.
    const stores = [0, 1, 2].map(() => new PostgresStore({ pool: made.pool, schema: made.schema, sweepIntervalMs: 0, requestLogRetentionDays: 2 }));
    const dropped = await Promise.all(stores.map((s) => s.maintainRequestLog(now)));
    expect(dropped.reduce((a, b) => a + b, 0)).toBe(2);
    expect((await made.store.listRequests({ callerId: 'c', limit: 100 })).items.map((e) => e.requestId)).toEqual(ids.slice(0, 21));
    expect(await partitions(made)).not.toContain(dayName(now - 3 * DAY));
    // A real entry replaces a sweeper's placeholder of another start time, once.
    await made.store.appendLog(entry('req_swept', now - 5000, 0));
    await made.store.appendLog(entry('req_swept', now - 4000));
    await made.store.appendLog(entry('req_swept', now - 3000));
    expect((await made.store.listRequests({ requestId: 'req_swept' })).items.map((e) => [e.status, e.startedAt])).toEqual([[200, now - 4000]]);
    expect(() => new PostgresStore({ pool: made.pool, schema: made.schema, requestLogRetentionDays: 0 })).toThrow(refused('ERR_MGW_INVALID_INTEGER', /requestLogRetentionDays/));
    await Promise.all(stores.map((s) => s.close()));
  } finally {
    await made.drop();
  }
});

it('migration 013 moves an unpartitioned log into daily partitions, keeping every row', async () => {
  const pool = await pgPool();
  const schema = uniqueSchema();
  try {
    // A schema as version 12 left it: the log one plain table.
    await migrate(pool, schema);
    await pool.query(`DROP TABLE ${schema}.request_log CASCADE`);
    await pool.query(`CREATE TABLE ${schema}.request_log (request_id text PRIMARY KEY, caller_id text, endpoint text NOT NULL, model text, stream boolean NOT NULL,
      status integer NOT NULL, error_code text, usage jsonb, charge bigint NOT NULL, billing_status text NOT NULL, started_at timestamptz NOT NULL,
      duration_ms double precision NOT NULL, ttfb_ms double precision, upstream text, detail text, end_user text, attempts jsonb, cost numeric)`);
    await pool.query(`INSERT INTO ${schema}.request_log (request_id, endpoint, stream, status, charge, billing_status, started_at, duration_ms)
      SELECT 'old_' || g, 'messages', false, 200, g, 'billed', now() - g * interval '1 day', 1 FROM generate_series(1, 4) g`);
    await pool.query(`DELETE FROM ${schema}.migrations WHERE version = 13`);
    expect(await migrate(pool, schema)).toEqual([13]);
    const store = new PostgresStore({ pool, schema, sweepIntervalMs: 0 });
    expect((await store.listRequests({ limit: 10 })).items.map((e) => e.requestId)).toEqual(['old_1', 'old_2', 'old_3', 'old_4']);
    expect(await partitions({ pool, schema })).toHaveLength(7); // 4 old days, today, tomorrow, default
    await store.close();
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
});

it('an operator-supplied RequestLogSink gets every log line in batches; money is settled in PostgreSQL as before', async () => {
  const made = await pgStore();
  const fake = await startAnthropicFake();
  const written: RequestLogEntry[][] = [];
  const sink: RequestLogSink = { write: async (entries) => { written.push([...entries]); } };
  const store = new PostgresStore({ pool: made.pool, schema: made.schema, sweepIntervalMs: 0, keyCacheMs: 0, requestLog: sink });
  const app = express().use(createGatewayRouter({ store, models: [{ id: 'claude-json', capability: 'llm', upstream: anthropicAdapter({ baseURL: fake.url }), pricing: { input: 1_000_000, output: 2_000_000 } }] }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const key = `sk-sink-${randomBytes(8).toString('hex')}`;
    await store.addKey(key, { id: 'sinker' });
    await store.credit({ callerId: 'sinker', amount: 10_000, idempotencyKey: 'sink-opening' });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
    const ids = await Promise.all(Array.from({ length: 6 }, async () => {
      const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-json', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }) });
      await res.text();
      return res.headers.get('request-id') as string;
    }));
    for (let i = 0; i < 50 && written.flat().length < 6; i++) await new Promise((r) => setTimeout(r, 20));
    expect(written.flat().map((e) => e.requestId).sort()).toEqual([...ids].sort());
    expect(written.flat().every((e) => e.charge === 55 && e.billingStatus === 'billed')).toBe(true);
    expect(written.length).toBeLessThan(6); // batched
    expect(await store.getAccount('sinker')).toEqual({ balance: 10_000 - 6 * 55, held: 0, carry: '0', ledger: 10_000 - 6 * 55 });
    expect((await made.pool.query(`SELECT count(*)::int AS n FROM ${made.schema}.request_log`)).rows[0]?.n).toBe(0);
  } finally {
    server.close();
    await store.close();
    await fake.close();
    await made.drop();
  }
});
