/** The store contract (model-gateway/testing, as a store author runs it) against MemoryStore and PostgresStore (real PostgreSQL, own schema), then PostgresStore's own cases. */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MemoryStore, PostgresStore } from '../../lib';
import { hashKey } from '../../lib/stores/hash';
import { SQL_DIR, type PgPoolLike } from '../../lib/stores/postgres/migrate';
import { runStoreContract } from '../../lib/testing';
import type { Settlement } from '../../lib';
import { pgStore } from '../helpers/services';
import { usageOf } from '../helpers/usage';
import { refused } from '../helpers/config-error';

runStoreContract({ name: 'MemoryStore', create: async () => ({ store: new MemoryStore() }), describe, it, beforeAll, afterAll, expect });
runStoreContract({ name: 'PostgresStore', create: () => pgStore(), describe, it, beforeAll, afterAll, expect });

const usage = (input = 10) => usageOf({ inputTokens: input, outputTokens: 5 });
const rid = (): string => `req_${randomBytes(8).toString('hex')}`;
const later = (): number => Date.now() + 60_000;
const settlement = (requestId: string, callerId: string, cost: number | string, billingStatus: Settlement['billingStatus'] = 'billed'): Settlement =>
  ({ requestId, callerId, model: 'm', endpoint: 'messages', cost: String(cost), billingStatus, usage: usage() });

it('PostgresStore: a host that provisions and credits at every start-up (new store, same database) never moves money twice', async () => {
  const made = await pgStore();
  try {
    for (let start = 0; start < 3; start++) {
      const store = new PostgresStore({ pool: made.pool, schema: made.schema, sweepIntervalMs: 0 });
      await store.addKey('sk-boot', { id: 'boot' });
      await store.credit({ callerId: 'boot', amount: 99_992, idempotencyKey: 'boot-opening-balance' });
      await store.close();
    }
    expect(await made.store.getAccount('boot')).toEqual({ balance: 99_992, held: 0, carry: '0', ledger: 99_992 });
  } finally {
    await made.drop();
  }
});

/** The versions of the shipped migrations after `version`, in order: what migrate() applies to a schema left there. */
const versionsAfter = (version: number): number[] => readdirSync(SQL_DIR).map((f) => Number(f.slice(0, 3))).filter((v) => v > version).sort((a, b) => a - b);

/** A schema as an older release left it: the migrations up to `version` only, recorded as applied. */
async function oldSchema(pool: { query(text: string, values?: unknown[]): Promise<unknown> }, name: string, version: number): Promise<void> {
  await pool.query(`CREATE SCHEMA ${name}`);
  await pool.query(`CREATE TABLE ${name}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const file of readdirSync(SQL_DIR).filter((f) => Number(f.slice(0, 3)) <= version).sort()) {
    await pool.query(readFileSync(path.join(SQL_DIR, file), 'utf8').replaceAll('{{schema}}', name));
    await pool.query(`INSERT INTO ${name}.migrations (version) VALUES ($1)`, [Number(file.slice(0, 3))]);
  }
}

it('PostgresStore: a database made by the previous schema (v2, with money in it) upgrades in place', async () => {
  const made = await pgStore();
  const old = `mgw_old_${randomBytes(4).toString('hex')}`;
  try {
    // The schema as the previous release left it: migrations 1 and 2 only, with a caller, a hold and a charge.
    await oldSchema(made.pool, old, 2);
    await made.pool.query(`INSERT INTO ${old}.callers (key_hash, caller_id) VALUES ($1, 'veteran')`, [hashKey('sk-veteran')]);
    await made.pool.query(`INSERT INTO ${old}.balances (caller_id, balance, held) VALUES ('veteran', 950, 30)`);
    await made.pool.query(`INSERT INTO ${old}.ledger (caller_id, amount, kind) VALUES ('veteran', 1000, 'credit')`);
    await made.pool.query(`INSERT INTO ${old}.ledger (caller_id, request_id, amount, kind) VALUES ('veteran', 'req_old', -50, 'charge')`);
    await made.pool.query(`INSERT INTO ${old}.holds (request_id, caller_id, amount, expires_at) VALUES ('req_open', 'veteran', 30, now() + interval '1 hour')`);
    const store = new PostgresStore({ pool: made.pool, schema: old, sweepIntervalMs: 0 });
    expect(await store.migrate()).toEqual(versionsAfter(2));
    expect(await store.getAccount('veteran')).toEqual({ balance: 950, held: 30, carry: '0', ledger: 950 });
    expect(await store.findCaller(hashKey('sk-veteran'))).toMatchObject({ id: 'veteran' });
    expect(await store.credit({ callerId: 'veteran', amount: 50, idempotencyKey: 'after-upgrade' })).toMatchObject({ applied: true });
    expect(await store.credit({ callerId: 'veteran', amount: 50, idempotencyKey: 'after-upgrade' })).toMatchObject({ applied: false });
    expect(await store.settle(settlement('req_open', 'veteran', 20))).toEqual({ applied: true, charge: 20 });
    expect(await store.getAccount('veteran')).toEqual({ balance: 980, held: 0, carry: '0', ledger: 980 });
    await store.close();
  } finally {
    await made.pool.query(`DROP SCHEMA IF EXISTS ${old} CASCADE`);
    await made.drop();
  }
});

it('PostgresStore: a database made by the v6 schema (whole-unit charges) upgrades to exact costs in place', async () => {
  const made = await pgStore();
  const old = `mgw_v6_${randomBytes(4).toString('hex')}`;
  try {
    await oldSchema(made.pool, old, 6);
    // A request the v6 code charged 1 for (its 0.0258 rounded up), with its ledger row and log line.
    await made.pool.query(`INSERT INTO ${old}.callers (key_hash, caller_id) VALUES ($1, 'v6')`, [hashKey('sk-v6')]);
    await made.pool.query(`INSERT INTO ${old}.balances (caller_id, balance) VALUES ('v6', 999)`);
    await made.pool.query(`INSERT INTO ${old}.ledger (caller_id, amount, kind) VALUES ('v6', 1000, 'credit'), ('v6', -1, 'charge')`);
    await made.pool.query(`INSERT INTO ${old}.settlements (request_id, caller_id, model, endpoint, charge, billing_status, usage) VALUES ('req_v6', 'v6', 'm', 'messages', 1, 'billed', '{}')`);
    await made.pool.query(`INSERT INTO ${old}.request_log (request_id, caller_id, endpoint, model, stream, status, charge, billing_status, started_at, duration_ms)
      VALUES ('req_v6', 'v6', 'messages', 'm', false, 200, 1, 'billed', now(), 1)`);
    const store = new PostgresStore({ pool: made.pool, schema: old, sweepIntervalMs: 0 });
    expect(await store.migrate()).toEqual(versionsAfter(6));
    expect(await store.getAccount('v6')).toEqual({ balance: 999, held: 0, carry: '0', ledger: 999 });
    expect((await store.listRequests({ callerId: 'v6' })).items[0]).toMatchObject({ requestId: 'req_v6', cost: '1', charge: 1 }); // billed before v7: cost is its charge
    expect(await store.settle(settlement('req_v6', 'v6', '0.0258'))).toEqual({ applied: false, charge: 1 });
    const results = await Promise.all(Array.from({ length: 200 }, () => store.settle(settlement(rid(), 'v6', '0.0258'))));
    expect(results.reduce((sum, r) => sum + r.charge, 0)).toBe(5); // 200 × 0.0258 = 5.16
    expect(await store.getAccount('v6')).toEqual({ balance: 994, held: 0, carry: '0.16', ledger: 994 });
    await store.close();
  } finally {
    await made.pool.query(`DROP SCHEMA IF EXISTS ${old} CASCADE`);
    await made.drop();
  }
});

it('PostgresStore: usage recorded by the v9 schema (one cache-write total) reads as 5-minute writes after v10', async () => {
  const made = await pgStore();
  const old = `mgw_v9_${randomBytes(4).toString('hex')}`;
  try {
    await oldSchema(made.pool, old, 9);
    const v9 = { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 300, cacheCreationInputTokens: 40, searchUnits: 0, provenance: 'confirmed' };
    await made.pool.query(`INSERT INTO ${old}.balances (caller_id, balance) VALUES ('v9', 1000)`);
    await made.pool.query(`INSERT INTO ${old}.settlements (request_id, caller_id, model, endpoint, charge, billing_status, usage) VALUES ('req_v9', 'v9', 'm', 'messages', 1, 'needs_review', $1)`, [v9]);
    await made.pool.query(`INSERT INTO ${old}.reviews (request_id, caller_id, model, endpoint, charge, usage, search_units) VALUES ('req_v9', 'v9', 'm', 'messages', 1, $1, 0)`, [v9]);
    await made.pool.query(`INSERT INTO ${old}.ledger (caller_id, request_id, amount, kind) VALUES ('v9', 'req_v9', -1, 'charge')`);
    await made.pool.query(`INSERT INTO ${old}.request_log (request_id, caller_id, endpoint, model, stream, status, charge, billing_status, started_at, duration_ms, usage)
      VALUES ('req_v9', 'v9', 'messages', 'm', false, 200, 1, 'needs_review', now(), 1, $1)`, [v9]);
    const store = new PostgresStore({ pool: made.pool, schema: old, sweepIntervalMs: 0 });
    expect(await store.migrate()).toEqual(versionsAfter(9));
    const now = usageOf({ inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 300, cacheWrite5mInputTokens: 40 });
    expect((await store.listRequests({ callerId: 'v9' })).items[0]?.usage).toEqual(now);
    expect((await store.listReviews({ callerId: 'v9' })).items[0]?.usage).toEqual(now);
    expect((await store.listLedger({ callerId: 'v9' })).items[0]?.usage).toEqual(now);
    await store.close();
  } finally {
    await made.pool.query(`DROP SCHEMA IF EXISTS ${old} CASCADE`);
    await made.drop();
  }
});

it('migrate() runs once when several instances start at once, and is idempotent after', async () => {
  const made = await pgStore();
  try {
    const fresh = `${made.schema}_b`;
    const instances = [1, 2, 3].map(() => new PostgresStore({ pool: made.pool, schema: fresh, sweepIntervalMs: 0 }));
    const first = await Promise.all(instances.map((s) => s.migrate()));
    expect(first.flat()).toEqual(versionsAfter(0));
    expect(await instances[0]!.migrate()).toEqual([]);
    await made.pool.query(`DROP SCHEMA ${fresh} CASCADE`);
  } finally {
    await made.drop();
  }
  expect(() => new PostgresStore({ pool: made.pool, schema: 'Bad-Name' })).toThrow(refused('ERR_MGW_INVALID_OPTION', /option "schema" must be a lower-case SQL identifier/));
});

it('PostgresStore caches found keys only: a key added by another instance works at once, unknown keys do not pile up', async () => {
  const made = await pgStore({ keyCacheMs: 60_000 });
  try {
    const other = new PostgresStore({ pool: made.pool, schema: made.schema, sweepIntervalMs: 0 });
    expect(await made.store.findCaller(hashKey('sk-late'))).toBeUndefined();
    await other.addKey('sk-late', { id: 'late' });
    expect(await made.store.findCaller(hashKey('sk-late'))).toMatchObject({ id: 'late' });
    for (let i = 0; i < 50; i++) await made.store.findCaller(hashKey(`sk-random-${i}`));
    expect((made.store as unknown as { keys: Map<string, unknown> }).keys.size).toBe(1);
  } finally {
    await made.drop();
  }
});

it('PostgresStore: a connection the server ends in the middle of a settlement transaction fails that batch only; the process lives and a retry settles once', async () => {
  const made = await pgStore();
  const base = made.pool;
  let terminateNext = true;
  // The pool lends real clients; the first one lent is terminated by the server right after its BEGIN, while it sits idle.
  const pool = {
    query: base.query.bind(base),
    on: base.on.bind(base),
    off: base.off.bind(base),
    connect: async () => {
      const client = await base.connect();
      if (!terminateNext) return client;
      terminateNext = false;
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      const pid = ((await client.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
      return Object.assign(client, {
        query: async (...args: unknown[]) => {
          const out = await query(...args);
          if (args[0] === 'BEGIN') {
            await base.query('SELECT pg_terminate_backend($1)', [pid]);
            await new Promise((r) => setTimeout(r, 200)); // the client learns of it while idle: an 'error' event
          }
          return out;
        },
      });
    },
  };
  const store = new PostgresStore({ pool: pool as unknown as PgPoolLike, schema: made.schema, sweepIntervalMs: 0 });
  try {
    await store.addKey('sk-cut', { id: 'cut' });
    await store.credit({ callerId: 'cut', amount: 100, idempotencyKey: 'cut-opening' });
    await expect(store.settle(settlement('req_cut', 'cut', '7'))).rejects.toThrow();
    expect(await store.settle(settlement('req_cut', 'cut', '7'))).toEqual({ applied: true, charge: 7 });
    expect(await store.settle(settlement('req_cut', 'cut', '7'))).toEqual({ applied: false, charge: 7 });
    expect(await store.getAccount('cut')).toEqual({ balance: 93, held: 0, carry: '0', ledger: 93 });
  } finally {
    await store.close();
    await made.drop();
  }
});
