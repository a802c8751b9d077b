/** The binary's money and records commands as real processes on PostgreSQL: unknown accounts, allow-lists in the config, one list shape. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PG_URL, pgPool, uniqueSchema } from '../helpers/services';

const BIN = path.join(__dirname, '..', '..', 'bin', 'model-gateway.js');
const schema = uniqueSchema();
const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'mgw-cli-records-')), 'gateway.yaml');
writeFileSync(file, `
store: { type: postgres, url: "\${DATABASE_URL}", schema: ${schema} }
upstreams:
  anthropic: { type: anthropic, baseURL: "http://127.0.0.1:9", apiKey: unused }
models:
  - { id: claude, capability: llm, upstream: anthropic, free: true }
  - { id: haiku, capability: llm, upstream: anthropic, free: true }
`);
afterAll(async () => {
  const pool = await pgPool(1);
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

/** Runs one command against the config to its end. */
function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args, '--config', file], { env: { ...process.env, DATABASE_URL: PG_URL }, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

it('credit refuses a caller with no account (exit 2, naming it and --create-account), opens one when told; keys name only the config\'s models; reviews list as a page', () => {
  expect(cli('migrate').code).toBe(0);
  expect(cli('keys', 'create', 'acme', '--models', 'claude,opus')).toMatchObject({ code: 2, err: expect.stringContaining('models.1: "opus" is not in the catalog (known: claude, haiku)') });
  expect(JSON.parse(cli('keys', 'list', '--caller', 'acme', '--json').out)).toMatchObject({ items: [] });
  expect(JSON.parse(cli('keys', 'create', 'acme', '--models', 'claude,haiku', '--json').out)).toMatchObject({ record: { callerId: 'acme', models: ['claude', 'haiku'] } });
  expect(JSON.parse(cli('credit', 'acme', '100', '--idempotency-key', 'acme-1', '--json').out)).toMatchObject({ applied: true, account: { balance: 100 } });

  const typo = cli('credit', 'acmee', '100', '--idempotency-key', 'acmee-1');
  expect(typo).toMatchObject({ code: 2, err: expect.stringContaining('callerId: no account "acmee"; check the id, create a key for the caller, or pass --create-account to open one.') });
  expect(cli('credit', 'acmee', '100', '--idempotency-key', 'acmee-1', '--create-account', '--json')).toMatchObject({ code: 0, out: expect.stringContaining('"applied":true') });
  expect(cli('credit', 'acmee', '100', '--idempotency-key', 'acmee-1')).toMatchObject({ code: 0, out: expect.stringContaining('already applied (same key): acmee balance 100') });
  expect(cli('credit', 'acmee', '5', '--idempotency-key', 'acmee-2', '--create-account=yes')).toMatchObject({ code: 2, err: expect.stringContaining("Option '--create-account' does not take an argument") });

  expect(JSON.parse(cli('reviews', 'list', '--json').out)).toEqual({ items: [], next: null });
}, 60_000);
