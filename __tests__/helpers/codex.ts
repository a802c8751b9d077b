/** Runs the installed Codex CLI (`codex exec --json`) against a Responses base URL on 127.0.0.1, in a loopback-only network
 * namespace, with a throwaway CODEX_HOME (config.toml, model catalog), HOME, XDG dirs and TMPDIR, and a minimal environment. */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnLoopbackOnly } from './loopback';

/** The version the suite pins (package.json devDependencies); what docs/agent-clients-observed.md describes. */
export const CODEX_VERSION = '0.169.0';

export interface RunCodexOptions {
  /** The server's root URL (`http://127.0.0.1:<port>`, or with the path a router is mounted at); Codex's base_url is
   * `<baseURL>/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer` (through the provider's env_key). */
  apiKey: string;
  prompt: string;
  /** `-m <model>`; required with the harness's config. Unset with `home`: the model of the config written there, as a user runs it. */
  model?: string;
  /** The working directory (a temporary, git-less folder): exec_command runs here, apply_patch paths resolve against it. */
  cwd: string;
  /** Provider retries; unset, Codex's own defaults apply (4 and 5), as for a user: a retried failure costs several requests. */
  requestMaxRetries?: number;
  streamMaxRetries?: number;
  /** More `[model_providers.gw]` settings (e.g. `stream_idle_timeout_ms`). */
  provider?: Record<string, string | number | boolean>;
  /** Default true: a model_catalog_json with one entry for `model` whose apply_patch is the freeform (custom, lark grammar) tool
   * and which silences the "model metadata not found" warning. False: Codex's bundled catalog (an unknown model gets fallback
   * metadata: no apply_patch, and a warning item). */
  catalog?: boolean;
  /** Default true without `home`: `--dangerously-bypass-approvals-and-sandbox` (the namespace is the sandbox). Codex's own
   * default sandbox leaves the workspace read-only: writes by commands and patches fail (`sandbox_mode = "workspace-write"` lets them). */
  bypassSandbox?: boolean;
  /** Files written as given under the run's HOME instead of the harness's config (e.g. `{'.codex/config.toml': text}`, as
   * `model-gateway client-config codex` prints them). CODEX_HOME is then unset (Codex reads `<HOME>/.codex`), the key goes in
   * `keyVariable`, and the sandbox is the config's. */
  home?: Record<string, string>;
  /** The variable the key is passed in (the provider's env_key); default `GW_API_KEY`, the harness's config's. */
  keyVariable?: string;
  /** More variables; nothing else from the test's environment reaches Codex. */
  extraEnv?: Record<string, string>;
  /** Kill the run (the whole namespace) after this long; default 20 s, inside jest's 30 s. */
  timeoutMs?: number;
  /** Kills the run (the whole namespace) when aborted. */
  signal?: AbortSignal;
}

/** One line of `codex exec --json`. */
export interface CodexEvent {
  type: string;
  item?: CodexItem;
  usage?: CodexUsage;
  error?: { message: string };
  message?: string;
  [key: string]: unknown;
}

/** An item of `item.started` / `item.completed`: agent_message {text}, reasoning {text}, command_execution {command,
 * aggregated_output, exit_code, status}, file_change {changes[{path, kind}], status}, error {message} (a warning). */
export interface CodexItem {
  id: string;
  type: string;
  [key: string]: unknown;
}

/** `turn.completed.usage`: the turn's requests summed. */
export interface CodexUsage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens?: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

export interface CodexRun {
  /** Exit code; null when killed (timedOut, or aborted). */
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** The JSONL events (lines that are not JSON are skipped; they stay in stdout). */
  events: CodexEvent[];
  /** Completed items of a type, in order. */
  completed(type: string): CodexItem[];
  /** The last `turn.completed` usage. */
  usage: CodexUsage | undefined;
  /** Messages of top-level `error` events (retry notices, "Reconnecting... n/5", included) and of `turn.failed`; warning
   * items are not failures. */
  failures: string[];
  /** TCP connections Codex opened to the base URL's port. */
  connections: number;
}

/** The native binary from the platform package (the `@openai/codex` wrapper only picks and execs it). */
export function codexBinary(): string {
  const wrapper = path.dirname(require.resolve('@openai/codex/package.json'));
  const triples: Record<string, string> = { 'linux-x64': 'x86_64-unknown-linux-musl', 'linux-arm64': 'aarch64-unknown-linux-musl' };
  const triple = triples[`${process.platform}-${process.arch}`];
  if (triple === undefined) throw new Error(`runCodex: no Codex binary for ${process.platform}-${process.arch} (namespaces need Linux)`);
  const pkg = path.dirname(require.resolve(`@openai/codex-${process.platform}-${process.arch}/package.json`, { paths: [wrapper] }));
  const binary = path.join(pkg, 'vendor', triple, 'bin', 'codex');
  if (!existsSync(binary)) throw new Error(`runCodex: ${binary} is missing; run npm ci`);
  return binary;
}

const toml = (value: string | number | boolean): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

/** The catalog entry that makes `model` a known model: the fields Codex requires, apply_patch as the freeform tool. */
export function catalogEntry(model: string): Record<string, unknown> {
  return {
    slug: model, display_name: model, base_instructions: 'You are Codex, a coding agent, run by a test suite.',
    apply_patch_tool_type: 'freeform', shell_type: 'shell_command', visibility: 'list', supported_in_api: true, priority: 1,
    support_verbosity: false, supported_reasoning_levels: [{ effort: 'medium', description: 'medium' }],
    truncation_policy: { mode: 'tokens', limit: 10_000 }, experimental_supported_tools: [],
  };
}

async function writeConfig(home: string, o: RunCodexOptions, base: string): Promise<void> {
  if (o.model === undefined) throw new Error('runCodex: give the model (the harness\'s config names none), or a home with a config that does');
  const provider: Record<string, string | number | boolean> = {
    name: 'gw', base_url: `${base}/v1`, env_key: 'GW_API_KEY', wire_api: 'responses', supports_websockets: false,
    ...(o.requestMaxRetries === undefined ? {} : { request_max_retries: o.requestMaxRetries }),
    ...(o.streamMaxRetries === undefined ? {} : { stream_max_retries: o.streamMaxRetries }),
    ...o.provider,
  };
  const lines = ['model_provider = "gw"', 'check_for_update_on_startup = false'];
  if (o.catalog ?? true) {
    const file = path.join(home, 'catalog.json');
    await writeFile(file, JSON.stringify({ models: [catalogEntry(o.model as string)] }));
    lines.push(`model_catalog_json = ${toml(file)}`);
  }
  lines.push('', '[analytics]', 'enabled = false', '', '[model_providers.gw]', ...Object.entries(provider).map(([k, v]) => `${k} = ${toml(v)}`));
  await writeFile(path.join(home, 'config.toml'), `${lines.join('\n')}\n`);
}

function parseEvents(stdout: string): CodexEvent[] {
  return stdout.split('\n').flatMap((line) => {
    try {
      const value: unknown = JSON.parse(line);
      return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' ? [value as CodexEvent] : [];
    } catch {
      return [];
    }
  });
}

/** Runs `codex exec --skip-git-repo-check --json --ephemeral [--dangerously-bypass-approvals-and-sandbox] [-m <model>] <prompt>`
 * in `cwd`; the run and everything it started is killed at `timeoutMs`. */
export async function runCodex(o: RunCodexOptions): Promise<CodexRun> {
  const target = new URL(o.baseURL);
  const base = o.baseURL.replace(/\/+$/, '');
  const root = await mkdtemp(path.join(os.tmpdir(), 'codex-run-'));
  const dirs = { CODEX_HOME: 'codex-home', HOME: 'home', XDG_CONFIG_HOME: 'xdg/config', XDG_CACHE_HOME: 'xdg/cache', XDG_DATA_HOME: 'xdg/data', XDG_STATE_HOME: 'xdg/state', TMPDIR: 'tmp' };
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' };
  for (const [name, dir] of Object.entries(dirs)) {
    env[name] = path.join(root, dir);
    await mkdir(env[name] as string, { recursive: true });
  }
  Object.assign(env, { [o.keyVariable ?? 'GW_API_KEY']: o.apiKey, NO_COLOR: '1', ...o.extraEnv });
  if (o.home) {
    delete env.CODEX_HOME; // Codex's default, as a user has it: <HOME>/.codex
    for (const [file, text] of Object.entries(o.home)) {
      const full = path.join(env.HOME as string, file);
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, text);
    }
  } else {
    await writeConfig(env.CODEX_HOME as string, o, base);
  }
  const bypass = o.bypassSandbox ?? o.home === undefined;
  const args = ['exec', '--skip-git-repo-check', '--json', '--ephemeral', ...(bypass ? ['--dangerously-bypass-approvals-and-sandbox'] : []), ...(o.model === undefined ? [] : ['-m', o.model]), o.prompt];
  try {
    const run = await spawnLoopbackOnly(target, codexBinary(), args, { cwd: o.cwd, env });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      run.kill();
    }, o.timeoutMs ?? 20_000);
    const abort = (): void => run.kill();
    o.signal?.addEventListener('abort', abort);
    if (o.signal?.aborted) abort();
    const code = await run.exited;
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', abort);
    run.kill(); // anything left in the group
    await run.close();
    const stdout = run.stdout();
    const events = parseEvents(stdout);
    const completed = (type: string): CodexItem[] => events.filter((e) => e.type === 'item.completed' && e.item?.type === type).map((e) => e.item as CodexItem);
    const failures = events.flatMap((e) => (e.type === 'error' ? [String(e.message)] : e.type === 'turn.failed' ? [String(e.error?.message)] : []));
    const usage = events.filter((e) => e.type === 'turn.completed').at(-1)?.usage;
    return { code: timedOut ? null : code, timedOut, stdout, stderr: run.stderr(), events, completed, usage, failures, connections: run.connections() };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
