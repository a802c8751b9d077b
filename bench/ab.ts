/** `BENCH_AB=<git ref> npm run bench`: this tree's gateway against the one at <ref>, in one process, as paired differences in µs. */
import { execFileSync, fork, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface Scenario { name: string; direct: { path: string; body: object }; gateway: { path: string; body: object } }

const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 40);
const PER_ROUND = Number(process.env.BENCH_AB_REQUESTS ?? 1000);

/** Mean of the middle 60% of `values`, with its standard error. */
function trimmed(values: readonly number[]): { mean: number; se: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length * 0.2);
  const kept = sorted.slice(cut, sorted.length - cut);
  const mean = kept.reduce((s, v) => s + v, 0) / kept.length;
  const sd = Math.sqrt(kept.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(1, kept.length - 1));
  return { mean, se: sd / Math.sqrt(kept.length) };
}

/** Builds `ref` in a temporary git worktree (bench build, as for this tree) and returns its build folder. */
function buildRef(ref: string, root: string): { build: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-ab-'));
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: root, stdio: 'ignore' });
  const remove = (): void => { spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: root }); };
  try {
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.bench.json'], { cwd: dir, stdio: 'inherit' });
    cpSync(path.join(dir, 'lib', 'stores', 'sql'), path.join(dir, '.bench-build', 'lib', 'stores', 'sql'), { recursive: true });
  } catch (err) {
    remove();
    throw err;
  }
  return { build: path.join(dir, '.bench-build'), remove };
}

function runPair(rootA: string, rootB: string, scenario: Scenario): Promise<Record<'c' | 'A' | 'B', number[]>> {
  const child = fork(path.join(__dirname, 'ab-load.js'), [rootA, rootB, JSON.stringify(scenario), String(ROUNDS), String(PER_ROUND)], { stdio: 'inherit' });
  // Servers and client on the last CPU (the upstream moves itself to CPU 0), when taskset exists.
  spawnSync('taskset', ['-a', '-p', '-c', String(os.cpus().length - 1), String(child.pid)]);
  return new Promise((resolve, reject) => {
    let cpu: Record<'c' | 'A' | 'B', number[]> | undefined;
    child.once('message', (m: Record<'c' | 'A' | 'B', number[]>) => { cpu = m; });
    child.once('exit', (code) => (cpu ? resolve(cpu) : reject(new Error(`ab-load exited with ${code} before its figures`))));
  });
}

/** The comparison table: CPU µs per request (server and client together) of A = <ref> and B = this tree, their paired difference, and each over (c). */
export async function abReport(ref: string, scenarios: readonly Scenario[], root: string): Promise<string> {
  const base = buildRef(ref, root);
  const rows = [
    `A = \`${ref}\`, B = this tree. One process serves (c), A and B and loads each in turn (${ROUNDS} alternating rounds of ${PER_ROUND} requests, 50 at a time); CPU per request includes the in-process client, so read differences, not ratios. Means of the middle 60% of paired rounds ± standard error. Command: \`BENCH_AB=${ref} npm run bench\`.`,
    '', '| scenario | (c) µs | A µs | B µs | B − A µs | A − (c) µs | B − (c) µs |', '|---|---:|---:|---:|---:|---:|---:|',
  ];
  try {
    for (const scenario of scenarios) {
      const cpu = await runPair(base.build, path.join(__dirname, '..'), scenario);
      const diff = (x: number[], y: number[]): { mean: number; se: number } => trimmed(x.map((v, i) => v - (y[i] ?? Number.NaN)));
      const f = ({ mean, se }: { mean: number; se: number }): string => `${mean.toFixed(1)} ± ${se.toFixed(1)}`;
      rows.push(`| ${scenario.name} | ${trimmed(cpu.c).mean.toFixed(0)} | ${trimmed(cpu.A).mean.toFixed(0)} | ${trimmed(cpu.B).mean.toFixed(0)} | ${f(diff(cpu.B, cpu.A))} | ${f(diff(cpu.A, cpu.c))} | ${f(diff(cpu.B, cpu.c))} |`);
      process.stderr.write('.');
    }
  } finally {
    base.remove();
  }
  return rows.join('\n');
}
