/** Environment references in the config: typed by the schema where it wants a number, a flag or a list; defaults; every unset variable named at once. */
import Ajv from 'ajv';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { processEnv, runBinaryAsync, startBinary } from '../helpers/binary';
import { tempDirs } from '../helpers/local';

const dirs = tempDirs();
const write = async (text: string): Promise<string> => {
  const file = path.join(await dirs.make(), 'gateway.yaml');
  writeFileSync(file, text);
  return file;
};
/** A config whose every kind of value comes from the environment, as a platform would give it. */
const TYPED = `
server:
  port: \${PORT}
  drainGraceMs: \${GRACE_MS:-5000}
  trustProxy: \${TRUST_PROXY:-false}
limits: { defaults: { rpm: "\${RPM}" } }
upstreams:
  a: { type: anthropic, baseURL: "http://127.0.0.1:9", apiKey: "\${NUMERIC_KEY}" }
  b: { type: openai, baseURL: "\${OPENAI_BASE_URL:-http://127.0.0.1:9/v1}" }
  ab: { type: failover, of: "\${MEMBERS}" }
models:
  - { id: m, capability: llm, upstream: ab, free: "\${FREE}" }
admin: { dashboard: "\${DASHBOARD}", tokens: [{ name: ops, token: "\${ADMIN_TOKEN}", access: write }] }
logging:
  requests: \${LOG_REQUESTS}
`;
const typedEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => processEnv({
  PORT: '0', RPM: '600', NUMERIC_KEY: '12345', MEMBERS: 'a, b', FREE: 'true', DASHBOARD: 'false', ADMIN_TOKEN: '1234567890123456', LOG_REQUESTS: 'false',
  GRACE_MS: undefined, TRUST_PROXY: undefined, OPENAI_BASE_URL: undefined, MODEL_GATEWAY_CONFIG: undefined, ...extra,
});

it('`port: ${PORT}` serves on the platform\'s PORT; numbers, booleans and lists fill where the schema wants them, text stays text', async () => {
  const file = await write(TYPED);
  expect(await runBinaryAsync(['validate', '--config', file], typedEnv({ TRUST_PROXY: '10.0.0.0/8, loopback' }))).toMatchObject({ code: 0, out: expect.stringContaining('valid (1 models)') });
  const gw = startBinary(['serve', '--config', file], typedEnv({ TRUST_PROXY: '1' }));
  try {
    const url = (await gw.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
    await gw.waitFor(/mounts: .*\n/);
    expect(gw.out()).toContain('upstream b: POST http://127.0.0.1:9/v1/chat/completions'); // the default, used
    expect(gw.out()).not.toContain('dashboard: http'); // DASHBOARD=false is the boolean
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // The numeric-looking token stayed text: it signs in to the admin API.
    expect((await fetch(`${url}/admin/keys`, { headers: { authorization: 'Bearer 1234567890123456' } })).status).toBe(200);
  } finally {
    expect(await gw.stop()).toBe(0);
  }
});

it('text that is not the type the schema wants fails naming the path and the variable', async () => {
  const file = await write(TYPED);
  for (const [name, value, message] of [
    ['PORT', 'abc', 'config: server.port: must be integer; change the value\'s type (the value comes from environment variable PORT)'],
    ['FREE', 'yes', 'config: models[0].free: must be boolean; change the value\'s type (the value comes from environment variable FREE)'],
    ['TRUST_PROXY', 'not-an-address', 'config: server.trustProxy: invalid IP address: not-an-address'],
  ] as const) {
    const out = await runBinaryAsync(['validate', '--config', file], typedEnv({ [name]: value }));
    expect(out).toMatchObject({ code: 2, out: '', err: `model-gateway: ${message}\n` });
  }
});

it('every variable that is not set is named at once, with where it is used; one with a default is not', async () => {
  const file = await write(TYPED);
  const out = await runBinaryAsync(['validate', '--config', file], typedEnv({ PORT: undefined, RPM: undefined, ADMIN_TOKEN: undefined }));
  expect(out).toMatchObject({ code: 2, out: '' });
  expect(out.err).toBe([
    'model-gateway: config: 3 environment variables are not set; set them, give defaults (${NAME:-value}) or write the values in the file:',
    '  PORT (server.port)', '  RPM (limits.defaults.rpm)', '  ADMIN_TOKEN (admin.tokens[0].token)', '',
  ].join('\n'));
});

it('with --config, PORT applies only where the file asks for it: a port written in the file is the port', async () => {
  const file = await write(TYPED.replace('port: ${PORT}', 'port: 0'));
  const gw = startBinary(['serve', '--config', file], typedEnv({ PORT: '1' })); // port 1 would need privileges: serve would exit 1
  try {
    expect((await gw.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]).not.toBe('1');
  } finally {
    expect(await gw.stop()).toBe(0);
  }
});

it('the schema written for editors takes a reference where it wants a number, so the sample config shows no error there', () => {
  const root = path.join(__dirname, '..', '..');
  const check = new Ajv({ strict: false, allowUnionTypes: true }).compile(JSON.parse(readFileSync(path.join(root, 'dist', 'cli', 'config.schema.json'), 'utf8')) as object);
  const sample = parse(readFileSync(path.join(root, 'examples', 'gateway.yaml'), 'utf8')) as { server: Record<string, unknown> };
  expect(sample.server.port).toBe('${PORT:-8787}');
  expect([check(sample), check.errors]).toEqual([true, null]);
  expect(check({ ...sample, server: { port: 'abc' } })).toBe(false);
});
