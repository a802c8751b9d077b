/** Two gateway processes over one PostgreSQL and one Redis: no overspend, no double bill, global limits, SIGKILL. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Pool } from 'pg';
import type Redis from 'ioredis';
import { defaultEstimator, type PostgresStore } from '../../lib';
import { holdFor } from '../../lib/billing/pricing';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startRerankFake } from '../helpers/fake-rerank';
import { sleep, type FakeServer } from '../helpers/fake-server';
import { dropPrefix, PG_URL, pgStore, REDIS_URL, redisClient } from '../helpers/services';

jest.setTimeout(60_000);
const root = path.join(__dirname, '..', '..');
let anthropic: FakeServer;
let cohere: FakeServer;
let store: PostgresStore;
let pool: Pool;
let schema: string;
let drop: () => Promise<void>;
let redis: Redis;
const prefix = `mi-${randomBytes(4).toString('hex')}`;
const instances: Array<{ child: ChildProcess; url: string }> = [];

function startInstance(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'examples/multi-instance.ts'], {
    cwd: root,
    env: {
      ...process.env, DATABASE_URL: PG_URL, REDIS_URL, GATEWAY_SCHEMA: schema, LIMITS_PREFIX: prefix, PORT: '0',
      ANTHROPIC_BASE_URL: anthropic.url, COHERE_BASE_URL: cohere.url, HOLD_LEASE_MS: '2000', SWEEP_INTERVAL_MS: '300',
      LLM_MODELS: 'claude-json,claude-stream,claude-stall-midstream',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (c: Buffer) => { err += c.toString(); });
    child.stdout?.on('data', (c: Buffer) => {
      const port = /listening (\d+)/.exec(c.toString())?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    });
    child.once('exit', (code) => reject(new Error(`instance exited (${code}): ${err}`)));
  });
}

beforeAll(async () => {
  anthropic = await startAnthropicFake();
  cohere = await startRerankFake('cohere');
  ({ store, pool, schema, drop } = await pgStore());
  redis = await redisClient();
  instances.push(...(await Promise.all([startInstance(), startInstance()])));
});
afterAll(async () => {
  for (const { child } of instances) if (child.exitCode === null) child.kill('SIGKILL');
  await dropPrefix(redis, prefix);
  redis.disconnect();
  await drop();
  await Promise.all([anthropic.close(), cohere.close()]);
});

async function newCaller(balance: number, limits?: { rpm?: number }): Promise<{ key: string; id: string }> {
  const id = `c_${randomBytes(6).toString('hex')}`;
  const key = `sk-mi-${randomBytes(16).toString('hex')}`;
  await store.addKey(key, { id, ...(limits ? { limits } : {}) });
  await store.credit({ callerId: id, amount: balance, idempotencyKey: `opening-${id}` });
  return { key, id };
}

type Kind = 'json' | 'stream' | 'rerank';
const RERANK_BODY = { model: 'cohere-tokens', query: 'q', documents: ['a', 'b', 'c'] };
async function send(url: string, key: string, kind: Kind): Promise<{ status: number; requestId: string }> {
  const body = kind === 'rerank'
    ? RERANK_BODY
    : { model: kind === 'json' ? 'claude-json' : 'claude-stream', max_tokens: 64, stream: kind === 'stream', messages: [{ role: 'user', content: 'Hello' }] };
  const res = await fetch(`${url}/v1/${kind === 'rerank' ? 'rerank' : 'messages'}`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  await res.text();
  return { status: res.status, requestId: res.headers.get('request-id') as string };
}

async function logRows(ids: string[]): Promise<Array<{ request_id: string; charge: string; status: number; billing_status: string }>> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await pool.query(`SELECT request_id, charge, status, billing_status FROM ${schema}.request_log WHERE request_id = ANY($1)`, [ids]);
    if (rows.length >= ids.length) return rows;
    await sleep(20);
  }
  throw new Error('log entries missing');
}

it('concurrent mixed traffic through both instances: no overspend, every request billed once and logged once', async () => {
  const start = 40 * 55;
  const { key, id } = await newCaller(start);
  const kinds: Kind[] = ['json', 'stream', 'rerank'];
  const results = await Promise.all(Array.from({ length: 150 }, (_, i) => send(instances[i % 2]!.url, key, kinds[i % 3]!)));
  expect(results.every((r) => r.status === 200 || r.status === 402)).toBe(true);
  expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(10);
  const rows = await logRows(results.map((r) => r.requestId));
  expect(rows).toHaveLength(150);
  const charged = rows.reduce((sum, r) => sum + Number(r.charge), 0);
  for (let i = 0; i < 250 && (await store.getAccount(id)).held !== 0; i++) await sleep(20);
  const account = await store.getAccount(id);
  expect(account).toEqual({ balance: start - charged, held: 0, carry: '0', ledger: start - charged });
  // The documented bound: a balance goes below zero only by what confirmed usage exceeded its hold.
  // Rerank here is held at its estimate (2 tokens) but confirmed at 42; Messages never exceed their hold.
  const rerankHold = holdFor(defaultEstimator(RERANK_BODY), { input: 1_000_000 });
  const servedRerank = results.filter((r, i) => r.status === 200 && kinds[i % 3] === 'rerank').length;
  expect(account.balance).toBeGreaterThanOrEqual(-servedRerank * (42 - rerankHold));
  const dup = await pool.query(`SELECT request_id FROM ${schema}.ledger WHERE caller_id = $1 AND request_id IS NOT NULL GROUP BY request_id HAVING count(*) > 1`, [id]);
  expect(dup.rows).toEqual([]);
});

it('limits hold across instances (Redis), not the configured limit times two', async () => {
  const { key } = await newCaller(1_000_000, { rpm: 10 });
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => send(instances[i % 2]!.url, key, 'json')));
  expect(results.filter((r) => r.status === 200)).toHaveLength(10);
  expect(results.filter((r) => r.status === 429)).toHaveLength(10);
});

it('SIGKILL mid-stream: holds expire and are released, settled work stays, the other instance keeps serving', async () => {
  const start = 100_000;
  const { key, id } = await newCaller(start);
  const [a, b] = instances as [{ child: ChildProcess; url: string }, { child: ChildProcess; url: string }];
  const done = await Promise.all([send(a.url, key, 'json'), send(a.url, key, 'stream')]);
  const streams = await Promise.all(Array.from({ length: 4 }, () => new Promise<string>((resolve) => {
    void fetch(`${a.url}/v1/messages`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-stall-midstream', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    }).then(async (res) => {
      resolve(res.headers.get('request-id') as string);
      await res.text().catch(() => undefined);
    }, () => undefined);
  })));
  await logRows(done.map((r) => r.requestId));
  expect((await store.getAccount(id)).held).toBe(4 * 138);
  a.child.kill('SIGKILL');
  await new Promise((r) => a.child.once('exit', r));
  expect((await send(b.url, key, 'json')).status).toBe(200);
  await sleep(2600); // hold lease 2000 ms + sweep every 300 ms on the surviving instance
  const account = await store.getAccount(id);
  expect(account.held).toBe(0);
  expect(account.balance).toBe(start - 3 * 55);
  expect(account.ledger).toBe(account.balance);
  const lost = await logRows(streams);
  expect(lost.map((r) => [r.status, r.billing_status, Number(r.charge)])).toEqual(streams.map(() => [0, 'needs_review', 0]));
  const settled = await logRows(done.map((r) => r.requestId));
  expect(settled.map((r) => Number(r.charge))).toEqual([55, 55]);
});
