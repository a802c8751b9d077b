/**
 * `npm run bench:durable`: the durable path's cost per request, per process. The gateway on
 * MemoryStore, PostgresStore, and PostgresStore + Redis limits, one at a time under the same JSON
 * load, with 1 and with 1,000 accounts; and two PostgresStore instances on one account. For each:
 * CPU µs/req of the gateway (process.cpuUsage), of PostgreSQL (its backends for this gateway and
 * its background writers, from /proc) and of Redis (INFO cpu); transactions and rows written per
 * request; how often a backend of this gateway waited on a lock.
 */
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { HEADERS, KEY } from './key';
import { middle, stats, type Proc } from './measure';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ACCOUNT_CASES = (process.env.BENCH_ACCOUNTS ?? '1,1000').split(',').map(Number);
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TARGETS = (process.env.BENCH_TARGETS ?? 'gateway-memory,gateway-postgres,gateway-postgres-redis,gateway-postgres x2').split(',').map((t) => t.trim());
const BODY = JSON.stringify({ model: 'claude', max_tokens: 256, messages: [{ role: 'user', content: 'Summarise the plot of a short story in one paragraph.' }] });
const TICK = 1e6 / 100; // µs per clock tick (USER_HZ is 100 on Linux)

const children: ChildProcess[] = [];
process.on('exit', () => { for (const c of children) c.kill(); });

function start(file: string, args: string[], env: Record<string, string> = {}): Promise<Proc> {
  const child = fork(path.join(__dirname, file), args, { execArgv: ['--expose-gc'], env: { ...process.env, ...env }, stdio: 'inherit' });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${file} ${args.join(' ')} exited with ${code}`)));
  });
}

/** utime + stime of a process in µs (0 once it is gone). */
function procCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK;
  } catch {
    return 0;
  }
}

interface PgSnap { mine: Map<number, number>; others: Map<number, number>; xacts: number; rows: number; deadlocks: number }

/** CPU of this gateway's backends (by application_name) plus the background writers; of every other backend (noise); counters. */
async function pgSnap(db: Pool, schema: string): Promise<PgSnap> {
  const { rows } = await db.query(`SELECT pid, application_name = $1 OR backend_type <> 'client backend' AS mine FROM pg_stat_activity WHERE pid <> pg_backend_pid()`, [schema]);
  const mine = new Map<number, number>();
  const others = new Map<number, number>();
  for (const r of rows) (r.mine ? mine : others).set(r.pid as number, procCpu(r.pid as number));
  const d = (await db.query(`SELECT xact_commit::float8 AS x, deadlocks::float8 AS dl FROM pg_stat_database WHERE datname = current_database()`)).rows[0];
  const t = (await db.query(`SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::float8 AS n FROM pg_stat_user_tables WHERE schemaname = $1`, [schema])).rows[0];
  return { mine, others, xacts: Number(d?.x), deadlocks: Number(d?.dl), rows: Number(t?.n) };
}

const cpuDelta = (a: Map<number, number>, b: Map<number, number>): number => [...b].reduce((sum, [pid, cpu]) => sum + cpu - (a.get(pid) ?? 0), 0);
const redisCpu = async (redis: Redis): Promise<number> => {
  const info = await redis.info('cpu');
  const get = (k: string): number => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (get('used_cpu_sys') + get('used_cpu_user')) * 1e6;
};

/** Loads the servers together, each with its share of the connections, spreading requests over `accounts` keys. */
function fire(procs: Proc[], accounts: number, seconds: number): Promise<autocannon.Result[]> {
  let n = 0;
  const keyOf = (): string => (accounts <= 1 ? KEY : `${KEY}-${n++ % accounts}`);
  return Promise.all(procs.map((p) => autocannon({
    url: `http://127.0.0.1:${p.port}`, connections: Math.round(CONNECTIONS / procs.length), duration: seconds,
    requests: [{ method: 'POST', path: '/v1/messages', headers: { ...HEADERS }, body: BODY, setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-api-key': keyOf() } }) }],
  })));
}

interface Row { rps: number; gw: number; pg: number; redis: number; xacts: number; dbXacts: number; rows: number; lockShare: number; waiting: number; noise: number; deadlocks: number }

/** One measured round: every figure per request served. */
async function round(procs: Proc[], accounts: number, db: Pool, redis: Redis, schema: string, usesRedis: boolean): Promise<Row> {
  const [g0, p0, r0] = [await Promise.all(procs.map((p) => stats(p))), await pgSnap(db, schema), await redisCpu(redis)];
  let samples = 0, withWait = 0, waiting = 0;
  const sampler = setInterval(() => {
    void db.query(`SELECT count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS w FROM pg_stat_activity WHERE application_name = $1`, [schema]).then(({ rows }) => {
      const w = Number(rows[0]?.w ?? 0);
      samples++; waiting += w; if (w > 0) withWait++;
    }, () => undefined);
  }, 25);
  const runs = await fire(procs, accounts, SECONDS);
  clearInterval(sampler);
  const [g1, p1, r1] = [await Promise.all(procs.map((p) => stats(p))), await pgSnap(db, schema), await redisCpu(redis)];
  const ok = runs.reduce((s, r) => s + r.requests.total - r.non2xx - r.errors, 0);
  const bad = runs.reduce((s, r) => s + r.non2xx + r.errors, 0);
  if (bad > 0) console.error(`${bad} non-2xx or failed requests`);
  const gwCpu = g1.reduce((s, b, i) => s + b.cpu.user + b.cpu.system - (g0[i]?.cpu.user ?? 0) - (g0[i]?.cpu.system ?? 0), 0);
  const sentXacts = g1.reduce((s, b, i) => s + ((b as { xacts?: number }).xacts ?? 0) - ((g0[i] as { xacts?: number }).xacts ?? 0), 0);
  return {
    rps: ok / SECONDS, gw: gwCpu / ok, pg: procs.length && schema ? cpuDelta(p0.mine, p1.mine) / ok : 0, redis: usesRedis ? (r1 - r0) / ok : Number.NaN,
    xacts: sentXacts / ok, dbXacts: (p1.xacts - p0.xacts) / ok, rows: (p1.rows - p0.rows) / ok,
    lockShare: samples ? withWait / samples : 0, waiting: samples ? waiting / samples : 0, noise: cpuDelta(p0.others, p1.others) / 1e6 / SECONDS, deadlocks: p1.deadlocks - p0.deadlocks,
  };
}

const f = (n: number, d = 0): string => (Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));

async function main(): Promise<void> {
  const db = new Pool({ connectionString: PG_URL, max: 2, application_name: 'mgw-bench-observer' });
  const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const upstream = await start('upstream.js', []);
  const lines: string[] = [];
  const schemas: string[] = [];
  const memoryTotal = new Map<number, number>();
  for (const accounts of ACCOUNT_CASES) {
    for (const target of TARGETS) {
      const [mode, times] = target.split(' x') as [string, string | undefined];
      const schema = `mgw_bench_${randomBytes(4).toString('hex')}`;
      if (mode !== 'gateway-memory') schemas.push(schema);
      const env = { BENCH_SCHEMA: schema, BENCH_ACCOUNTS: String(accounts) };
      const procs: Proc[] = [];
      // One after the other: the second instance migrates and provisions nothing new.
      for (let i = 0; i < Number(times ?? 1); i++) procs.push(await start('targets.js', [mode, String(upstream.port)], env));
      await fire(procs, accounts, 2); // warm-up (JIT, pool connections, key cache)
      const rows: Row[] = [];
      for (let r = 0; r < ROUNDS; r++) { rows.push(await round(procs, accounts, db, redis, mode === 'gateway-memory' ? '' : schema, mode.endsWith('redis'))); process.stderr.write('.'); }
      for (const p of procs) p.child.kill();
      // Best of N: the round whose processes together spent least per request (the machine is shared).
      const total = (r: Row): number => r.gw + r.pg + (Number.isNaN(r.redis) ? 0 : r.redis);
      const best = [...rows].sort((a, b) => total(a) - total(b))[0] as Row;
      if (mode === 'gateway-memory') memoryTotal.set(accounts, total(best));
      const vsMemory = total(best) / (memoryTotal.get(accounts) ?? Number.NaN);
      lines.push(`| ${f(accounts)} | ${target} | ${f(best.rps)} | ${f(best.gw)} | ${f(best.pg)} | ${f(best.redis)} | ${f(total(best))} | ${f(vsMemory, 2)} | ${f(best.xacts, 2)} | ${f(best.dbXacts, 2)} | ${f(best.rows, 2)} | ${f(best.lockShare * 100)} % / ${f(best.waiting, 2)} | ${best.deadlocks} | ${f(middle(rows.map((r) => r.gw)))} [${f(Math.min(...rows.map((r) => r.gw)))}–${f(Math.max(...rows.map((r) => r.gw)))}] | ${f(best.noise, 2)} |`);
    }
  }
  const head = [`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, PostgreSQL and Redis on the same machine, unpinned. ${CONNECTIONS} connections of Anthropic JSON, ${SECONDS} s per round, best of ${ROUNDS} rounds (the round with the least total CPU per request). Command: \`npm run bench:durable\`.`, '',
    'PG CPU: this gateway\'s backends and the background writers (WAL, checkpoints). Xacts sent: counted by the gateway process; xacts (db): pg_stat_database, every client of the database. Rows: inserted + updated + deleted in the schema. Lock waits: share of 25 ms samples in which a backend of this gateway waited on a lock / mean backends waiting. Other PG: CPU cores used by other databases\' clients meanwhile (noise on a shared machine).', '',
    '| accounts | target | req/s | gateway µs/req | PG µs/req | Redis µs/req | all µs/req | all vs memory | xacts sent/req | xacts (db)/req | rows/req | lock waits | deadlocks | gateway µs median [min–max] | other PG cores |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|'];
  const text = [...head, ...lines].join('\n');
  console.log(`\n${text}`);
  mkdirSync(path.join(process.cwd(), 'bench', 'results'), { recursive: true });
  writeFileSync(path.join(process.cwd(), 'bench', 'results', 'durable.md'), `${text}\n`);
  for (const s of schemas) await db.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  for (const s of schemas) for (const k of await redis.keys(`mgw-${s}*`)) await redis.del(k);
  await db.end();
  redis.disconnect();
}

main().then(() => process.exit(0), (err: unknown) => {
  console.error(err);
  process.exit(1);
});
