/**
 * `npm run bench:migrations [-- 9 10 13]`: how long each migration that rewrites rows or builds an
 * index over them takes on tables of a million requests. For each version: a schema migrated to
 * just before it, the tables it reads filled (one log line, settlement and ledger charge per
 * request; a review per 50; one key per row for 009), vacuumed, then the version's file timed in
 * one transaction, as migrate() runs it.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import { SQL_DIR } from '../lib/stores/postgres/migrate';

const ROWS = Number(process.env.BENCH_MIGRATION_ROWS ?? 1_000_000);
const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const files = readdirSync(SQL_DIR).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
const versionOf = (file: string): number => Number(file.split('_')[0]);

/** A usage record as the schema before 010 kept it (one cache-write total). */
const USAGE = `jsonb_build_object('inputTokens', 100, 'outputTokens', 20, 'cacheReadInputTokens', 300, 'cacheCreationInputTokens', 10, 'searchUnits', 0, 'provenance', 'confirmed')`;
const WHEN = `now() - (g % 2592000) * interval '1 second'`; // 30 days

/** The fills of each table, in the columns every version since 001 has. */
const FILL: Record<string, (s: string) => string> = {
  request_log: (s) => `INSERT INTO ${s}.request_log (request_id, caller_id, endpoint, model, stream, status, usage, charge, billing_status, started_at, duration_ms)
    SELECT 'req_' || g, 'c' || (g % 1000), 'messages', 'm' || (g % 4), false, 200, ${USAGE}, 7, 'billed', ${WHEN}, 1 FROM generate_series(1, ${ROWS}) g`,
  settlements: (s) => `INSERT INTO ${s}.settlements (request_id, caller_id, model, endpoint, charge, billing_status, usage, settled_at)
    SELECT 'req_' || g, 'c' || (g % 1000), 'm' || (g % 4), 'messages', 7, 'billed', ${USAGE}, ${WHEN} FROM generate_series(1, ${ROWS}) g`,
  reviews: (s) => `INSERT INTO ${s}.reviews (request_id, caller_id, model, endpoint, charge, usage, search_units, created_at)
    SELECT 'req_' || g, 'c' || (g % 1000), 'm', 'messages', 7, ${USAGE}, 0, ${WHEN} FROM generate_series(50, ${ROWS}, 50) g`,
  ledger: (s) => `INSERT INTO ${s}.ledger (caller_id, request_id, amount, kind, at)
    SELECT 'c' || (g % 1000), 'req_' || g, -7, 'charge', ${WHEN} FROM generate_series(1, ${ROWS}) g`,
  callers: (s) => `INSERT INTO ${s}.callers (key_hash, caller_id, disabled)
    SELECT md5(g::text) || md5((g + 1)::text), 'c' || (g % 1000), g % 10 = 0 FROM generate_series(1, ${ROWS}) g`,
};

/** The tables each timed version reads or rewrites. */
const TABLES: Record<number, string[]> = {
  4: ['ledger'], 5: ['ledger', 'reviews'], 6: ['ledger', 'request_log'], 9: ['callers'],
  10: ['request_log', 'settlements', 'reviews'], 13: ['request_log'],
};

async function time(pool: Pool, version: number): Promise<void> {
  const schema = `mgw_mig_${randomBytes(4).toString('hex')}`;
  const sql = (file: string): string => readFileSync(path.join(SQL_DIR, file), 'utf8').replaceAll('{{schema}}', schema);
  try {
    for (const file of files.filter((f) => versionOf(f) < version)) await pool.query(sql(file));
    const tables = TABLES[version] ?? [];
    const filled = Date.now();
    for (const table of tables) {
      await pool.query((FILL[table] as (s: string) => string)(schema));
      await pool.query(`VACUUM ANALYZE ${schema}.${table}`);
    }
    const file = files.find((f) => versionOf(f) === version) as string;
    const client = await pool.connect();
    try {
      const started = process.hrtime.bigint();
      await client.query('BEGIN');
      await client.query(sql(file));
      await client.query('COMMIT');
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      console.log(`| \`${file}\` | ${tables.join(', ')} | ${seconds.toFixed(1)} | ${((Date.now() - filled) / 1000).toFixed(0)} s to fill |`);
    } finally {
      client.release();
    }
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}

async function main(): Promise<void> {
  const versions = process.argv.slice(2).map(Number);
  const pool = new Pool({ connectionString: url, max: 2 });
  try {
    console.log(`${ROWS.toLocaleString('en')} requests per case\n\n| migration | tables (rows) | seconds | |\n|---|---|---:|---|`);
    for (const v of versions.length > 0 ? versions : Object.keys(TABLES).map(Number)) await time(pool, v);
  } finally {
    await pool.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
