/** Runs the installed Claude Code (`claude -p`) headless against a base URL, sealed off from the developer's home and environment. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface RunClaudeOptions {
  /** ANTHROPIC_BASE_URL: the gateway or a fake upstream; unset, whatever `home`'s settings or `commandLine` say. */
  baseURL?: string;
  /** Sent as `x-api-key` (ANTHROPIC_API_KEY). */
  apiKey?: string;
  /** Sent as `Authorization: Bearer` (ANTHROPIC_AUTH_TOKEN); with apiKey too, Claude Code sends both headers. */
  authToken?: string;
  prompt: string;
  /** `--model`; unset, the model the settings or the environment name. */
  model?: string;
  /** The working directory; under acceptEdits Claude Code writes only inside it. */
  cwd: string;
  /** Files written as given under the throwaway HOME (e.g. `{'.claude/settings.json': text}`, as `model-gateway client-config`
   * prints them). */
  home?: Record<string, string>;
  /** A shell command line run as written by bash (e.g. a documented `ANTHROPIC_BASE_URL=… claude --model …`), its `claude`
   * this binary; the harness's headless arguments are appended to it. */
  commandLine?: string;
  /** More variables (e.g. ENABLE_PROMPT_CACHING_1H=1); nothing else reaches the process. */
  extraEnv?: Record<string, string>;
  /** Kill the run after this long (default 20 s: inside jest's 30 s, so a hung run fails as a result, not a test timeout). */
  timeoutMs?: number;
  /** The package the release is installed under (default: the pinned `@anthropic-ai/claude-code`). */
  release?: string;
}

export interface ClaudeRun {
  /** Exit code; null when the process was killed (timedOut). */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** stdout parsed (`--output-format json` prints one result object: `result`, `is_error`, `usage`, …). */
  json: Record<string, unknown> | undefined;
  /** The process id, and the throwaway HOME (removed by the time the run returns). */
  pid: number | undefined;
  home: string;
}

/** The native binary of a Claude Code release installed under `wrapperPackage` (the pinned one, or an alias such as
 * `claude-code-latest`): its platform package's (present even when install scripts did not run), else the wrapper's copy. */
export function claudeBinary(wrapperPackage = '@anthropic-ai/claude-code'): string {
  const wrapper = path.dirname(require.resolve(`${wrapperPackage}/package.json`));
  const exe = process.platform === 'win32' ? 'claude.exe' : 'claude';
  for (const suffix of ['', '-musl']) {
    try {
      const dir = path.dirname(require.resolve(`@anthropic-ai/claude-code-${process.platform}-${process.arch}${suffix}/package.json`, { paths: [wrapper] }));
      if (existsSync(path.join(dir, exe))) return path.join(dir, exe);
    } catch {
      // not installed for this platform variant
    }
  }
  return path.join(wrapper, 'bin', 'claude.exe');
}

function parse(stdout: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(stdout);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `claude -p <prompt> [--model <model>] --permission-mode acceptEdits --output-format json` in `cwd`, with a HOME, XDG dirs
 * and TMPDIR made for this run (and removed after), and an environment built from PATH and the variables below only.
 * The process (and anything it started) is killed at `timeoutMs`. */
export async function runClaude({ baseURL, apiKey, authToken, prompt, model, cwd, home, commandLine, extraEnv = {}, timeoutMs = 20_000, release }: RunClaudeOptions): Promise<ClaudeRun> {
  if (apiKey === undefined && authToken === undefined && commandLine === undefined && extraEnv.ANTHROPIC_AUTH_TOKEN === undefined) throw new Error('runClaude: give apiKey (x-api-key) or authToken (Bearer)');
  const root = await mkdtemp(path.join(os.tmpdir(), 'claude-run-'));
  const dirs = { HOME: 'home', XDG_CONFIG_HOME: 'xdg/config', XDG_CACHE_HOME: 'xdg/cache', XDG_DATA_HOME: 'xdg/data', XDG_STATE_HOME: 'xdg/state', TMPDIR: 'tmp' };
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  for (const [name, dir] of Object.entries(dirs)) {
    const full = path.join(root, dir);
    await mkdir(full, { recursive: true });
    env[name] = full;
  }
  for (const [file, text] of Object.entries(home ?? {})) {
    const full = path.join(env.HOME as string, file);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, text);
  }
  if (commandLine !== undefined) {
    // `claude` on the command line is this binary.
    const bin = path.join(root, 'bin');
    await mkdir(bin);
    await symlink(claudeBinary(), path.join(bin, 'claude'));
    env.PATH = `${bin}:${env.PATH}`;
  }
  Object.assign(env, {
    CLAUDE_CODE_TMPDIR: env.TMPDIR,
    ...(baseURL === undefined ? {} : { ANTHROPIC_BASE_URL: baseURL }),
    ...(apiKey === undefined ? {} : { ANTHROPIC_API_KEY: apiKey }),
    ...(authToken === undefined ? {} : { ANTHROPIC_AUTH_TOKEN: authToken }),
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...extraEnv,
  });
  // --strict-mcp-config: no MCP server from any config; --no-session-persistence: no transcript to write.
  const args = ['-p', prompt, ...(model === undefined ? [] : ['--model', model]), '--permission-mode', 'acceptEdits', '--output-format', 'json', '--strict-mcp-config', '--no-session-persistence'];
  try {
    return await new Promise<ClaudeRun>((resolve, reject) => {
      // Its own process group, so a timeout kills whatever it started too.
      const [command, argv] = commandLine === undefined ? [claudeBinary(release), args] : ['/bin/bash', ['-c', `${commandLine} "$@"`, 'bash', ...args]];
      const child = spawn(command, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => err.push(c));
      let timedOut = false;
      const killGroup = (): void => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // the group is gone already
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, timeoutMs);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        killGroup(); // anything it left running
        const stdout = Buffer.concat(out).toString('utf8');
        resolve({ code, stdout, stderr: Buffer.concat(err).toString('utf8'), timedOut, json: parse(stdout), pid: child.pid, home: env.HOME as string });
      });
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
