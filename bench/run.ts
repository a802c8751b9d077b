/** `npm run bench`: every target side by side against the same fake upstream, in one run; prints ratios. */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { abReport } from './ab';
import { CLAUDE_CODE_HEADERS, claudeCodeBody } from './claude-code-body';
import { measureClients } from './clients';
import { memoryPerOpenStream, sequentialTime } from './latency';
import { measure, middle, summarise, type Cell, type Load, type Proc, type Row } from './measure';
import { profileDiff } from './profile';
import { stageTable } from './stages';
import { STREAM_SCENARIOS } from './streams';
import { measureValidation } from './validation';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/**
 * BENCH_WARM_SECONDS: length of the uncounted warm-up round's cells (default 2). A full run loads
 * every server for about 27 s per scenario before its paired pass; `BENCH_WARM_SECONDS=27` gives
 * a quick check the same warm-up.
 */
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 2);
const schema = `mgw_bench_${randomBytes(4).toString('hex')}`;
/**
 * BENCH_PAIRED=0 turns off the paired pass. With it (the default), the CPU ratios come from
 * rounds in which each proxy is loaded at the same moment as (c), each by its own autocannon, while
 * they share the server core: this VM's speed swings by 2 × within seconds, and a ratio of two
 * runs made seconds apart measures that swing as much as the proxies.
 */
const PAIRED = process.env.BENCH_PAIRED !== '0';
/** BENCH_PROFILE=1: (c) and (d) only, under `--cpu-prof`; prints the frames where the gateway spends more per request. */
const PROFILE = process.env.BENCH_PROFILE === '1';
/** BENCH_STAGES=1: what each group of the Messages pipeline's stages adds, against (c) (bench/stages.ts). */
const STAGES = process.env.BENCH_STAGES === '1';
/** BENCH_AB=<git ref>: this tree's gateway against the one at <ref>, paired in one process (bench/ab.ts). */
const AB = process.env.BENCH_AB;
/** BENCH_NODE_ARGS="--max-semi-space-size=64": Node flags for every server under test, (b) to (e) alike. */
const NODE_ARGS = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

/**
 * With two or more cores and `taskset` (Linux), the servers under test get a core of their own
 * and the load generator and fake upstream share the other. BENCH_PIN=0 turns this off.
 */
const SERVER_CPU = os.cpus().length - 1;
const PIN = process.env.BENCH_PIN !== '0' && SERVER_CPU > 0 && spawnSync('taskset', ['-p', String(process.pid)]).status === 0;
/** Pins a process (all its threads) to one CPU, or with -1 lets it run on every CPU again. */
const pin = (pid: number | undefined, cpu: number): void => {
  if (pid !== undefined) spawnSync('taskset', ['-a', '-p', '-c', cpu < 0 ? `0-${SERVER_CPU}` : String(cpu), String(pid)]);
};
let pinned = true;
if (PIN) pin(process.pid, 0);

const children: ChildProcess[] = [];
process.on('exit', () => { for (const c of children) c.kill(); });

function start(file: string, args: string[] = []): Promise<Proc> {
  // Compiled JS only: ts-node loads node:domain, which taxes every event emit and would skew the figures.
  const server = file === 'targets.ts';
  const profiled = PROFILE && (args[0] === 'express' || args[0] === 'gateway-memory');
  const execArgv = ['--expose-gc', ...(server ? NODE_ARGS : []), ...(profiled ? ['--cpu-prof', '--cpu-prof-dir=bench/results', `--cpu-prof-name=${args[0]}.cpuprofile`] : [])];
  const child = fork(path.join(__dirname, file.replace(/\.ts$/, '.js')), args, { execArgv, env: { ...process.env, BENCH_SCHEMA: schema }, stdio: 'inherit' });
  children.push(child);
  if (PIN && pinned) pin(child.pid, server ? SERVER_CPU : 0);
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${file} ${args.join(' ')} exited with ${code}`)));
  });
}

interface Scenario { name: string; direct: Omit<Load, 'proc'>; gateway: Omit<Load, 'proc'> }
const msg = [{ role: 'user', content: 'Summarise the plot of a short story in one paragraph.' }];
const docs = Array.from({ length: 100 }, (_, i) => `Document number ${i} talks about topic ${i % 7}.`);
const same = (name: string, p: string, body: object, headers?: Record<string, string>): Scenario => ({ name, direct: { path: p, body, headers }, gateway: { path: p, body, headers } });
const ALL_SCENARIOS: Scenario[] = [
  same('Anthropic JSON', '/v1/messages', { model: 'claude', max_tokens: 256, messages: msg }),
  same('Anthropic SSE (20 deltas)', '/v1/messages', { model: 'claude', max_tokens: 256, stream: true, messages: msg }),
  { name: 'OpenAI-format JSON', direct: { path: '/v1/chat/completions', body: { model: 'gpt', max_tokens: 256, messages: msg } }, gateway: { path: '/v1/messages', body: { model: 'gpt', max_tokens: 256, messages: msg } } },
  { name: 'OpenAI-format SSE', direct: { path: '/v1/chat/completions', body: { model: 'gpt', max_tokens: 256, stream: true, stream_options: { include_usage: true }, messages: msg } }, gateway: { path: '/v1/messages', body: { model: 'gpt', max_tokens: 256, stream: true, messages: msg } } },
  same('Rerank, 100 documents', '/v2/rerank', { model: 'rerank', query: 'topic 3', documents: docs }),
  same('Claude Code 90 KB SSE', '/v1/messages?beta=true', claudeCodeBody('agent'), CLAUDE_CODE_HEADERS),
  // Over an OpenAI-format upstream: the gateway translates both ways; (c) passes the same body through to a Messages upstream.
  same('Claude Code 90 KB over OpenAI-format SSE', '/v1/messages?beta=true', claudeCodeBody('agent-gpt'), CLAUDE_CODE_HEADERS),
  same('Chat completions JSON', '/v1/chat/completions', { model: 'gpt', max_tokens: 256, messages: msg }),
  same('Chat completions SSE', '/v1/chat/completions', { model: 'gpt', max_tokens: 256, stream: true, stream_options: { include_usage: true }, messages: msg }),
  ...STREAM_SCENARIOS, // the long agent streams and the Codex body (bench/streams.ts)
];
/** BENCH_SCENARIOS="Anthropic JSON,Rerank" keeps the scenarios whose names start so (load runs only). */
const ONLY = process.env.BENCH_SCENARIOS?.split(',').map((x) => x.trim()).filter(Boolean);
const SCENARIOS = ONLY ? ALL_SCENARIOS.filter((s) => ONLY.some((o) => s.name.startsWith(o))) : ALL_SCENARIOS;
const [JSON_SCENARIO, SSE_SCENARIO] = ALL_SCENARIOS as [Scenario, Scenario];

const TARGETS = ['direct', 'bare', 'express', 'gateway-memory', 'gateway-postgres'] as const;
/** Loaded only when BENCH_TARGETS names them: (c) and the gateway on undici (bench/transports.ts). */
const UNDICI_TARGETS = ['express-undici', 'gateway-undici'] as const;
type Target = (typeof TARGETS)[number] | (typeof UNDICI_TARGETS)[number];
const LABEL: Record<Target, string> = { direct: '(a) upstream direct', bare: '(b) bare http proxy', express: '(c) Express + node-fetch', 'gateway-memory': '(d) gateway, MemoryStore', 'gateway-postgres': '(e) gateway, PostgresStore', 'express-undici': '(c) on undici request()', 'gateway-undici': '(d) on undiciFetch()' };
/** BENCH_TARGETS="gateway-memory": a quick side-by-side check of some targets with (c), load table only. */
const ONLY_TARGETS = process.env.BENCH_TARGETS?.split(',').map((x) => x.trim()).filter((x): x is Target => ([...TARGETS, ...UNDICI_TARGETS] as readonly string[]).includes(x));
const QUICK = PROFILE || Boolean(ONLY_TARGETS?.length);
const LOADED: readonly Target[] = PROFILE ? ['express', 'gateway-memory'] : [...TARGETS, ...UNDICI_TARGETS].filter((t) => (!ONLY_TARGETS?.length && !(UNDICI_TARGETS as readonly string[]).includes(t)) || t === 'express' || ONLY_TARGETS?.includes(t));

const f = (n: number, d = 0): string => (Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));
const loadOf = (procs: Map<Target, Proc>, t: Target, s: Scenario): Load => ({ proc: procs.get(t) as Proc, ...(t.startsWith('gateway') ? s.gateway : s.direct) });
const write = (file: string, text: string): void => {
  console.log(`\n${text}`);
  mkdirSync(path.join(process.cwd(), 'bench', 'results'), { recursive: true });
  writeFileSync(path.join(process.cwd(), 'bench', 'results', file), `${text}\n`);
};

/** Load runs: `sequential` one target at a time (throughput, latency, CPU); `paired` each proxy at the same moment as (c) (CPU ratios). */
async function loadRuns(procs: Map<Target, Proc>, mode: 'sequential' | 'paired'): Promise<Record<string, Record<string, Cell[]>>> {
  const samples: Record<string, Record<string, Cell[]>> = {};
  const run = async (s: Scenario, group: readonly Target[], counted: boolean): Promise<void> => {
    const cells = await measure(group.map((t) => loadOf(procs, t, s)), CONNECTIONS, counted ? SECONDS : WARM_SECONDS);
    if (counted) group.forEach((t, i) => ((samples[s.name] ??= {})[t] ??= []).push(cells[i] as Cell));
    process.stderr.write(counted ? '.' : 'w');
  };
  // Each proxy is loaded at the same moment as (c) alone: with more servers sharing the core, the
  // ratios move with how the scheduler splits it (docs/benchmarks.md). (c)'s cell of each pair is kept under `express@<target>`.
  const runPair = async (s: Scenario, t: Target, counted: boolean): Promise<void> => {
    const cells = await measure([loadOf(procs, 'express', s), loadOf(procs, t, s)], CONNECTIONS, counted ? SECONDS : WARM_SECONDS);
    if (counted) {
      const row = (samples[s.name] ??= {});
      (row[`express@${t}`] ??= []).push(cells[0] as Cell);
      (row.express ??= []).push(cells[0] as Cell); // (c)'s own row in a quick table
      (row[t] ??= []).push(cells[1] as Cell);
    }
    process.stderr.write(counted ? '.' : 'w');
  };
  // Paired: each proxy's pairs form one block with its own uncounted warm-up round, so no server
  // under test idles between its cells (idle time, and V8's idle-time work in it, would go
  // uncounted). Each ratio is taken against (c) loaded at the same moment, so the machine's drift cancels.
  if (mode === 'paired') {
    for (const t of LOADED) {
      if (t === 'direct' || t === 'express') continue;
      for (let round = 0; round <= ROUNDS; round++) for (const s of SCENARIOS) await runPair(s, t, round > 0);
    }
    return samples;
  }
  // Sequential rounds alternate the targets, so a slow moment of the machine does not land on one
  // of them only; round 0 warms every server up (the JIT) and is not counted.
  for (let round = 0; round <= ROUNDS; round++) {
    for (const s of SCENARIOS) for (const t of LOADED) await run(s, [t], round > 0);
  }
  return samples;
}

/** Ends the profiled processes (they write their profiles on exit) and prints where (d) spends more than (c). */
async function reportProfile(procs: Map<Target, Proc>, table: Record<string, Record<string, Row>>): Promise<void> {
  const cpu = (t: Target): number => middle(Object.values(table).map((row) => (row[t] as Row).cpu));
  await Promise.all((['express', 'gateway-memory'] as const).map((t) => new Promise((resolve) => {
    const child = (procs.get(t) as Proc).child;
    child.once('exit', resolve);
    child.kill('SIGINT');
  })));
  const dir = path.join(process.cwd(), 'bench', 'results');
  write('profile.md', [`Scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}; ${PAIRED ? '(c) and (d) loaded at the same time' : 'one after the other'}. CPU per request: (c) ${cpu('express').toFixed(0)} µs, (d) ${cpu('gateway-memory').toFixed(0)} µs. Command: \`BENCH_PROFILE=1 npm run bench\`.`, '',
    profileDiff({ file: path.join(dir, 'express.cpuprofile'), cpu: cpu('express') }, { file: path.join(dir, 'gateway-memory.cpuprofile'), cpu: cpu('gateway-memory') })].join('\n'));
}

/** `BENCH_STAGES=1`: (c) and the five cumulative levels of the Messages pipeline. */
async function reportStages(upstreamPort: number): Promise<void> {
  const express = await start('targets.ts', ['express', String(upstreamPort)]);
  const levels = await Promise.all([1, 2, 3, 4, 5].map((n) => start('targets.ts', ['stages', String(upstreamPort), String(n)])));
  const table = await stageTable(levels, express, JSON_SCENARIO.gateway, { rounds: ROUNDS, connections: CONNECTIONS, seconds: SECONDS, warmSeconds: WARM_SECONDS });
  write('stages.md', `Anthropic JSON, each level loaded at the same moment as (c), median of ${ROUNDS} rounds of ${SECONDS} s. Command: \`BENCH_STAGES=1 npm run bench\`.\n\n${table}`);
}

/** The whole table, with latency, first byte, memory, validation and the client comparison. */
async function reportAll(procs: Map<Target, Proc>, table: Record<string, Record<string, Row>>, upstreamPort: number): Promise<void> {
  // Latency at concurrency 1 is a chain of wake-ups: pinned, every hop through a proxy would
  // cross cores while the direct call would not. These measures run unpinned.
  if (PIN) for (const pid of [process.pid, ...children.map((c) => c.pid)]) pin(pid, -1);
  pinned = false;
  const rounds = async (s: Scenario, until: 'first byte' | 'end', n: number, warm: number): Promise<Record<Target, number>> => {
    const times: Partial<Record<Target, number[]>> = {};
    for (let round = 0; round < ROUNDS; round++) for (const t of TARGETS) (times[t] ??= []).push(await sequentialTime(loadOf(procs, t, s), until, n, warm));
    return Object.fromEntries(TARGETS.map((t) => [t, middle(times[t] ?? [])])) as Record<Target, number>;
  };
  const lat1 = await rounds(JSON_SCENARIO, 'end', 300, 50);
  const ttfe = await rounds(SSE_SCENARIO, 'first byte', 200, 0);
  const mem: Partial<Record<Target, number>> = {};
  for (const t of ['bare', 'express', 'gateway-memory'] as const) {
    // A fresh process of each, so heap left over from the load runs does not blur it.
    const proc = await start('targets.ts', [t, String(upstreamPort)]);
    mem[t] = await memoryPerOpenStream(proc, SSE_SCENARIO.gateway.path, { ...SSE_SCENARIO.gateway.body, model: 'hold' }).finally(() => proc.child.kill());
  }
  const validation = measureValidation();
  for (const [t, p] of procs) if (t !== 'direct') p.child.kill(); // the client comparison needs the cores
  const clients = await measureClients(upstreamPort);

  const rows = [`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${f(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}. ${CONNECTIONS} connections, ${SECONDS} s per cell (autocannon), median of ${ROUNDS} alternating rounds. ${PIN ? `Load runs: servers under test pinned to CPU ${SERVER_CPU}, load generator and upstream to CPU 0; latency, first byte and memory unpinned. ` : ''}${PAIRED ? 'req/s, latency and CPU µs from runs of one target at a time; the CPU ratios from paired rounds (each proxy loaded at the same moment as (c)), as medians of the ratios within each round; a ratio to (b) goes through (c). ' : ''}${NODE_ARGS.length ? `Servers run with \`${NODE_ARGS.join(' ')}\`. ` : ''}Command: \`${NODE_ARGS.length ? `BENCH_NODE_ARGS="${NODE_ARGS.join(' ')}" ` : ''}npm run bench\`.`, '',
    '| scenario | target | req/s | p50 ms | p99 ms | server CPU µs/req | CPU vs (c) | CPU vs (b) |', '|---|---|---:|---:|---:|---:|---:|---:|'];
  for (const s of SCENARIOS) {
    for (const t of TARGETS) {
      const c = (table[s.name] as Record<Target, Row>)[t];
      rows.push(`| ${s.name} | ${LABEL[t]} | ${f(c.rps)} | ${f(c.p50, 1)} | ${f(c.p99, 1)} | ${f(c.cpu)} | ${f(c.vsC, 2)} | ${f(c.vsB, 2)} |`);
    }
  }
  const cells = (v: Partial<Record<Target, number>>, d: number): string => TARGETS.map((t) => (v[t] === undefined ? '–' : f(v[t] as number, d))).join(' | ');
  rows.push('', '| measure | (a) direct | (b) bare | (c) Express | (d) gateway Memory | (e) gateway Postgres |', '|---|---:|---:|---:|---:|---:|');
  rows.push(`| p50 latency at concurrency 1, Anthropic JSON, 300 requests, median of ${ROUNDS} rounds (ms) | ${cells(lat1, 2)} |`);
  rows.push(`| added p50 vs direct (ms) | ${cells(Object.fromEntries(TARGETS.map((t) => [t, lat1[t] - lat1.direct])), 2)} |`);
  rows.push(`| time to first stream byte, 200 requests, median of ${ROUNDS} rounds (ms) | ${cells(ttfe, 2)} |`);
  rows.push(`| RSS per open stream, 1,000 open (KiB) | ${cells(mem, 1)} |`);
  const d = table['Anthropic JSON'] as Record<Target, Row>;
  rows.push('', `Validation + estimate of a 1 MB prompt: ${f(validation, 2)} ms (mean of 50). PostgresStore throughput vs MemoryStore (Anthropic JSON): ${f(d['gateway-postgres'].rps / d['gateway-memory'].rps, 2)}×.`);
  const fetchCost = clients[0]?.[1] ?? 1;
  rows.push('', '| upstream HTTP client (through the adapter, `fetch` option) | client CPU µs per call | vs node-fetch 2 |', '|---|---:|---:|');
  for (const [name, us] of clients) rows.push(`| ${name} | ${f(us)} | ${f(us / fetchCost, 2)} |`);
  write(NODE_ARGS.length ? 'latest-node-args.md' : 'latest.md', rows.join('\n'));
}

/** With BENCH_TARGETS: the load table of the chosen targets, CPU against (c). */
function reportQuick(table: Record<string, Record<string, Row>>): void {
  const warm = process.env.BENCH_WARM_SECONDS ? `BENCH_WARM_SECONDS=${WARM_SECONDS} ` : '';
  const rows = [`${ROUNDS} rounds of ${SECONDS} s after a ${WARM_SECONDS} s warm-up, ${CONNECTIONS} connections, ${PAIRED ? 'each target loaded at the same moment as (c)' : 'one target at a time'}. Command: \`${warm}BENCH_TARGETS="${process.env.BENCH_TARGETS}" npm run bench\`.`, '',
    '| scenario | target | req/s | server CPU µs/req | of which system | CPU vs (c) |', '|---|---|---:|---:|---:|---:|'];
  for (const s of SCENARIOS) {
    for (const t of LOADED) {
      const c = (table[s.name] as Record<Target, Row>)[t];
      rows.push(`| ${s.name} | ${LABEL[t]} | ${f(c.rps)} | ${f(c.cpu)} | ${f(c.sys)} | ${f(c.vsC, 2)} |`);
    }
  }
  write('quick.md', rows.join('\n'));
}

async function main(): Promise<void> {
  if (AB) return write('ab.md', await abReport(AB, SCENARIOS, process.cwd()));
  const upstream = await start('upstream.ts');
  if (STAGES) return reportStages(upstream.port);
  const procs = new Map<Target, Proc>([['direct', upstream]]);
  for (const t of LOADED) if (t !== 'direct') procs.set(t, await start('targets.ts', [t, String(upstream.port)]));
  const sequential = QUICK && PAIRED ? undefined : await loadRuns(procs, 'sequential');
  const paired = PAIRED ? await loadRuns(procs, 'paired') : undefined;
  const table = Object.fromEntries(SCENARIOS.map((s) => {
    const runs = (sequential ?? paired)?.[s.name] ?? {};
    return [s.name, summarise(runs, paired?.[s.name] ?? runs)];
  }));
  if (PROFILE) return reportProfile(procs, table);
  if (QUICK) return reportQuick(table);
  await reportAll(procs, table, upstream.port);
  const { Pool } = await import('pg');
  const pool = new Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => pool.end());
}

main().then(() => process.exit(0), (err: unknown) => {
  console.error(err);
  process.exit(1);
});
