/** Two `model-gateway serve` processes on one PostgreSQL schema: a price edited on one bills on both, through a restart and a SIGHUP; a dashboard session and the sign-in limit span both. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { OVERRIDE_MAX_AGE_MS } from '../../lib/catalog/follow';
import { processEnv, startBinary, type Running } from '../helpers/binary';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { tempDirs } from '../helpers/local';
import { PG_URL, pgStore } from '../helpers/services';

jest.setTimeout(120_000);
const dirs = tempDirs();
const TOKEN = 'cli-instances-ops-0123456789';
const KEY = 'sk-cli-instances-0123456789abcdef';
let upstream: FakeServer;
let made: Awaited<ReturnType<typeof pgStore>>;
let file: string;
const running = new Set<Running>();
const instances: Array<{ proc: Running; url: string }> = [];

/** The config file; `output` is claude-json's output price (25 input + 15 output tokens: 55 at 2,000,000). */
const writeConfig = (output: number): void => writeFileSync(file, `
server: { port: 0 }
store: { type: postgres, url: "\${DATABASE_URL}", schema: ${made.schema} }
upstreams: { anthropic: { type: anthropic, baseURL: "${upstream.url}", apiKey: ${UPSTREAM_KEY} } }
models:
  - { id: claude-json, capability: llm, upstream: anthropic, pricing: { input: 1000000, output: ${output} } }
admin: { tokens: [{ name: ops, token: ${TOKEN}, access: write }] }
`);

async function start(): Promise<{ proc: Running; url: string }> {
  const proc = startBinary(['serve', '--config', file], processEnv({ DATABASE_URL: PG_URL }));
  running.add(proc);
  const url = `http://127.0.0.1:${(await proc.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`;
  await proc.waitFor(/mounts: .*\n/);
  return { proc, url };
}

const admin = async (url: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> => { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${url}/admin${route}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};

/** One request through `url`; resolves with the charge the request log holds for it. */
async function charge(url: string): Promise<number> {
  const res = await fetch(`${url}/v1/messages`, {
    method: 'POST', headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-json', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  await res.text();
  expect(res.status).toBe(200);
  for (let i = 0; i < 400; i++) {
    const row = (await made.pool.query(`SELECT charge FROM ${made.schema}.request_log WHERE request_id = $1`, [res.headers.get('request-id')])).rows[0];
    if (row) return Number(row.charge);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no log entry');
}

/** Requests through `url` until two have started OVERRIDE_MAX_AGE_MS after `since`: the charges of those late ones, and every charge in order. */
async function chargesUntilBound(url: string, since: number): Promise<{ late: number[]; all: number[] }> {
  const late: number[] = [];
  const all: number[] = [];
  while (late.length < 2) {
    const started = Date.now();
    const amount = await charge(url);
    all.push(amount);
    if (started >= since + OVERRIDE_MAX_AGE_MS) late.push(amount);
  }
  return { late, all };
}

beforeAll(async () => {
  upstream = await startAnthropicFake();
  made = await pgStore();
  await made.store.addKey(KEY, { id: 'acme' });
  await made.store.credit({ callerId: 'acme', amount: 100_000_000, idempotencyKey: 'acme-open' });
  file = path.join(await dirs.make(), 'gateway.yaml');
  writeConfig(2_000_000);
  instances.push(await start(), await start());
});
afterAll(async () => {
  for (const proc of running) await proc.stop();
  await made.drop();
  await upstream.close();
});

it('a price edited on A bills on B within the bound, after A restarts and B reloads a changed file; reverted, both bill the file\'s price; both audited', async () => {
  const [a, b] = instances as [{ proc: Running; url: string }, { proc: Running; url: string }];
  expect([await charge(a.url), await charge(b.url)]).toEqual([55, 55]);
  const models = (await admin(a.url, 'GET', '/models')).body.items as Array<Record<string, unknown>>;
  const edited = { input: 2_000_000, output: 2_000_000 }; // 80
  expect((await admin(a.url, 'PUT', '/models', { models: models.map((m) => ({ ...m, pricing: edited })) })).status).toBe(200);
  const seen = await chargesUntilBound(b.url, Date.now());
  expect(seen.late).toEqual([80, 80]);
  expect(seen.all.slice(seen.all.indexOf(80))).toEqual(seen.all.slice(seen.all.indexOf(80)).map(() => 80));

  // The file changes (output 3,000,000: 70); B reloads it, A restarts on it: the runtime price wins on both.
  writeConfig(3_000_000);
  b.proc.child.kill('SIGHUP');
  await b.proc.waitFor(/reloaded .*\n(?: {2}.*\n)*? {2}runtime catalog edits over the file: claude-json \(edit pricing by ops\)/); // after the upstream lines
  expect(await charge(b.url)).toBe(80);
  expect(await a.proc.stop()).toBe(0);
  const restarted = await start();
  instances[0] = restarted;
  await restarted.proc.waitFor(/ {2}runtime catalog edits over the file: claude-json \(edit pricing by ops\)\n/);
  expect(await charge(restarted.url)).toBe(80);
  const shown = (await admin(restarted.url, 'GET', '/models')).body.items[0];
  expect(shown).toMatchObject({ pricing: edited, override: { configured: { pricing: { input: 1_000_000, output: 3_000_000 } }, actor: 'ops' } });

  expect((await admin(b.url, 'DELETE', '/models/claude-json/override')).status).toBe(200);
  expect(await charge(b.url)).toBe(70);
  expect((await chargesUntilBound(restarted.url, Date.now())).late).toEqual([70, 70]);
  const trail = (await admin(restarted.url, 'GET', '/audit?target=models')).body.items as Array<{ action: string; actor: string }>;
  expect(trail.map((e) => [e.action, e.actor])).toEqual([['models.revert', 'ops'], ['models.replace', 'ops']]);
});

it('a dashboard session opened on A works with its CSRF token on B and ends on B when signed out on A; failed sign-ins on A count on B', async () => {
  const [a, b] = instances as [{ proc: Running; url: string }, { proc: Running; url: string }];
  const signIn = (url: string, token: string) => fetch(`${url}/admin/dashboard/sign-in`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body: new URLSearchParams({ token }),
  });
  const signed = await signIn(a.url, TOKEN);
  expect(signed.status).toBe(303);
  const cookie = (signed.headers.get('set-cookie') as string).split(';')[0] as string;
  const me = await (await fetch(`${b.url}/admin/dashboard/session`, { headers: { cookie } })).json() as { name: string; csrf: string };
  expect(me.name).toBe('ops');
  const create = (url: string, headers: Record<string, string>) => fetch(`${url}/admin/keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ callerId: 'dash' }) });
  expect((await create(b.url, {})).status).toBe(403);
  expect((await create(b.url, { 'x-csrf-token': me.csrf })).status).toBe(201);
  expect((await fetch(`${a.url}/admin/dashboard/sign-out`, { method: 'POST', headers: { cookie, 'x-csrf-token': me.csrf } })).status).toBe(204);
  expect((await fetch(`${b.url}/admin/keys`, { headers: { cookie } })).status).toBe(401);

  for (let i = 0; i < 10; i++) expect((await signIn(a.url, `guess-${i}-0123456789abcdef`)).status).toBe(401);
  const limited = await signIn(b.url, TOKEN);
  expect([limited.status, Number(limited.headers.get('retry-after')) > 800]).toEqual([429, true]);
  expect((await fetch(`${b.url}/admin/keys`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(429);
});
