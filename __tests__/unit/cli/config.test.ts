/** lib/cli/config.ts and config-error.ts: a config checked whole, every refusal in one wording: the value's path, what is wrong, the fix. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAt, ConfigError, configPath, loadModels, parseConfig } from '../../../lib/cli/config';
import { GatewayConfigError } from '../../../lib';
import { createCatalog } from '../../../lib/catalog/catalog';
import { servingMembers } from '../../../lib/catalog/members';
import { buildModels } from '../../../lib/cli/build';
import { codeBlocks } from '../../helpers/doc-blocks';

const MINIMAL = 'models:\n  - { id: m, capability: llm, upstream: a, free: true }\n';
const refusal = (text: string, env: NodeJS.ProcessEnv = {}): string => {
  try {
    parseConfig(text, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe('parseConfig()', () => {
  it('reads a minimal config, as YAML or JSON', () => {
    expect(parseConfig(MINIMAL, {}).models).toEqual([{ id: 'm', capability: 'llm', upstream: 'a', free: true }]);
    expect(parseConfig(JSON.stringify({ models: [{ id: 'm', capability: 'llm', upstream: 'a' }] }), {}).models).toHaveLength(1);
  });

  it.each([
    ['an unknown key', `${MINIMAL}colour: red\n`, /^colour: unknown key; remove it or fix its spelling \(allowed here: server, store, /],
    ['a missing field', 'models:\n  - { id: m, upstream: a }\n', /^models\[0\]\.capability: required; add it$/],
    ['a wrong type', `${MINIMAL}server: { port: "80" }\n`, /^server\.port: must be integer; change the value's type$/],
    ['a value not in its enum', 'models:\n  - { id: m, capability: chat, upstream: a }\n', /^models\[0\]\.capability: must be one of "llm", "rerank"$/],
    ['no models', 'models: []\n', /^models: /],
    ['text that is no YAML', 'models: [\n', /^the file is not valid YAML or JSON: /],
    ['a misspelt section, before the schema misses the real one', MINIMAL.replace('models:', 'modles:'), /^modles: unknown key; did you mean "models"\? \(allowed here: server, /],
    ['YAML that is wrong, with the line it points at', `${MINIMAL}server: { host: \${HOST} }\n`, /^the file is not valid YAML or JSON: .* at line 3, column \d+:\n {4}server: \{ host: \$\{HOST\} \}\n {4} +\^\n\(inside/],
  ])('names the path of %s', (_case, text, wording) => {
    expect(refusal(text)).toMatch(wording);
  });

  it('says which environment variable a refused value came from', () => {
    expect(refusal(`${MINIMAL}server:\n  port: \${PORT}\n`, { PORT: 'eighty' })).toBe("server.port: must be integer; change the value's type (the value comes from environment variable PORT)");
    expect(parseConfig(`${MINIMAL}server:\n  port: \${PORT:-8787}\n`, {}).server).toEqual({ port: 8787 });
  });
});

describe('loadModels()', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-models-'));
  const file = (name: string, text: string): string => {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  };

  it('reads the models alone: variables the other sections name need not be set', () => {
    const text = `store: { type: postgres, url: "\${DATABASE_URL}" }\nadmin: { tokens: [{ name: a, token: "\${ADMIN_TOKEN}", access: write }] }\n${MINIMAL}`;
    expect(() => parseConfig(text, {})).toThrow(/2 environment variables are not set/);
    expect(loadModels(file('others.yaml', text), {})).toEqual([{ id: 'm', capability: 'llm', upstream: 'a', free: true }]);
  });

  it('checks the models as serve does, by path', () => {
    expect(() => loadModels(file('bad.yaml', 'models:\n  - { id: m, upstream: a, agentReday: true }\n'), {})).toThrow(new ConfigError('models[0].agentReday: unknown key; did you mean "agentReady"? (allowed here: id, capability, aliases, patterns, upstream, failover, upstreamModel, pricing, free, temperature, maxOutputTokens, displayName, agentReady, clampMaxTokens, autoCache)'));
    expect(() => loadModels(file('none.yaml', 'server: {}\n'), {})).toThrow(new ConfigError('models: required; add it'));
    expect(() => loadModels(path.join(dir, 'absent.yaml'), {})).toThrow(/^cannot read .*absent\.yaml: ENOENT$/);
  });
});

describe('config paths and buildAt()', () => {
  it('writes paths in one style', () => {
    expect(configPath(configPath(configPath('', 'models'), 0), 'upstream')).toBe('models[0].upstream');
  });

  it("puts a library check's wording behind the section's path, once", () => {
    const fail = (message: string) => () => { throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', message); };
    expect(() => buildAt('upstreams.a', fail('option "baseURL" must be an http(s) URL'))).toThrow(new ConfigError('upstreams.a: option "baseURL" must be an http(s) URL'));
    expect(() => buildAt('models', fail('models[2]: "id" must be a non-empty string.'))).toThrow(new ConfigError('models[2]: "id" must be a non-empty string.'));
    expect(buildAt('x', () => 7)).toBe(7);
  });
});

describe("docs/catalog.md's config snippet, as written", () => {
  it('builds: a model with aliases and patterns, and one whose failover members have their own models and prices', () => {
    const [snippet] = codeBlocks('docs/catalog.md', 'yaml');
    const { models } = buildModels(parseConfig(snippet as string, { ANTHROPIC_API_KEY: 'sk-a', OPENAI_API_KEY: 'sk-o' }));
    const catalog = createCatalog(models);
    expect(catalog.resolve('claude-opus-4-8[1m]')?.id).toBe('claude-opus');
    expect(catalog.resolve('claude-opus-5')?.id).toBe('claude-opus');
    expect(servingMembers(catalog.byId.get('flagship') as NonNullable<ReturnType<typeof catalog.resolve>>).map((m) => [m.upstream, m.upstreamModel, m.pricing])).toEqual([
      ['anthropic', 'claude-sonnet-4-5', { input: 300, output: 1500 }], ['openai', 'gpt-5.1', { input: 125, output: 1000, cacheRead: '12.5' }],
    ]);
  });

  it('refuses a member on an upstream the config does not define, naming its path as the page does', () => {
    const [snippet] = codeBlocks('docs/catalog.md', 'yaml');
    const typo = (snippet as string).replace('- { upstream: anthropic, upstreamModel: claude-sonnet-4-5', '- { upstream: antrhopic, upstreamModel: claude-sonnet-4-5');
    expect(() => buildModels(parseConfig(typo, { ANTHROPIC_API_KEY: 'sk-a', OPENAI_API_KEY: 'sk-o' }))).toThrow('models[1].failover[0].upstream: "antrhopic" is not in upstreams (defined: anthropic, openai)');
  });
});
