/**
 * The README's "Examples" commands, each run as written from the checkout with the environment its first lines
 * name (fake upstreams, the test PostgreSQL and Redis): each serves a request through its upstream and stops on SIGTERM.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { watch, type Running } from '../helpers/binary';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startOpenAIFake } from '../helpers/fake-openai';
import { UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { blocks, read, ROOT } from '../helpers/markdown';
import { dropPrefix, PG_URL, pgPool, REDIS_URL, redisClient } from '../helpers/services';
import { migrate, PostgresStore } from '../../lib';

jest.setTimeout(120_000);
/** A start compiles the example with ts-node: on a busy machine well over 30 s. A broken start exits at once. */
const START_BOUND_MS = 90_000;
const commands = (blocks(read('README.md')).find((b) => b.heading === 'Examples' && b.lang === 'sh')?.code ?? '')
  .split('\n').map((line) => line.replace(/#.*$/, '').trim()).filter(Boolean);
const command = (example: string): string => {
  const found = commands.find((c) => c.includes(example));
  if (!found) throw new Error(`README "Examples": no command for ${example} in ${JSON.stringify(commands)}`);
  return found;
};
let anthropic: FakeServer;
let openai: FakeServer;

beforeAll(async () => { [anthropic, openai] = await Promise.all([startAnthropicFake(), startOpenAIFake()]); });
afterAll(async () => { await Promise.all([anthropic.close(), openai.close()]); });

/** A user's shell in the clone: none of jest's npm variables, no upstream or gateway setting of the developer's. */
function run(line: string, extra: NodeJS.ProcessEnv): Running {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_|^INIT_CWD$|^(ANTHROPIC|OPENAI|COHERE)_|^GATEWAY_|^(DATABASE|REDIS)_URL$/i.test(name)) env[name] = value;
  return watch(spawn('bash', ['-c', line], { cwd: ROOT, env: { ...env, ...extra }, detached: true }));
}

/** The example's own process in the command's group: the node process running ts-node on it (npm and sh only pass signals on). */
function exampleProcess(running: Running): number | undefined {
  const group = running.child.pid as number;
  return execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' }).split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[2]) === group && /^\S*node\s.*ts-node/.test(m[3] as string))
    .map((m) => Number(m[1]))[0];
}

/** SIGTERM to the example's process, as a process manager stops a service: its exit code (null: still running 20 s later, or killed). */
async function stop(running: Running): Promise<number | null> {
  const group = running.child.pid as number;
  const example = exampleProcess(running);
  if (example === undefined) {
    try { process.kill(-group, 'SIGKILL'); } catch { /* none left */ }
    return null;
  }
  process.kill(example, 'SIGTERM');
  const exited = new Promise<number | null>((resolve) => {
    const check = setInterval(() => {
      try { process.kill(example, 0); } catch { clearInterval(check); resolve(0); }
    }, 50);
    setTimeout(() => { clearInterval(check); resolve(null); }, 20_000).unref();
  });
  const gone = await exited;
  const code = gone === null ? null : await running.exited; // npm exits with the example's code
  try { process.kill(-group, 'SIGKILL'); } catch { /* none left */ }
  return code;
}

const messages = (url: string, key: string, model: string): Promise<Response> => fetch(`${url}/v1/messages`, {
  method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
  body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] }),
});

// `npm start`, as written, is run by fresh-clone.test.ts on a fresh clone; examples/operations.ts by operations-example.test.ts (the
// `npm run example` script that runs it is the one run here).
it('lists one command per example in examples/', () => {
  expect(commands).toHaveLength(4);
  for (const example of ['npm start', 'shared-chat-completions.ts', 'operations.ts', 'multi-instance.ts']) expect(command(example)).toBeDefined();
});

it('shared-chat-completions.ts: both SDKs\' routes on the OpenAI-compatible upstream it names', async () => {
  const shared = run(command('shared-chat-completions.ts'), { PORT: '0', OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: UPSTREAM_KEY });
  try {
    const url = (await shared.waitFor(/shared host on (http:\/\/127\.0\.0\.1:\d+)/, START_BOUND_MS))[1] as string;
    expect((await messages(url, 'sk-shared-demo', 'house-model')).status).toBe(200);
    const chat = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-shared-demo', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'house-model', messages: [{ role: 'user', content: 'Hello' }] }) });
    expect(await chat.json()).toMatchObject({ choices: [{ message: { content: 'Hi there!' } }] });
  } finally {
    await stop(shared); // a demo without a shutdown handler: SIGTERM's default ends it
  }
});

it('multi-instance.ts: serves over PostgreSQL and Redis, and on SIGTERM writes what its store still held before it exits', async () => {
  const pool = await pgPool(2);
  const schema = `mgw_example_${randomBytes(4).toString('hex')}`;
  const prefix = `example-${randomBytes(4).toString('hex')}`;
  await migrate(pool, schema);
  const store = new PostgresStore({ pool, schema, keyCacheMs: 0, sweepIntervalMs: 0 });
  await store.addKey('sk-multi-readme', { id: 'multi' });
  await store.credit({ callerId: 'multi', amount: 1_000_000_000, idempotencyKey: 'multi-opening' });
  const instance = run(command('multi-instance.ts'), { PORT: '0', DATABASE_URL: PG_URL, REDIS_URL, GATEWAY_SCHEMA: schema, LIMITS_PREFIX: prefix, ANTHROPIC_BASE_URL: anthropic.url });
  try {
    const port = (await instance.waitFor(/listening (\d+)/, START_BOUND_MS))[1] as string;
    expect((await messages(`http://127.0.0.1:${port}`, 'sk-multi-readme', 'claude-json')).status).toBe(200);
    expect(await stop(instance)).toBe(0);
    const [key] = (await store.listKeys({ callerId: 'multi' })).items;
    expect(key?.lastUsedAt).toEqual(expect.any(Number)); // the key's last use reached the database before the pool ended
    expect(instance.out()).not.toMatch(/pool after calling end|Error/);
  } finally {
    await stop(instance);
    await store.close();
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
    const redis = await redisClient();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  }
});
