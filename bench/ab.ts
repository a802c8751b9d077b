/** `BENCH_AB=<git ref> npm run bench`: this tree's gateway against the one at <ref>, in one process, as paired differences in µs. */
import { execFileSync, fork, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface Scenario { name: string; direct: { path: string; body: object }; gateway: { path: string; body: object } }

const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 10);
/**
 * Separate processes per scenario, alternating which copy loads first: run A/A, the copy loaded
 * second was faster in every process (docs/benchmarks.md), so the error is taken across processes.
 */
const PROCESSES = Number(process.env.BENCH_AB_PROCESSES ?? 4);
const PER_ROUND = Number(process.env.BENCH_AB_REQUESTS ?? 1000);

/** Mean of `values` with its standard error. */
function meanSe(values: readonly number[]): { mean: number; se: number } {
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(1, values.length - 1));
  return { mean, se: sd / Math.sqrt(values.length) };
}

/** Mean of the middle 60% of `values`, with its standard error. */
function trimmed(values: readonly number[]): { mean: number; se: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length * 0.2);
  return meanSe(sorted.slice(cut, sorted.length - cut));
}

/** Builds `ref` in a temporary git worktree (bench build, as for this tree) and returns its build folder. */
function buildRef(ref: string, root: string): { build: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-ab-'));
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: root, stdio: 'ignore' });
  const remove = (): void => { spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: root }); };
  try {
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.bench.json'], { cwd: dir, stdio: 'inherit' });
    // The migrations: lib/stores/postgres/sql, or lib/stores/sql in a commit before the stores had folders.
    const sql = ['postgres/sql', 'sql'].map((d) => path.join('lib', 'stores', d)).find((d) => existsSync(path.join(dir, d)));
    if (sql) cpSync(path.join(dir, sql), path.join(dir, '.bench-build', sql), { recursive: true });
  } catch (err) {
    remove();
    throw err;
  }
  return { build: path.join(dir, '.bench-build'), remove };
}

function runPair(rootA: string, rootB: string, scenario: Scenario): Promise<Record<'c' | 'A' | 'B', number[]>> {
  // The scenario goes by file: a Codex body or a long stream is past the kernel's 128 KB bound on one argument (spawn E2BIG).
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'mgw-ab-scenario-')), 'scenario.json');
  writeFileSync(file, JSON.stringify(scenario));
  const child = fork(path.join(__dirname, 'ab-load.js'), [rootA, rootB, file, String(ROUNDS), String(PER_ROUND)], { stdio: 'inherit' });
  // Servers and client on the last CPU (the upstream moves itself to CPU 0), when taskset exists.
  spawnSync('taskset', ['-a', '-p', '-c', String(os.cpus().length - 1), String(child.pid)]);
  return new Promise((resolve, reject) => {
    let cpu: Record<'c' | 'A' | 'B', number[]> | undefined;
    child.once('message', (m: Record<'c' | 'A' | 'B', number[]>) => { cpu = m; });
    child.once('exit', (code) => (cpu ? resolve(cpu) : reject(new Error(`ab-load exited with ${code} before its figures`))));
  });
}

/** Figures of a process that loaded B's copy as its first gateway, put back in A and B order. */
const swap = (cpu: Record<'c' | 'A' | 'B', number[]>): Record<'c' | 'A' | 'B', number[]> => ({ c: cpu.c, A: cpu.B, B: cpu.A });

/** The comparison table: CPU µs per request (server and client together) of A = <ref> and B = this tree, their paired difference, and each over (c). */
export async function abReport(ref: string, scenarios: readonly Scenario[], root: string): Promise<string> {
  const base = buildRef(ref, root);
  const rows = [
    `A = \`${ref}\`, B = this tree. ${PROCESSES} processes per scenario; each serves (c), A and B and loads each in turn (${ROUNDS} alternating rounds of ${PER_ROUND} requests, 50 at a time) and yields the mean of the middle 60% of its paired rounds. Figures: mean over the processes ± its standard error, and B − A of each process. CPU per request includes the in-process client, so read differences, not ratios. Command: \`BENCH_AB=${ref} npm run bench\`.`,
    '', '| scenario | (c) µs | A µs | B µs | B − A µs | B − A per process | A − (c) µs | B − (c) µs |', '|---|---:|---:|---:|---:|---|---:|---:|',
  ];
  try {
    for (const scenario of scenarios) {
      // Per process: the trimmed means of (c), A, B and of the paired differences.
      const runs: Array<Record<'c' | 'A' | 'B' | 'BA' | 'Ac' | 'Bc', number>> = [];
      for (let p = 0; p < PROCESSES; p++) {
        // Every other process loads B's copy first, so load order favours neither.
        const cpu = p % 2 ? swap(await runPair(path.join(__dirname, '..'), base.build, scenario)) : await runPair(base.build, path.join(__dirname, '..'), scenario);
        const diff = (x: number[], y: number[]): number => trimmed(x.map((v, i) => v - (y[i] ?? Number.NaN))).mean;
        runs.push({ c: trimmed(cpu.c).mean, A: trimmed(cpu.A).mean, B: trimmed(cpu.B).mean, BA: diff(cpu.B, cpu.A), Ac: diff(cpu.A, cpu.c), Bc: diff(cpu.B, cpu.c) });
        process.stderr.write('.');
      }
      const col = (k: keyof (typeof runs)[number]): { mean: number; se: number } => meanSe(runs.map((r) => r[k]));
      const f = ({ mean, se }: { mean: number; se: number }): string => `${mean.toFixed(1)} ± ${se.toFixed(1)}`;
      const each = runs.map((r) => r.BA.toFixed(1)).join(', ');
      rows.push(`| ${scenario.name} | ${col('c').mean.toFixed(0)} | ${col('A').mean.toFixed(0)} | ${col('B').mean.toFixed(0)} | ${f(col('BA'))} | ${each} | ${f(col('Ac'))} | ${f(col('Bc'))} |`);
    }
  } finally {
    base.remove();
  }
  return rows.join('\n');
}
