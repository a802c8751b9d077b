/** A SIGKILLed instance's budget holds lapse with its balance holds: one lease later the sweep frees both, and the budget's room is whole again. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type Redis from 'ioredis';
import type { PostgresStore } from '../../lib';
import { hashKey } from '../../lib/stores/hash';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { sleep, type FakeServer } from '../helpers/fake-server';
import { dropPrefix, PG_URL, pgStore, REDIS_URL, redisClient } from '../helpers/services';

jest.setTimeout(60_000);
const prefix = `bk-${randomBytes(4).toString('hex')}`;
let anthropic: FakeServer;
let store: PostgresStore;
let schema: string;
let drop: () => Promise<void>;
let redis: Redis;
let child: ChildProcess | undefined;

beforeAll(async () => {
  anthropic = await startAnthropicFake();
  ({ store, schema, drop } = await pgStore());
  redis = await redisClient();
});
afterAll(async () => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  await dropPrefix(redis, prefix);
  redis.disconnect();
  await drop();
  await anthropic.close();
});

function startInstance(): Promise<string> {
  child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'examples/multi-instance.ts'], {
    cwd: path.join(__dirname, '..', '..'),
    env: { ...process.env, DATABASE_URL: PG_URL, REDIS_URL, GATEWAY_SCHEMA: schema, LIMITS_PREFIX: prefix, PORT: '0', ANTHROPIC_BASE_URL: anthropic.url, HOLD_LEASE_MS: '1000', LLM_MODELS: 'claude-stall-midstream' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    child?.stdout?.on('data', (c: Buffer) => {
      const port = /listening (\d+)/.exec(c.toString())?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child?.once('exit', (code) => reject(new Error(`instance exited (${code})`)));
  });
}

it('streams in flight under a key budget and a session template: SIGKILL, one lease, the sweep frees the budgets too', async () => {
  const url = await startInstance();
  const secret = 'sk-sigkill-0123456789abcdef0123';
  const session = { amount: 1_000_000, period: 'total' as const, timeZone: 'UTC', requests: null, tokens: null };
  const record = await store.createKey({ keyHash: hashKey(secret), prefix: 'sk-sigkill', callerId: 'c_sigkill',
    budget: { amount: 1_000_000, period: 'total', timeZone: 'UTC', requests: 10, tokens: null, perSession: session, perSubagent: null } });
  await store.credit({ callerId: 'c_sigkill', amount: 10_000_000, idempotencyKey: 'open-sigkill' });
  const started = await Promise.all(Array.from({ length: 3 }, () => new Promise<void>((resolve) => {
    void fetch(`${url}/v1/messages`, {
      method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-session-id': 'doomed' },
      body: JSON.stringify({ model: 'claude-stall-midstream', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    }).then(async (res) => { resolve(); await res.text().catch(() => undefined); }, () => resolve());
  })));
  expect(started).toHaveLength(3);
  const scopes = [`key:${record.keyId}`, `session:key:${record.keyId}/doomed`];
  const usage = async () => Promise.all(scopes.map(async (scope) => (await store.budgetUsage({ scope, period: 'total' })).items[0]));
  const held = (await store.getAccount('c_sigkill')).held;
  expect(held).toBeGreaterThan(0);
  expect((await usage()).map((u) => [u?.held, u?.requestsHeld])).toEqual([[held, 3], [held, 3]]);
  child?.kill('SIGKILL');
  await new Promise((r) => child?.once('exit', r));
  await sleep(1200); // the lease
  await store.sweepExpiredHolds();
  expect(await store.getAccount('c_sigkill')).toMatchObject({ balance: 10_000_000, held: 0, ledger: 10_000_000 });
  expect((await usage()).map((u) => [u?.spent, u?.held, u?.requestsHeld, u?.tokensHeld])).toEqual([[0, 0, 0, 0], [0, 0, 0, 0]]);
});
