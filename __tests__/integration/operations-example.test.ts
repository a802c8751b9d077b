/** examples/operations.ts as a process: the public router, metrics and health on an operator port, JSON log lines, SIGTERM drain. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { postMessages } from '../helpers/gateway';
import { PG_URL, pgPool, uniqueSchema } from '../helpers/services';

let upstream: FakeServer;
beforeAll(async () => { upstream = await startAnthropicFake(); });
afterAll(async () => upstream.close());

it('serves, exposes the admin API, metrics and readiness on the operator port, logs a JSON line per request, and drains on SIGTERM', async () => {
  const schema = uniqueSchema();
  const child: ChildProcess = fork(path.join(__dirname, '..', '..', 'examples', 'operations.ts'), [], {
    execArgv: ['-r', 'ts-node/register/transpile-only'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, DATABASE_URL: PG_URL, GATEWAY_SCHEMA: schema, GATEWAY_KEY: 'sk-operated', PORT: '0', OPERATOR_PORT: '0', ADMIN_TOKEN: 'operator-token-0123456789',
      ANTHROPIC_BASE_URL: upstream.url, ANTHROPIC_API_KEY: UPSTREAM_KEY, UPSTREAM_MODEL: 'claude-json' },
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr?.on('data', (c: Buffer) => { out += c.toString(); });
  try {
    const { port, operatorPort } = await new Promise<{ port: number; operatorPort: number }>((resolve, reject) => {
      child.once('message', (m) => resolve(m as { port: number; operatorPort: number }));
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const res = await postMessages(`http://127.0.0.1:${port}`, 'sk-operated', 'claude');
    expect(res.status).toBe(200);
    const requestId = res.headers.get('request-id');
    const operator = `http://127.0.0.1:${operatorPort}`;
    expect((await fetch(`${operator}/readyz`)).status).toBe(200);
    for (let i = 0; i < 100 && !out.includes(`"requestId":"${requestId}"`); i++) await new Promise((r) => setTimeout(r, 20));
    const line = out.split('\n').find((l) => l.includes(`"requestId":"${requestId}"`)) as string;
    expect(JSON.parse(line)).toMatchObject({ level: 'info', msg: 'request finished', status: 200, billingStatus: 'billed', cost: '0.03' });
    expect(await (await fetch(`${operator}/metrics`)).text()).toMatch(/model_gateway_requests_total\{endpoint="messages",model="claude",status="200"\} 1/);
    const account = await fetch(`${operator}/admin/accounts/operator-demo`, { headers: { authorization: 'Bearer operator-token-0123456789' } });
    expect(await account.json()).toMatchObject({ callerId: 'operator-demo', balance: 1_000_000, carry: '0.03' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).not.toContain(UPSTREAM_KEY);
    expect(out).not.toContain('sk-operated');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    const pool = await pgPool(1);
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
}, 30_000);
