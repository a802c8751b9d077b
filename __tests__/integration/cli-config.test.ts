/** validate makes every check serve makes, with the same message naming the value's path, and never listens or reaches the store or Redis. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { processEnv, runBinary, runBinaryAsync } from '../helpers/binary';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-config-'));
const env = processEnv({ MODEL_GATEWAY_CONFIG: undefined, UPSTREAM_KEY: 'sk-upstream' });
const base = `
server: { port: 0 }
upstreams:
  anthropic: { type: anthropic, baseURL: "http://127.0.0.1:9", apiKey: "\${UPSTREAM_KEY}" }
  cohere: { type: cohere, baseURL: "http://127.0.0.1:9", apiKey: k }
models:
  - { id: claude, capability: llm, upstream: anthropic, pricing: { input: 300, output: 1500 } }
admin: { tokens: [{ name: ops, token: "0123456789abcdef", access: write }] }
`;
const write = (name: string, text: string): string => {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
};

// Each config serve refused while validate printed "valid"; then the schema's own refusals, in the same path style.
const BAD: Array<[string, (c: string) => string, string]> = [
  ['a price that is not a number', (c) => c.replace('input: 300', 'input: cheap'), 'config: models[0]: "claude": pricing.input'],
  ['an upstream that does not exist', (c) => c.replace('upstream: anthropic,', 'upstream: nope,'), 'config: models[0].upstream: "nope" is not in upstreams (defined: anthropic, cohere)'],
  ['a rerank model on a Messages upstream', (c) => c.replace('capability: llm', 'capability: rerank'), 'config: models[0]: "upstream" of "claude" must be a rerank adapter'],
  ['a model without pricing', (c) => c.replace(', pricing: { input: 300, output: 1500 }', ''), 'config: models[0]: "claude" has no "pricing"'],
  ['a duplicate model id', (c) => `${c.replace('admin:', '  - { id: claude, capability: llm, upstream: anthropic, free: true }\nadmin:')}`, 'config: models: option "models": the id "claude" is listed twice'],
  ['an admin token shorter than 16 characters', (c) => c.replace('0123456789abcdef', 'short'), 'config: admin.tokens: createAdminRouter: tokens[0].token must be a unique secret of at least 16 characters'],
  ['baseURL: "not a url"', (c) => c.replace('"http://127.0.0.1:9", apiKey: k', '"not a url", apiKey: k'), 'config: upstreams.cohere: cohere adapter: option "baseURL" must be an http(s) URL'],
  ['bodyLimit: lots', (c) => c.replace('port: 0 }', 'port: 0, bodyLimit: lots }'), 'config: server.bodyLimit: jsonBody: option "limit" must be a positive number of bytes'],
  ['a price with too many decimals', (c) => c.replace('input: 300', 'input: "0.0000001"'), 'config: models[0]: "claude": pricing.input must be a non-negative number of minor units per million tokens, at most 1000000000 and with at most 6 decimals'],
  ['a capability the schema refuses', (c) => c.replace('capability: llm', 'capability: vision'), 'config: models[0].capability: must be one of "llm", "rerank"'],
  ['a key the schema does not know', (c) => c.replace('access: write }', 'access: write, role: x }'), 'config: admin.tokens[0].role: unknown key'],
  ['a missing required key', (c) => c.replace('capability: llm, ', ''), 'config: models[0].capability: required; add it'],
  ['an environment variable not set', (c) => c.replace('UPSTREAM_KEY', 'UNSET_VARIABLE'), 'config: upstreams.anthropic.apiKey: environment variable UNSET_VARIABLE is not set'],
  ['a redis URL that is not one', (c) => `${c}redis: { url: "not a url" }\n`, 'config: redis.url: Invalid URL'],
  ['a failover member on an upstream that does not exist', (c) => c.replace('upstream: anthropic,', 'failover: [{ upstream: anthropic }, { upstream: nope }],'), 'config: models[0].failover[1].upstream: "nope" is not in upstreams (defined: anthropic, cohere)'],
  ['a failover member with a bad price', (c) => c.replace('upstream: anthropic,', 'failover: [{ upstream: anthropic, pricing: { input: cheap } }],'), 'config: models[0].failover[0]: pricing.input must be a non-negative number'],
  ['both an upstream and failover members', (c) => c.replace('upstream: anthropic,', 'upstream: anthropic, failover: [{ upstream: anthropic }],'), 'config: models[0]: give "upstream" (an upstream\'s name) or "failover"'],
  ['an alias that is another model\'s id', (c) => c.replace('admin:', '  - { id: haiku, capability: llm, upstream: anthropic, free: true, aliases: [claude] }\nadmin:'), 'config: models: option "models": the alias "claude" of "haiku" is the id of "claude"'],
  ['a pattern without a wildcard', (c) => c.replace('upstream: anthropic,', 'upstream: anthropic, patterns: [claude-opus],'), 'config: models[0]: patterns[0] of "claude": "claude-opus" has no "*"'],
];

it('the base config is valid', () => {
  expect(runBinary(['validate', '--config', write('base', base)], env)).toMatchObject({ code: 0, out: expect.stringContaining('valid (1 models)') });
});

it.each(BAD)('%s: validate and serve both exit 2 with the same message', async (name, change, message) => {
  const file = write(name.replace(/\W+/g, '-'), change(base));
  const [validated, served] = await Promise.all([runBinaryAsync(['validate', '--config', file], env), runBinaryAsync(['serve', '--config', file], env)]);
  expect(validated).toMatchObject({ code: 2, out: '' });
  expect(validated.err).toContain(`model-gateway: ${message}`);
  expect(served).toMatchObject({ code: 2, out: '', err: validated.err });
});

it('validate --json prints the same message as an object', () => {
  const file = write('json', base.replace('upstream: anthropic,', 'upstream: nope,'));
  expect(runBinary(['validate', '--config', file, '--json'], env)).toMatchObject({ code: 2, out: `${JSON.stringify({ error: 'config: models[0].upstream: "nope" is not in upstreams (defined: anthropic, cohere)' })}\n` });
});

it('validate neither listens nor reaches PostgreSQL or Redis (serve reaches the store first)', async () => {
  const connections: string[] = [];
  const listen = (name: string): Promise<net.Server> => new Promise((resolve) => {
    const server = net.createServer((socket) => { connections.push(name); socket.destroy(); }).listen(0, '127.0.0.1', () => resolve(server));
  });
  const [pg, redis, taken] = await Promise.all([listen('postgres'), listen('redis'), listen('public port')]);
  const port = (s: net.Server): number => (s.address() as net.AddressInfo).port;
  try {
    const file = write('services', base.replace('port: 0', `port: ${port(taken)}`)
      + `store: { type: postgres, url: "postgres://postgres@127.0.0.1:${port(pg)}/test" }\nredis: { url: "redis://127.0.0.1:${port(redis)}" }\n`);
    expect(await runBinaryAsync(['validate', '--config', file], env)).toMatchObject({ code: 0, out: expect.stringContaining('valid (1 models)') });
    expect(connections).toEqual([]);
    // serve reaches the store first (which hangs up on it here): exit 1, a failure, not a bad config.
    expect(await runBinaryAsync(['serve', '--config', file], env)).toMatchObject({ code: 1, err: expect.stringContaining('store: PostgreSQL could not be reached or migrated') });
    expect(connections).toContain('postgres');
  } finally {
    for (const s of [pg, redis, taken]) s.close();
  }
});
