/** The binary's commands as processes: exit codes as --help states them, arguments by node:util parseArgs, and only serve and migrate changing the schema. */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processEnv, runBinary } from '../helpers/binary';
import { pgPool, PG_URL, uniqueSchema } from '../helpers/services';

const schema = uniqueSchema();
const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-commands-'));
const file = path.join(dir, 'gateway.yaml');
const versions = readdirSync(path.join(__dirname, '..', '..', 'lib', 'stores', 'postgres', 'sql')).filter((f) => f.endsWith('.sql')).map((f) => Number(f.split('_')[0])).sort((a, b) => a - b);
const latest = versions[versions.length - 1];
const cli = (...args: string[]) => runBinary(args, processEnv({ DATABASE_URL: PG_URL, MODEL_GATEWAY_CONFIG: undefined }));
const migrateFirst = `run \`model-gateway migrate --config ${file}\` first`;

const config = (storeUrl: string): string => `
store: { type: postgres, url: "${storeUrl}", schema: ${schema} }
upstreams: { anthropic: { type: anthropic, baseURL: "http://127.0.0.1:9", apiKey: k } }
models: [{ id: claude, capability: llm, upstream: anthropic, pricing: { input: 300, output: 1500 } }]
`;

beforeAll(() => writeFileSync(file, config('${DATABASE_URL}')));
afterAll(async () => {
  const pool = await pgPool(1);
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

it('exit codes as --help states them: --help 0; a missing, unknown or misspelt command, option or value 2', () => {
  for (const args of [['--help'], ['-h'], ['help'], ['serve', '--help'], ['credit', '--help']]) {
    expect(cli(...args)).toMatchObject({ code: 0, out: expect.stringContaining('exit codes: 0 done, 1 failed') });
  }
  expect(cli()).toMatchObject({ code: 2, err: expect.stringContaining('no command given') });
  expect(cli('frobnicate', '--config', file)).toMatchObject({ code: 2, err: expect.stringContaining('unknown command: frobnicate') });
  expect(cli('keys', 'list', '--config', file, '--bogus')).toMatchObject({ code: 2, err: expect.stringContaining("Unknown option '--bogus'") });
  expect(cli('keys', 'list', '--config')).toMatchObject({ code: 2, err: expect.stringContaining("Option '--config <value>' argument missing") });
  expect(cli('validate')).toMatchObject({ code: 2, err: expect.stringContaining('--config <file> is required') });
  expect(cli('validate', '--config', path.join(dir, 'absent.yaml'))).toMatchObject({ code: 2, err: expect.stringContaining('config: cannot read') });
  expect(cli('keys', 'list', '--config', file, '--json', '--bogus')).toMatchObject({ code: 2, out: expect.stringContaining('"error":"Unknown option') });
});

it('a store out of reach is a failure (1), not a bad config, for serve and every store command; validate never reaches it (0)', () => {
  const closed = path.join(dir, 'closed.yaml');
  writeFileSync(closed, config('postgres://postgres@127.0.0.1:9/test'));
  expect(cli('validate', '--config', closed)).toMatchObject({ code: 0 });
  expect(cli('serve', '--config', closed)).toMatchObject({ code: 1, err: expect.stringContaining('store: PostgreSQL could not be reached or migrated: connect ECONNREFUSED') });
  expect(cli('migrate', '--config', closed)).toMatchObject({ code: 1, err: expect.stringContaining('ECONNREFUSED') });
  expect(cli('keys', 'list', '--config', closed)).toMatchObject({ code: 1, err: expect.stringContaining('store: PostgreSQL could not be reached: connect ECONNREFUSED') });
});

it('only serve and migrate change the schema: the other commands refuse one not created or behind, naming migrate; migrate reports what it applied', async () => {
  const pool = await pgPool(1);
  try {
    for (const args of [['keys', 'list'], ['keys', 'create', 'alice'], ['credit', 'alice', '5', '--idempotency-key', 'k'], ['reviews', 'list']]) {
      expect(cli(...args, '--config', file)).toMatchObject({ code: 1, err: expect.stringContaining(migrateFirst) });
    }
    expect((await pool.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema])).rows).toEqual([]);

    expect(cli('migrate', '--config', file, '--json')).toMatchObject({ code: 0, out: `${JSON.stringify({ applied: versions })}\n` });
    expect(cli('migrate', '--config', file)).toMatchObject({ code: 0, out: 'schema is up to date\n' });
    // A negative amount is a value (a debit), not an option.
    expect(cli('credit', 'alice', '100', '--idempotency-key', 'open', '--create-account', '--config', file).code).toBe(0);
    expect(JSON.parse(cli('credit', 'alice', '-40', '--idempotency-key', 'fee', '--config', file, '--json').out)).toMatchObject({ applied: true, account: { balance: 60 } });

    // Behind by one migration in the middle (the newest applied), as a schema upgraded by a release that shipped a later number first.
    await pool.query(`DELETE FROM ${schema}.migrations WHERE version = $1`, [versions[versions.length - 2]]);
    expect(cli('keys', 'list', '--config', file)).toMatchObject({ code: 1, err: expect.stringContaining(`lacks migration ${versions[versions.length - 2]}: run migrate()`) });
    await pool.query(`DELETE FROM ${schema}.migrations WHERE version = $1`, [latest]);
    expect(cli('keys', 'list', '--config', file)).toMatchObject({ code: 1, err: expect.stringContaining(`lacks migrations ${versions.slice(-2).join(', ')}: run migrate()`) });
    expect(cli('keys', 'list', '--config', file).err).toContain(migrateFirst);
  } finally {
    await pool.end();
  }
}, 60_000);

it('store commands on a memory-store config are refused (exit 2), naming the admin API and the dashboard; migrate has nothing to do', () => {
  const memory = path.join(dir, 'memory.yaml');
  writeFileSync(memory, `${config('unused').replace(/^store:.*$/m, '')}admin: { tokens: [{ name: ops, token: memory-admin-token-0123, access: write }] }\n`);
  for (const args of [['keys', 'create', 'alice'], ['keys', 'list'], ['keys', 'revoke', 'key_0'], ['credit', 'alice', '5', '--idempotency-key', 'k'], ['reviews', 'list']]) {
    const out = cli(...args, '--config', memory);
    expect(out).toMatchObject({ code: 2, out: '' });
    expect(out.err).toBe(`model-gateway: ${args.slice(0, 2).join(' ')}: the config's store is memory, which only the running gateway holds: this command would use a new, empty store that gateway never sees. `
      + 'Change a running memory gateway through its admin API (/admin/keys, /admin/accounts/<caller>/credits, /admin/reviews) or its dashboard (/admin/dashboard/), or use a postgres store (store: { type: postgres })\n');
  }
  expect(cli('migrate', '--config', memory)).toMatchObject({ code: 0, out: 'memory store: nothing to migrate\n' });
});

it('errors are one line naming what and the fix; the usage follows only a usage mistake, and only its command\'s', () => {
  expect(cli('migrate', '--config', file).code).toBe(0);
  const oneLine = (args: string[], message: string): void => {
    expect(cli(...args, '--config', file)).toEqual({ code: 2, out: '', err: `model-gateway: ${message}\n` });
  };
  oneLine(['keys', 'disable', 'key_nope'], 'keyId: no key key_nope; `model-gateway keys list` shows the key ids');
  oneLine(['keys', 'rotate', 'key_nope'], 'keyId: no key key_nope; `model-gateway keys list` shows the key ids');
  oneLine(['credit', 'nobody', '5', '--idempotency-key', 'k'], 'callerId: no account "nobody"; check the id, create a key for the caller, or pass --create-account to open one.');
  oneLine(['keys', 'create', 'alice', '--models', 'opus'], 'models.0: "opus" is not in the catalog (known: claude); a key\'s --models names models of the config');
  oneLine(['reviews', 'resolve', 'req_nope', '--waive', '--reason', 'r'], 'requestId: no review for req_nope');

  const usage = cli('credit', 'alice', '5', '--config', file);
  expect(usage).toMatchObject({ code: 2, out: '' });
  expect(usage.err).toBe('model-gateway: --idempotency-key is required (the same key never moves money twice)\n'
    + 'usage: model-gateway credit <caller> <amount> --idempotency-key <key> [--create-account]\n(model-gateway credit --help explains each option)\n');
  expect(cli('keys', 'rotate', 'key_x', '--grace-seconds', 'soon', '--config', file).err).toMatch(/^model-gateway: --grace-seconds must be a whole number of seconds, 0 or more\nusage: model-gateway keys create/);
});

it('Redis out of reach: serve exits 1 with one line, the socket\'s own error and the fix, and no ioredis stack', () => {
  const redis = path.join(dir, 'redis.yaml');
  writeFileSync(redis, `${config('unused').replace(/^store:.*$/m, '')}redis: { url: "redis://127.0.0.1:9" }\nserver: { port: 0 }\n`);
  expect(cli('serve', '--config', redis)).toEqual({ code: 1, out: '', err: 'model-gateway: redis.url: Redis could not be reached: connect ECONNREFUSED 127.0.0.1:9; check redis.url and that Redis is running\n' });
});
