/** lib/cli/client-config.ts and client-files.ts: each client's set-up for a URL and a model, checked against the config's models. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientConfig, gatewayURL } from '../../../lib/cli/client-config';
import { agentsSdkSetup, claudeCodeSetup, codexSetup, describeSetup, KEY_PLACEHOLDER } from '../../../lib/cli/client-files';
import { CommandError, UsageError } from '../../../lib/cli/ops';
import { parseCommandLine } from '../../../lib/cli/usage';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-client-config-'));
const config = path.join(dir, 'gateway.yaml');
writeFileSync(config, `
store: { type: postgres, url: "\${DATABASE_URL}" }
models:
  - { id: plain, capability: llm, upstream: a, free: true }
  - { id: claude, capability: llm, upstream: a, free: true, agentReady: true, displayName: Claude Sonnet }
  - { id: rerank, capability: rerank, upstream: r, free: true }
  - { id: small, capability: llm, upstream: a, free: true, agentReady: true, maxOutputTokens: 8192 }
`);
const run = (...argv: string[]) => clientConfig(parseCommandLine(['client-config', ...argv]), argv.includes('--config') ? argv[argv.indexOf('--config') + 1] : undefined, {});

describe('gatewayURL()', () => {
  it('takes the root URL with or without a trailing slash or /v1, and keeps a mount path', () => {
    expect(gatewayURL('https://gw.example.com')).toBe('https://gw.example.com');
    expect(gatewayURL('https://gw.example.com/')).toBe('https://gw.example.com');
    expect(gatewayURL('https://gw.example.com/v1/')).toBe('https://gw.example.com');
    expect(gatewayURL('http://127.0.0.1:8787/llm')).toBe('http://127.0.0.1:8787/llm');
  });

  it('refuses no URL, text that is none, another scheme, and a query or credentials', () => {
    expect(() => gatewayURL(undefined)).toThrow(UsageError);
    expect(() => gatewayURL('gateway')).toThrow(/--url: "gateway" is not a URL/);
    expect(() => gatewayURL('ftp://gw')).toThrow(/must be an http\(s\) URL/);
    expect(() => gatewayURL('https://u:p@gw/?k=1')).toThrow(/no query, fragment or credentials/);
  });
});

describe('client-config', () => {
  it('codex: a config.toml Codex loads (a named provider, the Responses API, a sandbox that writes) and a catalog entry per agent-ready model', () => {
    const { data, human } = run('codex', '--url', 'https://gw.example.com', '--config', config);
    const [toml, catalog] = data.files;
    expect(toml?.path).toBe('~/.codex/config.toml');
    expect(toml?.content).toBe([
      'model = "claude"', 'model_provider = "model-gateway"', 'model_catalog_json = "~/.codex/model-gateway.json"',
      'sandbox_mode = "workspace-write"   # Codex\'s default, read-only, lets no edit or command write', '',
      '[model_providers.model-gateway]', 'name = "model-gateway"', 'base_url = "https://gw.example.com/v1"', 'env_key = "MODEL_GATEWAY_API_KEY"', 'wire_api = "responses"', '',
    ].join('\n'));
    const models = (JSON.parse(catalog?.content ?? '') as { models: Array<Record<string, unknown>> }).models;
    expect(models.map((m) => [m.slug, m.display_name, m.apply_patch_tool_type, m.priority])).toEqual([['claude', 'Claude Sonnet', 'freeform', 1], ['small', 'small', 'freeform', 2]]);
    expect(models[0]).toMatchObject({ base_instructions: expect.stringContaining('apply_patch'), shell_type: 'shell_command', supported_in_api: true });
    expect(data.env).toEqual({ MODEL_GATEWAY_API_KEY: KEY_PLACEHOLDER });
    expect(human).toContain(`# ~/.codex/config.toml: ${toml?.about}\n${toml?.content.trimEnd()}\n\n# ~/.codex/model-gateway.json: `);
    expect(human.endsWith(`export MODEL_GATEWAY_API_KEY='${KEY_PLACEHOLDER}'\ncodex`)).toBe(true);
  });

  it('claude-code: settings.json sends every model Claude Code picks to the chosen one; a bound the gateway refuses is passed on', () => {
    const { env } = JSON.parse(run('claude-code', '--url', 'https://gw.example.com', '--config', config).data.files[0]?.content ?? '') as { env: Record<string, string> };
    expect(env).toEqual({
      ANTHROPIC_BASE_URL: 'https://gw.example.com', ANTHROPIC_MODEL: 'claude', ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude', ANTHROPIC_DEFAULT_SONNET_MODEL: 'claude',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'claude', CLAUDE_CODE_SUBAGENT_MODEL: 'claude',
    });
    const small = JSON.parse(run('claude-code', '--url', 'https://gw.example.com', '--model', 'small', '--config', config).data.files[0]?.content ?? '') as { env: Record<string, string> };
    expect(small.env.CLAUDE_CODE_MAX_OUTPUT_TOKENS).toBe('8192');
    const clamped = claudeCodeSetup({ url: 'u', model: 'm', models: [{ id: 'm', maxOutputTokens: 8192, clampMaxTokens: true }] });
    expect(clamped.files[0]?.content).not.toContain('CLAUDE_CODE_MAX_OUTPUT_TOKENS');
    expect(clamped.env).toEqual({ ANTHROPIC_AUTH_TOKEN: KEY_PLACEHOLDER });
  });

  it('agents-sdk: the lines of TypeScript, any model id quoted as a string', () => {
    const code = agentsSdkSetup({ url: 'https://gw.example.com', model: "it's\\odd", models: [] }).files[0]?.content ?? '';
    expect(code).toContain("new OpenAI({ baseURL: 'https://gw.example.com/v1', apiKey: process.env.MODEL_GATEWAY_API_KEY })");
    expect(code).toContain("model: 'it\\'s\\\\odd'");
    expect(code).toContain('setTracingDisabled(true);');
  });

  it('without --config takes the model given, and needs one', () => {
    expect(run('codex', '--url', 'https://gw', '--model', 'any').data).toMatchObject({ model: 'any', url: 'https://gw' });
    expect(() => run('codex', '--url', 'https://gw')).toThrow(new UsageError('--model <id> is required without --config (a model of the gateway, agent-ready)'));
  });

  it('refuses what a client cannot use, naming the fix: a V1 model, a rerank model, one not in the config, a config with no agent-ready model', () => {
    expect(() => run('codex', '--url', 'https://gw', '--model', 'plain', '--config', config)).toThrow(new CommandError(`--model: "plain" is not agent-ready: agent clients send tools, which a plain (V1) model refuses; set agentReady: true on it in ${config} (agent-ready: claude, small)`));
    expect(() => run('codex', '--url', 'https://gw', '--model', 'rerank', '--config', config)).toThrow(/"rerank" is a rerank model; agent clients need an llm model/);
    expect(() => run('codex', '--url', 'https://gw', '--model', 'nope', '--config', config)).toThrow(`--model: "nope" is not a model of ${config} (agent-ready: claude, small)`);
    const none = path.join(dir, 'none.yaml');
    writeFileSync(none, 'models: [{ id: plain, capability: llm, upstream: a, free: true }]\n');
    expect(() => run('agents-sdk', '--url', 'https://gw', '--config', none)).toThrow(/has no agent-ready model/);
  });

  it('refuses a client it does not know, or none, as bad usage', () => {
    expect(() => run('--url', 'https://gw')).toThrow(new UsageError('missing <client>: one of codex, claude-code, agents-sdk'));
    expect(() => run('cursor', '--url', 'https://gw')).toThrow(new UsageError('unknown client: cursor; one of codex, claude-code, agents-sdk'));
    expect(() => run('constructor', '--url', 'https://gw')).toThrow(UsageError);
    expect(() => run('codex', 'extra', '--url', 'https://gw', '--model', 'm')).toThrow(new UsageError('unexpected argument: extra'));
  });

  it('describes a set-up as files under their paths, then the shell lines', () => {
    const text = describeSetup(codexSetup({ url: 'https://gw', model: 'm', models: [{ id: 'm' }] }));
    expect(text.split('\n').filter((l) => l.startsWith('# '))).toEqual([
      '# Codex CLI through model-gateway at https://gw, model "m".',
      '# ~/.codex/config.toml: Codex\'s settings; merge these lines into yours if you have one',
      '# ~/.codex/model-gateway.json: Codex\'s entry for each gateway model: with one, a model gets apply_patch',
      '# In the shell that runs it, with a key from the gateway\'s operator (model-gateway keys create <caller>):',
    ]);
  });
});
