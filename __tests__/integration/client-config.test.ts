/**
 * From zero to a team, as docs/team-setup.md tells it: the page's commands run as written against the binary (validate, serve
 * on PostgreSQL, a key, a credit, `client-config` for each client), then each real client runs with exactly the set-up the
 * command printed (the key the only value filled in): Claude Code and Codex complete their file tasks through the gateway,
 * the Agents SDK's snippet type-checks and its agent answers; each is billed to the key's caller.
 */
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import type { ClientSetup } from '../../lib/cli/client-files';
import { processEnv, runBinaryAsync, startBinary, type Running } from '../helpers/binary';
import { runClaude } from '../helpers/claude-code';
import { runCodex } from '../helpers/codex';
import { EXEC, PATCH_FILE, taskPrompt } from '../helpers/codex-tasks';
import { DEFAULT_SCRIPT } from '../helpers/fake-agent-anthropic';
import { AGENT_GREETING, startAgentClientsFake, type AgentClientsFake } from '../helpers/fake-agent-clients';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { tempDirs } from '../helpers/local';
import { spawnLoopbackOnly } from '../helpers/loopback';
import { PG_URL, pgPool, uniqueSchema } from '../helpers/services';

const ROOT = path.join(__dirname, '..', '..');
const PAGE = path.join(ROOT, 'docs', 'team-setup.md');
const ADMIN = 'team-admin-token-0123456789';
const schema = uniqueSchema();
const dirs = tempDirs('mgw-team-');

/** The page's `npx model-gateway …` lines, in order, from its ```sh blocks. */
async function pageCommands(): Promise<string[][]> {
  const text = await readFile(PAGE, 'utf8');
  const blocks = [...text.matchAll(/```sh\n([^]*?)```/g)].map((m) => m[1] ?? '');
  return blocks.flatMap((b) => b.split('\n')).filter((l) => l.startsWith('npx model-gateway ')).map((l) => l.slice('npx model-gateway '.length).split(/\s+/));
}

let fake: AgentClientsFake;
let gw: Running;
let url: string;
let key: string;
const setups = new Map<string, { printed: string; setup: ClientSetup }>();
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv =>
  processEnv({ DATABASE_URL: PG_URL, ANTHROPIC_API_KEY: UPSTREAM_KEY, ADMIN_TOKEN: ADMIN, MODEL_GATEWAY_CONFIG: undefined, ...extra });

beforeAll(async () => {
  fake = await startAgentClientsFake();
  const file = path.join(await dirs.make(), 'gateway.yaml');
  // The sample's shape, on the test's PostgreSQL schema and one upstream serving the three clients; `chat` stays plain (V1).
  await writeFile(file, `
server: { port: 0 }
store: { type: postgres, url: "\${DATABASE_URL}", schema: ${schema} }
upstreams:
  anthropic: { type: anthropic, baseURL: "${fake.url}", apiKey: "\${ANTHROPIC_API_KEY}" }
models:
  - { id: chat, capability: llm, upstream: anthropic, pricing: { input: 300, output: 1500 } }
  - { id: claude, capability: llm, upstream: anthropic, agentReady: true, pricing: { input: 300, output: 1500 } }
admin: { tokens: [{ name: ops, token: "\${ADMIN_TOKEN}", access: write }] }
`);
  const args = (command: string[]): string[] => command.map((a) => (a === 'gateway.yaml' ? file : a === 'https://gateway.example.com' ? url : a));
  for (const command of await pageCommands()) {
    if (command[0] === 'serve') {
      gw = startBinary(args(command), env());
      url = `http://127.0.0.1:${(await gw.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`;
      continue;
    }
    const run = await runBinaryAsync(args(command), env());
    expect({ command: command.join(' '), code: run.code, err: run.err }).toEqual({ command: command.join(' '), code: 0, err: '' });
    if (command[0] === 'keys') key = (/\(shown once\): (sk-mgw-\S+)/.exec(run.out) as RegExpExecArray)[1] as string;
    if (command[0] === 'credit') expect(run.out).toBe('applied: alice balance 2000\n');
    if (command[0] === 'client-config') {
      const json = await runBinaryAsync([...args(command), '--json'], env());
      setups.set(command[1] as string, { printed: run.out, setup: JSON.parse(json.out) as ClientSetup });
    }
  }
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await fake?.close();
  const pool = await pgPool(1);
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

/** A client's set-up as printed: its files under a home (`~/` stripped) and its variables, the key filled in. */
function printed(client: string): { home: Record<string, string>; env: Record<string, string>; setup: ClientSetup } {
  const entry = setups.get(client);
  if (!entry) throw new Error(`the page runs no client-config ${client}`);
  const { printed: text, setup } = entry;
  // What a person copies is what the test uses: every file and variable appears in the printed text as given.
  for (const f of setup.files) expect(text).toContain(`# ${f.path}: ${f.about}\n${f.content.trimEnd()}\n`);
  for (const [name, value] of Object.entries(setup.env)) expect(text).toContain(`export ${name}='${value}'`);
  const home = Object.fromEntries(setup.files.filter((f) => f.path.startsWith('~/')).map((f) => [f.path.slice(2), f.content]));
  const filled = Object.fromEntries(Object.entries(setup.env).map(([name, value]) => [name, value === '<your gateway key>' ? key : value]));
  return { home, env: filled, setup };
}

/** The caller's request-log entries on an endpoint, once `count` are there, through the admin API. */
async function logged(endpoint: string, count: number): Promise<Array<{ status: number; billingStatus: string; model: string }>> {
  const until = Date.now() + 5_000;
  for (;;) {
    const page = await (await fetch(`${url}/admin/requests?callerId=alice&endpoint=${endpoint}`, { headers: { authorization: `Bearer ${ADMIN}` } })).json() as { items: Array<{ status: number; billingStatus: string; model: string }> };
    if (page.items.length >= count || Date.now() > until) return page.items;
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('the page\'s commands run as written: a key, a credit, and a set-up per client on the config\'s agent-ready model', () => {
  expect(key).toMatch(/^sk-mgw-/);
  expect([...setups.keys()]).toEqual(['claude-code', 'codex', 'agents-sdk']);
  for (const { setup } of setups.values()) expect(setup).toMatchObject({ url, model: 'claude' });
  expect(gw.out()).not.toContain('warning:');
});

it('Claude Code with the printed settings.json and variable: the file task completes through the gateway, billed to alice', async () => {
  const { home, env } = printed('claude-code');
  const cwd = await dirs.make();
  const run = await runClaude({ prompt: 'Create agent-output.txt', cwd, home, extraEnv: env, timeoutMs: 25_000 });
  expect({ code: run.code, result: run.json?.result }).toEqual({ code: 0, result: DEFAULT_SCRIPT.answer.join('') });
  expect(await readFile(path.join(cwd, DEFAULT_SCRIPT.file.name), 'utf8')).toBe(DEFAULT_SCRIPT.file.content);
  expect(fake.claude.messages().map((m) => m.body?.model)).toEqual(['claude', 'claude']);
  expect(await logged('messages', 2)).toEqual([expect.objectContaining({ status: 200, billingStatus: 'billed', model: 'claude' }), expect.objectContaining({ status: 200, billingStatus: 'billed' })]);
}, 30_000);

it('Codex with the printed config.toml and catalog: apply_patch and a command both write in the workspace', async () => {
  const { home, env } = printed('codex');
  const [keyVariable] = Object.keys(env);
  for (const task of ['patch', 'exec'] as const) {
    const cwd = await dirs.make();
    const run = await runCodex({ baseURL: url, apiKey: key, keyVariable, prompt: taskPrompt(task), cwd, home });
    expect({ code: run.code, failures: run.failures, warnings: run.completed('error') }).toEqual({ code: 0, failures: [], warnings: [] });
    if (task === 'patch') expect(await readFile(path.join(cwd, PATCH_FILE.name), 'utf8')).toBe(PATCH_FILE.content);
    else expect(await readFile(path.join(cwd, EXEC.file), 'utf8')).toBe(EXEC.output);
  }
  expect(fake.codex.messages().map((m) => m.body?.model)).toEqual(['claude', 'claude', 'claude', 'claude']);
  expect((await logged('responses', 4)).map((e) => [e.status, e.billingStatus])).toEqual(Array(4).fill([200, 'billed']));
}, 30_000);

it('the Agents SDK snippet, as printed, type-checks as TypeScript and runs: its agent answers through the gateway', async () => {
  const { env, setup } = printed('agents-sdk');
  const before = (await logged('responses', 0)).length;
  const code = setup.files[0]?.content as string;
  const dir = await dirs.make();
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  await writeFile(path.join(dir, 'agent.mts'), code);
  const program = ts.createProgram([path.join(dir, 'agent.mts')], {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, skipLibCheck: true, types: ['node'],
  });
  expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  // The same text as JavaScript (it has no type syntax), in a namespace that reaches only the gateway.
  await writeFile(path.join(dir, 'agent.mjs'), code);
  const home = path.join(dir, 'home');
  await mkdir(home);
  const run = await spawnLoopbackOnly(new URL(url), process.execPath, [path.join(dir, 'agent.mjs')], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: os.tmpdir(), ...env } });
  const exited = await run.exited;
  await run.close();
  expect({ code: exited, out: run.stdout(), err: run.stderr() }).toEqual({ code: 0, out: `${(AGENT_GREETING.text ?? []).join('')}\n`, err: '' });
  expect(fake.agents.calls().map((c) => c.body?.model)).toEqual(['claude']);
  const entries = await logged('responses', before + 1);
  expect(entries).toHaveLength(before + 1);
  expect(entries[0]).toMatchObject({ status: 200, billingStatus: 'billed', model: 'claude' }); // newest first
}, 30_000);

it('the page shows Claude Code\'s set-up for the sample config exactly as the command prints it', async () => {
  const page = await readFile(PAGE, 'utf8');
  const shown = /Claude Code's, for the sample:\n\n```\n([^]*?)```/.exec(page)?.[1];
  const run = await runBinaryAsync(['client-config', 'claude-code', '--url', 'https://gateway.example.com', '--config', path.join(ROOT, 'examples', 'gateway.yaml')], env());
  expect(run).toMatchObject({ code: 0, err: '' });
  expect(shown).toBe(run.out);
});
