/**
 * The README's client snippets as a reader pastes them: its Codex `config.toml` block and its `claude` command line, taken
 * from README.md, run by the real clients against a gateway serving the README's model name, with only the placeholder URL and
 * key filled in. Each completes a task that writes a file. The model they name is an agent-ready model of examples/gateway.yaml.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { anthropicAdapter, createGatewayRouter, MemoryStore, type GatewayRouter } from '../../lib';
import { loadModels } from '../../lib/cli/config';
import { runClaude } from '../helpers/claude-code';
import { runCodex } from '../helpers/codex';
import { EXEC, taskPrompt } from '../helpers/codex-tasks';
import { DEFAULT_SCRIPT } from '../helpers/fake-agent-anthropic';
import { startAgentClientsFake, type AgentClientsFake } from '../helpers/fake-agent-clients';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller } from '../helpers/gateway';
import { listen, tempDirs } from '../helpers/local';

const ROOT = path.join(__dirname, '..', '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const PLACEHOLDER_URL = 'https://gateway.example.com';

/** The README's one ```toml block (Codex's config.toml). */
const codexToml = (): string => {
  const blocks = [...README.matchAll(/```toml\n([^]*?)```/g)].map((m) => m[1] as string);
  expect(blocks).toHaveLength(1);
  return blocks[0] as string;
};
/** The README's `claude` command line, from its ```sh blocks. */
const claudeLine = (): string => {
  const lines = [...README.matchAll(/```sh\n([^]*?)```/g)].flatMap((m) => (m[1] as string).split('\n')).filter((l) => /(^|\s)claude\s/.test(l));
  expect(lines).toHaveLength(1);
  return lines[0] as string;
};

const dirs = tempDirs('mgw-readme-');
let fake: AgentClientsFake;
let gw: { url: string; store: MemoryStore; router: GatewayRouter; close(): Promise<void> };
beforeAll(async () => {
  fake = await startAgentClientsFake();
  const store = new MemoryStore();
  // The README's model name, agent-ready, on one upstream that plays both clients' tasks.
  const models = [...new Set([/^model = "([^"]+)"/m.exec(codexToml())?.[1], /--model (\S+)/.exec(claudeLine())?.[1]])].map((id) => ({
    id: id as string, capability: 'llm' as const, agentReady: true, upstream: anthropicAdapter({ baseURL: fake.url, apiKey: UPSTREAM_KEY }), pricing: { input: 300, output: 1500 },
  }));
  const router = createGatewayRouter({ store, models });
  const express = (await import('express')).default;
  const app = express();
  app.use(router);
  const server = await listen(app);
  gw = { url: server.url, store, router, close: async () => { await server.close(); await router.close(); } };
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

it('the snippets name a model examples/gateway.yaml serves, agent-ready', () => {
  const sample = loadModels(path.join(ROOT, 'examples', 'gateway.yaml'), {});
  const named = [/^model = "([^"]+)"/m.exec(codexToml())?.[1], /--model (\S+)/.exec(claudeLine())?.[1]];
  for (const id of named) expect(sample.find((m) => m.id === id)).toMatchObject({ capability: 'llm', agentReady: true });
});

it('Codex with the README\'s config.toml, as written: it loads, and a task that writes a file completes through the gateway', async () => {
  const toml = codexToml();
  expect(toml).toContain(PLACEHOLDER_URL);
  const keyVariable = /^env_key = "(\w+)"/m.exec(toml)?.[1];
  const { key } = addCaller(gw.store, { balance: 100_000 });
  const cwd = await dirs.make();
  const run = await runCodex({ baseURL: gw.url, apiKey: key, keyVariable, prompt: taskPrompt('exec'), cwd, home: { '.codex/config.toml': toml.replaceAll(PLACEHOLDER_URL, gw.url) } });
  expect({ code: run.code, failures: run.failures, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, failures: [], stderr: '' });
  expect(await readFile(path.join(cwd, EXEC.file), 'utf8')).toBe(EXEC.output);
  expect(fake.codex.messages()).toHaveLength(2);
}, 30_000);

it('Claude Code with the README\'s command line, as written: the file task completes through the gateway', async () => {
  const line = claudeLine();
  expect(line).toContain(PLACEHOLDER_URL);
  expect(line).toContain('<gateway key>');
  const { key } = addCaller(gw.store, { balance: 100_000 });
  const cwd = await dirs.make();
  const run = await runClaude({ commandLine: line.replaceAll(PLACEHOLDER_URL, gw.url).replaceAll('<gateway key>', key), prompt: 'Create agent-output.txt', cwd, timeoutMs: 25_000 });
  expect({ code: run.code, result: run.json?.result }).toEqual({ code: 0, result: DEFAULT_SCRIPT.answer.join('') });
  expect(await readFile(path.join(cwd, DEFAULT_SCRIPT.file.name), 'utf8')).toBe(DEFAULT_SCRIPT.file.content);
}, 30_000);
