/** `npm run bench:reads`: the store's ledger and request-log reads on PostgreSQL tables of 10^6 rows each. */
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { PostgresStore } from '../lib';

const ROWS = Number(process.env.BENCH_READ_ROWS ?? 1_000_000);
const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 2 });
  const schema = `mgw_reads_${randomBytes(4).toString('hex')}`;
  const store = new PostgresStore({ pool, schema, sweepIntervalMs: 0 });
  try {
    await store.migrate();
    const t0 = Date.now();
    // 1,000 callers × 4 models over 30 days; one ledger row per request.
    await pool.query(`INSERT INTO ${schema}.request_log (request_id, caller_id, endpoint, model, stream, status, usage, charge, billing_status, started_at, duration_ms)
      SELECT 'req_' || g, 'c' || (g % 1000), 'messages', 'm' || (g % 4), false, 200,
        jsonb_build_object('inputTokens', 100, 'outputTokens', 20, 'provenance', 'confirmed'), 7,
        CASE WHEN g % 50 = 0 THEN 'needs_review' ELSE 'billed' END, now() - (g % 2592000) * interval '1 second', 1
      FROM generate_series(1, ${ROWS}) g`);
    await pool.query(`INSERT INTO ${schema}.ledger (caller_id, request_id, amount, kind, at)
      SELECT 'c' || (g % 1000), 'req_' || g, -7, 'charge', now() - (g % 2592000) * interval '1 second' FROM generate_series(1, ${ROWS}) g`);
    await pool.query(`ANALYZE ${schema}.request_log; ANALYZE ${schema}.ledger`);
    console.log(`filled ${ROWS} log rows and ${ROWS} ledger rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const day = 86_400_000;
    const now = Date.now();
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['listRequests, one caller, newest 100', () => store.listRequests({ callerId: 'c42' })],
      ['listRequests, one caller, last day', () => store.listRequests({ callerId: 'c42', from: now - day, to: now })],
      ['listRequests, one caller and model, needs_review', () => store.listRequests({ callerId: 'c42', model: 'm2', billingStatus: 'needs_review' })],
      ['listRequests, everyone, newest 100', () => store.listRequests({})],
      ['listRequests, next page of one caller', async () => store.listRequests({ callerId: 'c42', after: (await store.listRequests({ callerId: 'c42' })).next as string })],
      ['listLedger, one caller, newest 100', () => store.listLedger({ callerId: 'c42' })],
      ['spend, one caller, 30 days', () => store.spend({ callerId: 'c42', from: now - 30 * day, to: now })],
      ['spend, everyone, one day', () => store.spend({ from: now - day, to: now })],
    ];
    console.log('\n| read | median ms (of 5) |\n|---|---:|');
    for (const [name, run] of cases) {
      await run();
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await run();
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.log(`| ${name} | ${(times[2] as number).toFixed(1)} |`);
    }
  } finally {
    store.close();
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
