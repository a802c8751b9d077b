/** Load measurement shared by the bench commands: servers in child processes, CPU per request, medians and ratios. */
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { HEADERS } from './key';

/** A server under test, in its own process. */
export interface Proc { child: ChildProcess; port: number }
/** What a server reports of itself: CPU counters and resident memory. */
export interface Stats { cpu: NodeJS.CpuUsage; rss: number }
/** One load run of one server. */
export interface Cell { rps: number; p50: number; p99: number; cpu: number; sys: number }
/** The medians of a server's runs, and its CPU against (c) and (b): medians of the ratios within each round. */
export interface Row extends Cell { vsC: number; vsB: number }
/** One server of a group loaded together, and the request it gets (with `headers` beside the bench key's). */
export interface Load { proc: Proc; path: string; body: object; headers?: Record<string, string> }

/** CPU counters (`cpu`), or resident memory after a full GC (`memory`), of a server. */
export const stats = (p: Proc, kind: 'cpu' | 'memory' = 'cpu'): Promise<Stats> => new Promise((resolve) => {
  p.child.once('message', (m: Stats) => resolve(m));
  p.child.send(kind);
});

/** The median of some figures. */
export const middle = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * Loads every server of `group` at the same time for `seconds` (after a 1 s warm-up), each
 * with its own `connections`, and returns each one's throughput, latency and CPU per request
 * (from its own process.cpuUsage(), so kernel time for its sockets counts too).
 */
export async function measure(group: readonly Load[], connections: number, seconds: number): Promise<Cell[]> {
  const fire = (duration: number): Promise<autocannon.Result[]> => Promise.all(group.map((g) => autocannon({
    url: `http://127.0.0.1:${g.proc.port}${g.path}`, method: 'POST', headers: { ...g.headers, ...HEADERS }, body: JSON.stringify(g.body), connections, duration,
  })));
  await fire(1);
  const before = await Promise.all(group.map((g) => stats(g.proc)));
  const runs = await fire(seconds);
  const after = await Promise.all(group.map((g) => stats(g.proc)));
  return runs.map((r, i) => {
    const [a, b] = [before[i] as Stats, after[i] as Stats];
    const ok = Math.max(1, r.requests.total - r.non2xx - r.errors);
    if (r.non2xx + r.errors > 0) console.error(`${group[i]?.path} on port ${group[i]?.proc.port}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    const cpu = b.cpu.user + b.cpu.system - a.cpu.user - a.cpu.system;
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpu: cpu / ok, sys: (b.cpu.system - a.cpu.system) / ok };
  });
}

/**
 * Each figure as its own median over the rounds; `vsC`/`vsB` as the medians of the CPU ratios
 * to (c) and (b) within each round of `ratios` (the paired rounds when there are any). Ratios
 * taken within a round cancel this VM's speed changes, which reach 2 × within seconds.
 */
export function summarise(runs: Record<string, Cell[]>, ratios: Record<string, Cell[]> = runs): Record<string, Row> {
  const ratio = (t: string, base: string): number => {
    // Paired with (c) alone (`express@<t>`): against (c) directly, against another target through (c).
    const pairedWithC = ratios[`express@${t}`];
    if (t === base) return 1;
    if (t === 'express' && ratios[`express@${base}`]) return 1 / ratio(base, 'express');
    if (pairedWithC && base !== 'express') return ratio(t, 'express') / ratio(base, 'express');
    const [mine, theirs] = [ratios[t] ?? [], pairedWithC ?? ratios[base] ?? []];
    return mine.length && theirs.length ? middle(mine.map((c, i) => c.cpu / (theirs[i]?.cpu ?? Number.NaN))) : Number.NaN;
  };
  return Object.fromEntries(Object.entries(runs).filter(([t]) => !t.includes('@')).map(([t, cells]) => [t, {
    rps: middle(cells.map((c) => c.rps)), p50: middle(cells.map((c) => c.p50)), p99: middle(cells.map((c) => c.p99)),
    cpu: middle(cells.map((c) => c.cpu)), sys: middle(cells.map((c) => c.sys)),
    vsC: ratio(t, 'express'), vsB: ratio(t, 'bare'),
  }]));
}
