/** `npm run bench`: every target side by side against the same fake upstream, in one run; prints ratios. */
import autocannon from 'autocannon';
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { measureClients } from './clients';
import { profileDiff } from './profile';
import { measureValidation } from './validation';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const KEY = 'sk-bench-key-0123456789abcdef';
const schema = `mgw_bench_${randomBytes(4).toString('hex')}`;

/**
 * With two or more cores and `taskset` (Linux), the server under test gets a core of its own and
 * the load generator and fake upstream share the other, so they do not take turns with it.
 * BENCH_PIN=0 turns this off.
 */
const SERVER_CPU = os.cpus().length - 1;
const LOAD_CPU = 0;
const PIN = process.env.BENCH_PIN !== '0' && SERVER_CPU > 0 && spawnSync('taskset', ['-p', String(process.pid)]).status === 0;
/** Pins a process (all its threads) to one CPU, or with -1 lets it run on every CPU again. */
function pin(pid: number | undefined, cpu: number): void {
  if (pid !== undefined) spawnSync('taskset', ['-a', '-p', '-c', cpu < 0 ? `0-${SERVER_CPU}` : String(cpu), String(pid)]);
}
let pinned = true;
if (PIN) pin(process.pid, LOAD_CPU);

interface Proc { child: ChildProcess; port: number }
interface Stats { cpu: NodeJS.CpuUsage; rss: number }

const children: ChildProcess[] = [];
process.on('exit', () => { for (const c of children) c.kill(); });

function start(file: string, args: string[] = []): Promise<Proc> {
  // Compiled JS only: ts-node loads node:domain, which taxes every event emit and would skew the figures.
  const profiled = PROFILE && pinned && (args[0] === 'express' || args[0] === 'gateway-memory');
  const execArgv = ['--expose-gc', ...(file === 'targets.ts' ? NODE_ARGS : []), ...(profiled ? ['--cpu-prof', '--cpu-prof-dir=bench/results', `--cpu-prof-name=${args[0]}.cpuprofile`] : [])];
  const child = fork(path.join(__dirname, file.replace(/\.ts$/, '.js')), args, { execArgv, env: { ...process.env, BENCH_SCHEMA: schema }, stdio: 'inherit' });
  children.push(child);
  if (PIN && pinned) pin(child.pid, file === 'targets.ts' ? SERVER_CPU : LOAD_CPU);
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${file} ${args.join(' ')} exited with ${code}`)));
  });
}
/** CPU counters (`cpu`), or resident memory after a full GC (`memory`), of a target. */
const stats = (p: Proc, kind: 'cpu' | 'memory' = 'cpu'): Promise<Stats> => new Promise((resolve) => {
  p.child.once('message', (m: Stats) => resolve(m));
  p.child.send(kind);
});
/** The median of some figures. */
const middle = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const cpuMicros = (a: Stats, b: Stats): number => b.cpu.user + b.cpu.system - a.cpu.user - a.cpu.system;

interface Scenario { name: string; stream: boolean; direct: { path: string; body: object }; gateway: { path: string; body: object } }
const msg = [{ role: 'user', content: 'Summarise the plot of a short story in one paragraph.' }];
const docs = Array.from({ length: 100 }, (_, i) => `Document number ${i} talks about topic ${i % 7}.`);
const ALL_SCENARIOS: Scenario[] = [
  { name: 'Anthropic JSON', stream: false, direct: { path: '/v1/messages', body: { model: 'claude', max_tokens: 256, messages: msg } }, gateway: { path: '/v1/messages', body: { model: 'claude', max_tokens: 256, messages: msg } } },
  { name: 'Anthropic SSE (20 deltas)', stream: true, direct: { path: '/v1/messages', body: { model: 'claude', max_tokens: 256, stream: true, messages: msg } }, gateway: { path: '/v1/messages', body: { model: 'claude', max_tokens: 256, stream: true, messages: msg } } },
  { name: 'OpenAI-format JSON', stream: false, direct: { path: '/v1/chat/completions', body: { model: 'gpt', max_tokens: 256, messages: msg } }, gateway: { path: '/v1/messages', body: { model: 'gpt', max_tokens: 256, messages: msg } } },
  { name: 'OpenAI-format SSE', stream: true, direct: { path: '/v1/chat/completions', body: { model: 'gpt', max_tokens: 256, stream: true, stream_options: { include_usage: true }, messages: msg } }, gateway: { path: '/v1/messages', body: { model: 'gpt', max_tokens: 256, stream: true, messages: msg } } },
  { name: 'Rerank, 100 documents', stream: false, direct: { path: '/v2/rerank', body: { model: 'rerank', query: 'topic 3', documents: docs } }, gateway: { path: '/v2/rerank', body: { model: 'rerank', query: 'topic 3', documents: docs } } },
];
/** BENCH_SCENARIOS="Anthropic JSON,Rerank" keeps the scenarios whose names start so (load runs only). */
const ONLY = process.env.BENCH_SCENARIOS?.split(',').map((x) => x.trim()).filter(Boolean);
const SCENARIOS = ONLY ? ALL_SCENARIOS.filter((s) => ONLY.some((o) => s.name.startsWith(o))) : ALL_SCENARIOS;
/**
 * BENCH_PROFILE=1: (c) and (d) only, under `--cpu-prof`; prints the frames where the gateway
 * spends more per request than bare Express, and stops there.
 */
const PROFILE = process.env.BENCH_PROFILE === '1';
/** BENCH_NODE_ARGS="--max-semi-space-size=64": Node flags for every server under test, (b) to (e) alike. */
const NODE_ARGS = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const TARGETS = ['direct', 'bare', 'express', 'gateway-memory', 'gateway-postgres'] as const;
type Target = (typeof TARGETS)[number];
const LABEL: Record<Target, string> = { direct: '(a) upstream direct', bare: '(b) bare http proxy', express: '(c) Express + node-fetch', 'gateway-memory': '(d) gateway, MemoryStore', 'gateway-postgres': '(e) gateway, PostgresStore' };

const requestFor = (target: Target, s: Scenario) => (target.startsWith('gateway') ? s.gateway : s.direct);
const headers = { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };

async function load(port: number, target: Target, s: Scenario, connections: number, seconds: number) {
  const r = requestFor(target, s);
  return autocannon({ url: `http://127.0.0.1:${port}${r.path}`, method: 'POST', headers, body: JSON.stringify(r.body), connections, duration: seconds });
}

/** Median time from sending a stream request to the first body byte, over `n` sequential requests. */
async function firstEvent(port: number, target: Target, n = 200): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const r = requestFor(target, ALL_SCENARIOS[1] as Scenario);
  const body = JSON.stringify(r.body);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    times.push(await new Promise<number>((resolve, reject) => {
      const t = process.hrtime.bigint();
      const req = http.request({ port, host: '127.0.0.1', path: r.path, method: 'POST', headers, agent }, (res) => {
        res.once('data', () => resolve(Number(process.hrtime.bigint() - t) / 1e6));
        res.resume();
      });
      req.on('error', reject);
      req.end(body);
    }));
  }
  agent.destroy();
  return times.sort((a, b) => a - b)[Math.floor(n / 2)] as number;
}

/** Median full-response time of `n` sequential Anthropic JSON requests (concurrency 1, after 50 to warm up), in ms. */
async function sequentialLatency(port: number, target: Target, n = 300): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const r = requestFor(target, ALL_SCENARIOS[0] as Scenario);
  const body = JSON.stringify(r.body);
  const times: number[] = [];
  for (let i = 0; i < n + 50; i++) {
    const ms = await new Promise<number>((resolve, reject) => {
      const t = process.hrtime.bigint();
      const req = http.request({ port, host: '127.0.0.1', path: r.path, method: 'POST', headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(Number(process.hrtime.bigint() - t) / 1e6));
      });
      req.on('error', reject);
      req.end(body);
    });
    if (i >= 50) times.push(ms); // the first 50 warm up
  }
  agent.destroy();
  return times.sort((a, b) => a - b)[Math.floor(n / 2)] as number;
}

/**
 * Resident memory per open stream, with 1,000 streams held open at once, measured in a fresh
 * process of the target (after 20 warm-up streams) so heap left over from the load runs does not
 * blur it.
 */
async function memoryPerStream(upstreamPort: number, target: Target): Promise<number> {
  const proc = await start('targets.ts', [target, String(upstreamPort)]);
  try {
    return await openStreams(proc, target);
  } finally {
    proc.child.kill();
  }
}

async function openStreams(proc: Proc, target: Target): Promise<number> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const r = requestFor(target, ALL_SCENARIOS[1] as Scenario);
  const open: http.ClientRequest[] = [];
  const hold = (n: number): Promise<void[]> => Promise.all(Array.from({ length: n }, () => new Promise<void>((resolve, reject) => {
    const req = http.request({ port: proc.port, host: '127.0.0.1', path: r.path, method: 'POST', headers, agent }, (res) => res.once('data', () => resolve()));
    req.on('error', reject);
    req.end(JSON.stringify({ ...r.body, model: 'hold' }));
    open.push(req);
  })));
  await hold(20);
  await new Promise((r2) => setTimeout(r2, 300));
  const before = await stats(proc, 'memory');
  await hold(1000);
  await new Promise((r2) => setTimeout(r2, 500));
  const after = await stats(proc, 'memory');
  for (const req of open) req.destroy();
  agent.destroy();
  await new Promise((r2) => setTimeout(r2, 500));
  return (after.rss - before.rss) / 1000 / 1024; // KiB per stream
}

/** Ends the profiled processes (they write their profiles on exit) and prints where (d) spends more than (c). */
async function reportProfile(procs: Map<Target, Proc>, table: Record<string, Record<Target, { cpu: number }>>): Promise<void> {
  const cpu = (t: Target): number => {
    const cells = Object.values(table).map((row) => row[t].cpu);
    return cells.reduce((x, y) => x + y, 0) / cells.length;
  };
  await Promise.all((['express', 'gateway-memory'] as const).map((t) => new Promise((resolve) => {
    const child = (procs.get(t) as Proc).child;
    child.once('exit', resolve);
    child.kill('SIGINT');
  })));
  const dir = path.join(process.cwd(), 'bench', 'results');
  const out = [`Scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}. CPU per request: (c) ${cpu('express').toFixed(0)} µs, (d) ${cpu('gateway-memory').toFixed(0)} µs. Command: \`BENCH_PROFILE=1 npm run bench\`.`, '',
    profileDiff({ file: path.join(dir, 'express.cpuprofile'), cpu: cpu('express') }, { file: path.join(dir, 'gateway-memory.cpuprofile'), cpu: cpu('gateway-memory') })].join('\n');
  console.log(`\n${out}`);
  writeFileSync(path.join(dir, 'profile.md'), `${out}\n`);
  for (const p of procs.values()) p.child.kill();
}

async function main(): Promise<void> {
  const upstream = await start('upstream.ts');
  const procs = new Map<Target, Proc>([['direct', upstream]]);
  const loaded: readonly Target[] = PROFILE ? ['express', 'gateway-memory'] : TARGETS;
  for (const t of loaded) if (t !== 'direct') procs.set(t, await start('targets.ts', [t, String(upstream.port)]));
  const rows: string[] = [];
  type Cell = { rps: number; p50: number; p99: number; cpu: number };
  const samples: Record<string, Record<string, Cell[]>> = {};
  // Rounds alternate the targets, and each cell reports its median round, so a noisy moment
  // on a shared 2-core machine does not decide a ratio.
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of SCENARIOS) {
      for (const t of loaded) {
        const proc = procs.get(t) as Proc;
        await load(proc.port, t, s, CONNECTIONS, 1); // warm-up
        const a = await stats(proc);
        const r = await load(proc.port, t, s, CONNECTIONS, SECONDS);
        const b = await stats(proc);
        const ok = r.requests.total - r.non2xx - r.errors;
        if (r.non2xx + r.errors > 0) console.error(`${t} ${s.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        ((samples[s.name] ??= {})[t] ??= []).push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpu: cpuMicros(a, b) / Math.max(1, ok) });
        process.stderr.write('.');
      }
    }
  }
  const median = (cells: Cell[]): Cell => [...cells].sort((x, y) => x.cpu - y.cpu)[Math.floor(cells.length / 2)] as Cell;
  const table: Record<string, Record<Target, Cell>> = {};
  for (const [name, byTarget] of Object.entries(samples)) {
    table[name] = Object.fromEntries(Object.entries(byTarget).map(([t, cells]) => [t, median(cells)])) as Record<Target, Cell>;
  }
  if (PROFILE) return reportProfile(procs, table);
  // Latency at concurrency 1 is a chain of wake-ups: pinned, every hop through a proxy would
  // cross cores while the direct call would not. These measures run unpinned.
  if (PIN) for (const pid of [process.pid, ...children.map((c) => c.pid)]) pin(pid, -1);
  pinned = false;
  const lat1: Partial<Record<Target, number>> = {};
  // Alternating rounds again, so a slow moment of the machine does not land on one target only.
  const latRounds: Partial<Record<Target, number[]>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of TARGETS) (latRounds[t] ??= []).push(await sequentialLatency((procs.get(t) as Proc).port, t));
  }
  for (const t of TARGETS) lat1[t] = middle(latRounds[t] ?? [0]);
  const ttfe: Partial<Record<Target, number>> = {};
  const ttfeRounds: Partial<Record<Target, number[]>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of TARGETS) (ttfeRounds[t] ??= []).push(await firstEvent((procs.get(t) as Proc).port, t));
  }
  for (const t of TARGETS) ttfe[t] = middle(ttfeRounds[t] ?? [0]);
  const mem: Partial<Record<Target, number>> = {};
  for (const t of ['bare', 'express', 'gateway-memory'] as const) mem[t] = await memoryPerStream(upstream.port, t);
  const validation = measureValidation();
  for (const p of procs.values()) if (p !== upstream) p.child.kill(); // the client comparison needs the cores
  const clients = await measureClients(upstream.port);

  const f = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  rows.push(`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${f(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}. ${CONNECTIONS} connections, ${SECONDS} s per cell (autocannon), median of ${ROUNDS} alternating rounds. ${PIN ? `Load runs: server under test pinned to CPU ${SERVER_CPU}, load generator and upstream to CPU ${LOAD_CPU}; latency, first byte and memory unpinned. ` : ''}${NODE_ARGS.length ? `Servers run with \`${NODE_ARGS.join(' ')}\`. ` : ''}Command: \`${NODE_ARGS.length ? `BENCH_NODE_ARGS="${NODE_ARGS.join(' ')}" ` : ''}npm run bench\`.`, '');
  rows.push('| scenario | target | req/s | p50 ms | p99 ms | server CPU µs/req | CPU vs (c) | CPU vs (b) |', '|---|---|---:|---:|---:|---:|---:|---:|');
  for (const s of SCENARIOS) {
    const row = table[s.name] as Record<Target, { rps: number; p50: number; p99: number; cpu: number }>;
    for (const t of TARGETS) {
      const c = row[t];
      rows.push(`| ${s.name} | ${LABEL[t]} | ${f(c.rps)} | ${f(c.p50, 1)} | ${f(c.p99, 1)} | ${f(c.cpu)} | ${f(c.cpu / row.express.cpu, 2)} | ${f(c.cpu / row.bare.cpu, 2)} |`);
    }
  }
  rows.push('', '| measure | (a) direct | (b) bare | (c) Express | (d) gateway Memory | (e) gateway Postgres |', '|---|---:|---:|---:|---:|---:|');
  rows.push(`| p50 latency at concurrency 1, Anthropic JSON, 300 requests, median of ${ROUNDS} rounds (ms) | ${TARGETS.map((t) => f(lat1[t] ?? 0, 2)).join(' | ')} |`);
  rows.push(`| added p50 vs direct (ms) | ${TARGETS.map((t) => f((lat1[t] ?? 0) - (lat1.direct ?? 0), 2)).join(' | ')} |`);
  rows.push(`| time to first stream byte, 200 requests, median of ${ROUNDS} rounds (ms) | ${TARGETS.map((t) => f(ttfe[t] ?? 0, 2)).join(' | ')} |`);
  rows.push(`| RSS per open stream, 1,000 open (KiB) | – | ${f(mem.bare ?? 0, 1)} | ${f(mem.express ?? 0, 1)} | ${f(mem['gateway-memory'] ?? 0, 1)} | – |`);
  const d = table['Anthropic JSON'] as Record<Target, { rps: number }>;
  rows.push('', `Validation + estimate of a 1 MB prompt: ${f(validation, 2)} ms (mean of 50). PostgresStore throughput vs MemoryStore (Anthropic JSON): ${f(d['gateway-postgres'].rps / d['gateway-memory'].rps, 2)}×.`);
  const fetchCost = clients[0]?.[1] ?? 1;
  rows.push('', '| upstream HTTP client (through the adapter, `fetch` option) | client CPU µs per call | vs node-fetch 2 |', '|---|---:|---:|');
  for (const [name, us] of clients) rows.push(`| ${name} | ${f(us)} | ${f(us / fetchCost, 2)} |`);
  const out = rows.join('\n');
  console.log(`\n${out}`);
  mkdirSync(path.join(process.cwd(), 'bench', 'results'), { recursive: true });
  writeFileSync(path.join(process.cwd(), 'bench', 'results', NODE_ARGS.length ? 'latest-node-args.md' : 'latest.md'), `${out}\n`);
  for (const p of procs.values()) p.child.kill();
  const { Pool } = await import('pg');
  const pool = new Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => pool.end());
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
