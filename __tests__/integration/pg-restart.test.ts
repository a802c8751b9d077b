/** PostgreSQL ends the gateway's connections (restart, failover, pg_terminate_backend): the process lives and no money is lost or doubled. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { sleep, type FakeServer } from '../helpers/fake-server';
import { PG_URL, pgStore, REDIS_URL } from '../helpers/services';

jest.setTimeout(60_000);
const root = path.join(__dirname, '..', '..');
const app = `mgw_restart_${randomBytes(4).toString('hex')}`;
let upstream: FakeServer;
let pg: Awaited<ReturnType<typeof pgStore>>;
let child: ChildProcess;
let url: string;
let stderr = '';

beforeAll(async () => {
  upstream = await startAnthropicFake();
  pg = await pgStore();
  // The documented wiring: a pg Pool the host creates with no 'error' listener of its own.
  child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'examples/multi-instance.ts'], {
    cwd: root,
    env: {
      ...process.env, DATABASE_URL: `${PG_URL}?application_name=${app}`, REDIS_URL, GATEWAY_SCHEMA: pg.schema, PORT: '0',
      ANTHROPIC_BASE_URL: upstream.url, LLM_MODELS: 'claude-json,claude-slow', LIMITS_PREFIX: app,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (c: Buffer) => { stderr += c.toString(); });
  url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      const port = /listening (\d+)/.exec(c.toString())?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.once('exit', (code) => reject(new Error(`instance exited (${code}): ${stderr}`)));
  });
});
afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await pg.drop();
  await upstream.close();
});

const terminate = (): Promise<unknown> =>
  pg.pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [app]);

async function send(key: string, model: string): Promise<{ status: number; requestId: string; type?: string }> {
  const res = await fetch(`${url}/v1/messages`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 64, stream: model === 'claude-slow', messages: [{ role: 'user', content: 'Hello' }] }),
  });
  const text = await res.text();
  return { status: res.status, requestId: res.headers.get('request-id') as string, type: res.status === 200 ? undefined : (JSON.parse(text) as { error: { type: string } }).error.type };
}

async function rows(ids: string[]): Promise<Array<{ request_id: string; charge: string; status: number }>> {
  for (let i = 0; i < 300; i++) {
    const { rows: found } = await pg.pool.query(`SELECT request_id, charge, status FROM ${pg.schema}.request_log WHERE request_id = ANY($1)`, [ids]);
    if (found.length >= ids.length) return found;
    await sleep(20);
  }
  throw new Error('log entries missing');
}

it('idle connections terminated: the process lives and the next requests are served on fresh connections', async () => {
  await pg.store.addKey('sk-restart-idle', { id: 'idle' });
  await pg.store.credit({ callerId: 'idle', amount: 100_000, idempotencyKey: 'opening-idle' });
  expect((await send('sk-restart-idle', 'claude-json')).status).toBe(200);
  await sleep(100);
  await terminate();
  await sleep(300);
  expect(child.exitCode).toBeNull();
  const after = await Promise.all([send('sk-restart-idle', 'claude-json'), send('sk-restart-idle', 'claude-slow')]);
  expect(after.map((r) => r.status)).toEqual([200, 200]);
  for (let i = 0; i < 250 && !/PostgresStore: terminating connection/.test(stderr); i++) await sleep(20); // the child's stderr may lag
  expect(stderr).toMatch(/PostgresStore: terminating connection/);
});

it('connections terminated while serving: each request succeeds or fails with api_error, every one is logged once and billed at most once', async () => {
  const start = 100_000;
  await pg.store.addKey('sk-restart-busy', { id: 'busy' });
  await pg.store.credit({ callerId: 'busy', amount: start, idempotencyKey: 'opening-busy' });
  const pending = Array.from({ length: 24 }, (_, i) => send('sk-restart-busy', i % 2 ? 'claude-slow' : 'claude-json'));
  await sleep(30);
  await terminate();
  const results = await Promise.all(pending);
  expect(child.exitCode).toBeNull();
  for (const r of results) expect(r.status === 200 || (r.status === 500 && r.type === 'api_error')).toBe(true);
  expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
  const logged = await rows(results.map((r) => r.requestId));
  expect(logged).toHaveLength(24);
  const charged = logged.reduce((sum, r) => sum + Number(r.charge), 0);
  const served = results.filter((r) => r.status === 200).length;
  expect(charged).toBe(served * 55);
  const dup = await pg.pool.query(`SELECT request_id FROM ${pg.schema}.ledger WHERE caller_id = 'busy' AND request_id IS NOT NULL GROUP BY request_id HAVING count(*) > 1`);
  expect(dup.rows).toEqual([]);
  for (let i = 0; i < 250 && (await pg.store.getAccount('busy')).held !== 0; i++) await sleep(20);
  expect(await pg.store.getAccount('busy')).toEqual({ balance: start - charged, held: 0, carry: '0', ledger: start - charged });
});
