/** The built `model-gateway` binary as a process: one command run to its end, or `serve` running, with a wait for its output. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const BIN = path.join(__dirname, '..', '..', 'bin', 'model-gateway.js');

/** An environment from the test's own; a variable given as undefined is left out. */
export function processEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries({ ...process.env, ...extra }).filter(([, v]) => v !== undefined));
}

/** Runs a command to its end. */
export function runBinary(args: string[], env: NodeJS.ProcessEnv): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Runs a command to its end while this process keeps serving (its fakes answer meanwhile). */
export async function runBinaryAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, out, err };
}

/** A running process: its output so far (stdout and stderr), a wait for a line, its exit. */
export interface Running {
  child: ChildProcess;
  out(): string;
  /** Waits for output matching `re`; fails when the process exits first or after `boundMs` (default 30 s: only a broken process takes that long). */
  waitFor(re: RegExp, boundMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<number | null>;
}

/** Starts `model-gateway <args>` (usually `serve`). */
export function startBinary(args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [BIN, ...args], { env });
  return watch(child);
}

/** Watches a spawned process's output. */
export function watch(child: ChildProcess): Running {
  let out = '';
  const waiting = new Set<() => void>();
  const changed = (): void => { for (const wake of waiting) wake(); };
  child.stdout?.on('data', (c: Buffer) => { out += c.toString(); changed(); });
  child.stderr?.on('data', (c: Buffer) => { out += c.toString(); changed(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { resolve(code); changed(); }));
  // Waits for the output itself (no polling interval), up to a bound only a broken process reaches.
  const waitFor = async (re: RegExp, boundMs = 30_000): Promise<RegExpMatchArray> => {
    const until = Date.now() + boundMs;
    for (;;) {
      const m = re.exec(out);
      if (m) return m;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited (${child.exitCode ?? child.signalCode}) before ${re}: ${out}`);
      if (Date.now() > until) throw new Error(`timed out waiting for ${re}: ${out}`);
      await new Promise<void>((resolve) => {
        const wake = (): void => { waiting.delete(wake); clearTimeout(timer); resolve(); };
        const timer = setTimeout(wake, until - Date.now());
        waiting.add(wake);
      });
    }
  };
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return { child, out: () => out, waitFor, exited, stop };
}
