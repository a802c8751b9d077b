/** The `model-gateway` binary as a real process: `serve` started with a config, its output read as it comes. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const BIN = path.join(__dirname, '..', '..', 'bin', 'model-gateway.js');

export interface RunningBinary {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  out(): string;
  /** Waits until its output matches `re` (fails if it exits first). */
  waitFor(re: RegExp): Promise<RegExpMatchArray>;
  /** Its public URL, once it printed it. */
  url(): Promise<string>;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `model-gateway serve <args>` with exactly `env` (plus PATH). */
export function startBinary(args: string[], env: NodeJS.ProcessEnv): RunningBinary {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: { PATH: process.env.PATH, ...env } });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr?.on('data', (c: Buffer) => { out += c.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = async (re: RegExp): Promise<RegExpMatchArray> => {
    for (;;) {
      const m = re.exec(out);
      if (m) return m;
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${out}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    child, out: () => out, waitFor,
    url: async () => `http://127.0.0.1:${(await waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
