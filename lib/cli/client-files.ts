/**
 * What each agent client needs to work through the gateway: the files it reads, the variables it
 * takes, the command that starts it. The suite runs each client with exactly these (client-config test).
 */

/** The gateway a client is pointed at: its root URL (no `/v1`), the model it asks, and the models of its catalog. */
export interface ClientTarget {
  url: string;
  model: string;
  /** The agent-ready models the client may switch between (the config's, or `model` alone), with what the config says of them. */
  models: ReadonlyArray<{ id: string; displayName?: string | undefined; maxOutputTokens?: number | undefined; clampMaxTokens?: boolean | undefined }>;
}

/** A client's set-up: files (path as the user writes it, `~` their home), environment variables, the command. */
export interface ClientSetup {
  client: string;
  url: string;
  model: string;
  files: Array<{ path: string; about: string; content: string }>;
  /** Variables to set in the shell that runs the client; the key's value is KEY_PLACEHOLDER (a key is never printed). */
  env: Record<string, string>;
  run: string | undefined;
}

/** What stands for the key: the operator makes one with `model-gateway keys create <caller>` (or the admin API). */
export const KEY_PLACEHOLDER = '<your gateway key>';
/** The variable Codex and the Agents SDK read the key from. */
export const KEY_VARIABLE = 'MODEL_GATEWAY_API_KEY';

const CODEX_CATALOG = '~/.codex/model-gateway.json';

/** Codex's system prompt for the gateway's models (a catalog entry must carry one; it replaces Codex's built-in prompt). */
const CODEX_INSTRUCTIONS = [
  'You are Codex, a coding agent working in the user\'s terminal and repository.',
  'Read files and run commands with the shell tool; change files with apply_patch.',
  'Keep changes small and in the project\'s style, check them (run the tests when there are some), and end with a short summary of what you changed.',
].join('\n');

const toml = (value: string): string => JSON.stringify(value);
/** A single-quoted TypeScript string. */
const js = (value: string): string => `'${value.replace(/[\\']/g, '\\$&').replace(/\n/g, '\\n')}'`;

/** Codex CLI: config.toml (the provider, with the `name` Codex requires, and a sandbox that lets it write) and the model catalog that gives apply_patch. */
export function codexSetup(t: ClientTarget): ClientSetup {
  const config = [
    `model = ${toml(t.model)}`,
    'model_provider = "model-gateway"',
    `model_catalog_json = ${toml(CODEX_CATALOG)}`,
    'sandbox_mode = "workspace-write"   # Codex\'s default, read-only, lets no edit or command write',
    '',
    '[model_providers.model-gateway]',
    'name = "model-gateway"',
    `base_url = ${toml(`${t.url}/v1`)}`,
    `env_key = ${toml(KEY_VARIABLE)}`,
    'wire_api = "responses"',
    '',
  ].join('\n');
  const models = t.models.map((m, i) => ({
    slug: m.id, display_name: m.displayName ?? m.id, base_instructions: CODEX_INSTRUCTIONS,
    apply_patch_tool_type: 'freeform', shell_type: 'shell_command', visibility: 'list', supported_in_api: true, priority: i + 1,
    support_verbosity: false, supported_reasoning_levels: [{ effort: 'medium', description: 'medium' }],
    truncation_policy: { mode: 'tokens', limit: 10_000 }, experimental_supported_tools: [],
  }));
  return {
    client: 'Codex CLI', url: t.url, model: t.model,
    files: [
      { path: '~/.codex/config.toml', about: 'Codex\'s settings; merge these lines into yours if you have one', content: config },
      { path: CODEX_CATALOG, about: 'Codex\'s entry for each gateway model: with one, a model gets apply_patch', content: `{"models": [\n${models.map((m) => `  ${JSON.stringify(m)}`).join(',\n')}\n]}\n` },
    ],
    env: { [KEY_VARIABLE]: KEY_PLACEHOLDER },
    run: 'codex',
  };
}

/** Claude Code: settings.json's `env` sends every request to the gateway, and every model Claude Code picks by itself to a gateway model. */
export function claudeCodeSetup(t: ClientTarget): ClientSetup {
  const chosen = t.models.find((m) => m.id === t.model);
  // A bound the gateway refuses rather than lowers: Claude Code asks 32000 unless told the model's.
  const maxOutput = chosen?.maxOutputTokens !== undefined && chosen.clampMaxTokens !== true ? { CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(chosen.maxOutputTokens) } : {};
  const env = {
    ANTHROPIC_BASE_URL: t.url,
    ANTHROPIC_MODEL: t.model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: t.model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: t.model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: t.model,
    CLAUDE_CODE_SUBAGENT_MODEL: t.model,
    ...maxOutput,
  };
  return {
    client: 'Claude Code', url: t.url, model: t.model,
    files: [{ path: '~/.claude/settings.json', about: 'Claude Code\'s settings; merge "env" into yours if you have one', content: `${JSON.stringify({ env }, null, 2)}\n` }],
    env: { ANTHROPIC_AUTH_TOKEN: KEY_PLACEHOLDER },
    run: 'claude',
  };
}

/** The OpenAI Agents SDK (JS): its default client pointed at the gateway, tracing off, one agent run. */
export function agentsSdkSetup(t: ClientTarget): ClientSetup {
  const code = [
    'import OpenAI from \'openai\';',
    'import { Agent, run, setDefaultOpenAIClient, setTracingDisabled } from \'@openai/agents\';',
    '',
    '// Every agent calls the gateway (before the first run: the SDK keeps the first client it used).',
    `setDefaultOpenAIClient(new OpenAI({ baseURL: ${js(`${t.url}/v1`)}, apiKey: process.env.${KEY_VARIABLE} }));`,
    '// Else the SDK posts a trace of every run, with the key, to OpenAI.',
    'setTracingDisabled(true);',
    '',
    `const agent = new Agent({ name: 'Assistant', instructions: 'You are a helpful assistant.', model: ${js(t.model)} });`,
    'const result = await run(agent, \'Say hello.\');',
    'console.log(result.finalOutput);',
    '',
  ].join('\n');
  return {
    client: 'OpenAI Agents SDK', url: t.url, model: t.model,
    files: [{ path: 'agent.ts', about: 'in your app, an ES module (npm install @openai/agents openai)', content: code }],
    env: { [KEY_VARIABLE]: KEY_PLACEHOLDER },
    run: undefined,
  };
}

/** The set-up as a person copies it: each file under a comment naming its path, then the shell lines. */
export function describeSetup(s: ClientSetup): string {
  const lines = [`# ${s.client} through model-gateway at ${s.url}, model "${s.model}".`, ''];
  for (const f of s.files) lines.push(`# ${f.path}: ${f.about}`, f.content.trimEnd(), '');
  lines.push(`# In the shell that runs it, with a key from the gateway's operator (model-gateway keys create <caller>):`);
  for (const [name, value] of Object.entries(s.env)) lines.push(`export ${name}='${value}'`);
  if (s.run) lines.push(s.run);
  return lines.join('\n');
}
