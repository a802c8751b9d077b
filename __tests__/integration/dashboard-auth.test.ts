/** The dashboard's security over real HTTP: headers, sign-in, the session cookie, CSRF, expiry, bounds, sign-out, limits on bad sign-ins. */
import express from 'express';
import { createHash } from 'node:crypto';
import express4 from 'express4';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdminRouter, DashboardSessions, MemoryStore, PostgresStore } from '../../lib';
import { loadAssets } from '../../lib/admin/dashboard/assets';
import { pgPool, pgStore } from '../helpers/services';
import { refused } from '../helpers/config-error';

const WRITE = 'dash-write-token-0123456789';
const READ = 'dash-read-token-0123456789ab';
const TOKENS = [{ name: 'ops', token: WRITE, access: 'write' as const }, { name: 'viewer', token: READ, access: 'read' as const }];

interface Running { url: string; close(): Promise<void> }
async function serve(app: express.Express | express4.Express): Promise<Running> {
  const server = await new Promise<http.Server>((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => { server.closeAllConnections(); await new Promise((r) => server.close(r)); },
  };
}
const running: Running[] = [];
let pg: Awaited<ReturnType<typeof pgStore>>;
beforeAll(async () => { pg = await pgStore(); });
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
  await pg.drop();
});

/** A gateway's admin router on its own port; `sessions` shared when given. */
async function adminApp(options: { dashboard?: boolean | DashboardSessions; tokens?: typeof TOKENS; trustProxy?: boolean; store?: MemoryStore | PostgresStore } = {}): Promise<{ url: string; store: MemoryStore | PostgresStore }> {
  const store = options.store ?? new MemoryStore();
  const app = express();
  if (options.trustProxy) app.set('trust proxy', true);
  app.use('/admin', createAdminRouter({ store, tokens: options.tokens ?? TOKENS, ...(options.dashboard !== undefined ? { dashboard: options.dashboard } : {}) }));
  const r = await serve(app);
  running.push(r);
  return { url: `${r.url}/admin`, store };
}

const signIn = (url: string, token: string, headers: Record<string, string> = {}) => fetch(`${url}/dashboard/sign-in`, {
  method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...headers }, body: new URLSearchParams({ token }),
});
/** Signs in and returns the cookie to send back and the page's CSRF token. */
async function session(url: string, token = WRITE): Promise<{ cookie: string; csrf: string }> {
  const res = await signIn(url, token);
  expect(res.status).toBe(303);
  const cookie = (res.headers.get('set-cookie') as string).split(';')[0] as string;
  const me = await (await fetch(`${url}/dashboard/session`, { headers: { cookie } })).json() as { csrf: string };
  return { cookie, csrf: me.csrf };
}
const createKey = (url: string, headers: Record<string, string>) => fetch(`${url}/keys`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ callerId: 'acme' }) });

it('serves its page and files as UTF-8 with a strict CSP, no framing, nothing from another host', async () => {
  const { url } = await adminApp();
  const page = await fetch(`${url}/dashboard/sign-in`);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = page.headers.get('content-security-policy') as string;
  expect(csp.split('; ')).toEqual(expect.arrayContaining(["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'", "object-src 'none'"]));
  expect(csp).not.toMatch(/unsafe|https?:|\*/);
  expect(page.headers.get('x-frame-options')).toBe('DENY');
  expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  expect(page.headers.get('cache-control')).toBe('no-store');
  const html = await page.text();
  expect(html).not.toMatch(/<script(?![^>]*\ssrc=)/); // no inline script
  expect(html).not.toMatch(/\sstyle=|\son\w+=/); // no inline style or handler
  const js = await fetch(`${url}/dashboard/assets/app.js`);
  expect([js.status, js.headers.get('content-type'), js.headers.get('content-encoding')]).toEqual([200, 'text/javascript; charset=utf-8', 'gzip']);
  expect((await fetch(`${url}/dashboard/assets/nope.js`)).status).toBe(404);
  expect((await fetch(`${url}/dashboard/assets/../../keys`)).status).not.toBe(200);
  // Every file ships in the package and names no other host (the SVG namespace is a name, not a request).
  for (const [name, asset] of loadAssets()) {
    expect([name, asset.body.toString().replace(/http:\/\/www\.w3\.org\/2000\/svg/g, '').match(/https?:\/\/|\/\/[a-z0-9-]+\.[a-z]/gi)]).toEqual([name, null]);
  }
});

it('redirects to the page and an unauthenticated page to sign-in; a bad token signs nobody in', async () => {
  const { url } = await adminApp();
  const location = async (path: string) => { const r = await fetch(`${url}${path}`, { redirect: 'manual' }); return [r.status, r.headers.get('location')]; };
  expect(await location('')).toEqual([303, '/admin/dashboard/']);
  expect(await location('/dashboard')).toEqual([303, '/admin/dashboard/']);
  expect(await location('/dashboard/')).toEqual([303, 'sign-in']);
  const bad = await signIn(url, 'not-a-token-at-all-0000');
  expect([bad.status, bad.headers.get('set-cookie')]).toEqual([401, null]);
  expect(await bad.text()).toContain('That is not an admin token of this gateway.');
  expect((await fetch(`${url}/dashboard/session`)).status).toBe(401);
});

it('signs in with an HttpOnly, SameSite=Strict cookie scoped to the mount that expires; Secure over TLS', async () => {
  const { url } = await adminApp();
  const res = await signIn(url, WRITE);
  expect([res.status, res.headers.get('location')]).toEqual([303, './']);
  const cookie = res.headers.get('set-cookie') as string;
  expect(cookie).toMatch(/^mgw_session=[\w-]{43}; Max-Age=28800; Path=\/admin; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
  expect(cookie).not.toContain(WRITE);
  const tls = await adminApp({ trustProxy: true });
  expect((await signIn(tls.url, WRITE, { 'x-forwarded-proto': 'https' })).headers.get('set-cookie')).toMatch(/; Secure; SameSite=Strict$/);
});

it('a session reads and, with its CSRF token only, writes; a read token\'s session is refused every write by the server', async () => {
  const { url } = await adminApp();
  const ops = await session(url);
  expect((await fetch(`${url}/keys`, { headers: { cookie: ops.cookie } })).status).toBe(200);
  const noToken = await createKey(url, { cookie: ops.cookie });
  expect([noToken.status, (await noToken.json() as { error: { message: string } }).error.message]).toEqual([403, expect.stringMatching(/^x-csrf-token: /)]);
  expect((await createKey(url, { cookie: ops.cookie, 'x-csrf-token': 'forged' })).status).toBe(403);
  expect((await createKey(url, { cookie: ops.cookie, 'x-csrf-token': ops.csrf })).status).toBe(201);
  const viewer = await session(url, READ);
  const refused = await createKey(url, { cookie: viewer.cookie, 'x-csrf-token': viewer.csrf });
  expect([refused.status, (await refused.json() as { error: { message: string } }).error.message]).toEqual([403, 'authorization: token "viewer" may only read.']);
  // An Authorization header decides alone: a wrong one is not rescued by a cookie.
  expect((await fetch(`${url}/keys`, { headers: { cookie: ops.cookie, authorization: 'Bearer wrong-wrong-wrong-wrong' } })).status).toBe(401);
});

it('refuses a sign-in posted from another site or origin', async () => {
  const { url } = await adminApp();
  expect((await signIn(url, WRITE, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  expect((await signIn(url, WRITE, { 'sec-fetch-site': 'same-site' })).status).toBe(403);
  const noFetchMetadata = (origin: string) => fetch(`${url}/dashboard/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: new URLSearchParams({ token: WRITE }) });
  expect((await noFetchMetadata('http://evil.test')).status).toBe(403);
  expect((await noFetchMetadata(new URL(url).origin)).status).toBe(303);
});

it.each(['memory', 'PostgreSQL'])('sessions kept in %s end at sign-out (server-side), at their expiry, when idle, when their token is removed, and the oldest at the bound', async (kept) => {
  let now = 1_000_000;
  const sessions = new DashboardSessions({ ttlMs: 10_000, idleMs: 4_000, maxSessions: 2, ...(kept === 'PostgreSQL' ? { store: pg.store } : {}) }, () => now);
  const { url } = await adminApp({ dashboard: sessions });
  const works = async (s: { cookie: string }) => (await fetch(`${url}/keys`, { headers: { cookie: s.cookie } })).status;

  const a = await session(url);
  const out = await fetch(`${url}/dashboard/sign-out`, { method: 'POST', headers: { cookie: a.cookie } });
  expect(out.status).toBe(403); // sign-out needs the page's token too
  const signedOut = await fetch(`${url}/dashboard/sign-out`, { method: 'POST', headers: { cookie: a.cookie, 'x-csrf-token': a.csrf } });
  expect([signedOut.status, signedOut.headers.get('set-cookie')]).toEqual([204, expect.stringMatching(/^mgw_session=; Path=\/admin; Expires=Thu, 01 Jan 1970/)]);
  expect(await works(a)).toBe(401); // the copied cookie is dead on the server

  const b = await session(url);
  now += 3_000;
  expect(await works(b)).toBe(200);
  now += 3_000; // 3 s since its last use: still live; its absolute end is at 10 s
  expect(await works(b)).toBe(200);
  now += 4_000; // idle 4 s
  expect(await works(b)).toBe(401);
  const c = await session(url);
  for (let i = 0; i < 3; i++) { now += 3_000; expect(await works(c)).toBe(200); } // used every 3 s, never idle
  now += 999;
  expect(await works(c)).toBe(200);
  now += 1; // 10 s after its sign-in
  expect(await works(c)).toBe(401);

  const [d, e, f] = [await session(url), await session(url), await session(url)];
  expect([await works(d), await works(e), await works(f)]).toEqual([401, 200, 200]); // two at most: the oldest ended

  // The binary keeps one DashboardSessions across reloads: a token removed by a reload ends its sessions.
  const reloaded = await adminApp({ dashboard: sessions, tokens: [TOKENS[1] as (typeof TOKENS)[number]] });
  expect((await fetch(`${reloaded.url}/keys`, { headers: { cookie: e.cookie } })).status).toBe(401);
});

it('limits bad sign-ins per address: past the limit even the right token waits', async () => {
  const { url } = await adminApp({ dashboard: new DashboardSessions({ maxFailures: 3 }) });
  for (let i = 0; i < 3; i++) expect((await signIn(url, `guess-${i}-0123456789abcdef`)).status).toBe(401);
  const limited = await signIn(url, WRITE);
  expect([limited.status, Number(limited.headers.get('retry-after'))]).toEqual([429, expect.any(Number)]);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(800);
  expect(limited.headers.get('set-cookie')).toBeNull();
});

it('a sign-in forgets no failure: whoever holds a read token gets no fresh guesses at the write token', async () => {
  const { url } = await adminApp({ dashboard: new DashboardSessions({ maxFailures: 3 }) });
  for (let i = 0; i < 2; i++) expect((await signIn(url, `guess-${i}-0123456789abcdef`)).status).toBe(401);
  expect((await signIn(url, READ)).status).toBe(303);
  expect((await signIn(url, 'guess-2-0123456789abcdef')).status).toBe(401);
  expect((await signIn(url, WRITE)).status).toBe(429); // the failures only age out
});

it('admin tokens count on the same limit as sign-ins: past it, 429 with retry-after in the error shape, the token unchecked', async () => {
  const { url } = await adminApp({ dashboard: new DashboardSessions({ maxFailures: 3 }) });
  const page = await session(url, READ); // signed in before the guessing starts
  const keys = (authorization: string) => fetch(`${url}/keys`, { headers: { authorization } });
  expect((await keys(`Bearer ${READ}`)).status).toBe(200);
  expect((await keys('Bearer guess-0-0123456789abcdef')).status).toBe(401);
  expect((await signIn(url, 'guess-1-0123456789abcdef')).status).toBe(401); // the form's failures count here too
  expect((await keys(`Bearer ${READ}`)).status).toBe(200); // a right token forgets none
  expect((await keys('Basic Z3Vlc3M6Z3Vlc3M=')).status).toBe(401);
  const limited = await keys(`Bearer ${WRITE}`);
  const body = await limited.json() as { type: string; error: { type: string; message: string }; request_id: string };
  expect([limited.status, body.type, body.error.type, body.request_id]).toEqual([429, 'error', 'rate_limit_error', expect.stringMatching(/^req_/)]);
  expect(body.error.message).toMatch(/^authorization: /);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(800);
  expect((await signIn(url, WRITE)).status).toBe(429);
  // A session is no guess: the page signed in before goes on working.
  expect((await fetch(`${url}/keys`, { headers: { cookie: page.cookie } })).status).toBe(200);

  // Without a dashboard the admin API keeps the limit (10 failures by default).
  const bare = await adminApp({ dashboard: false });
  for (let i = 0; i < 10; i++) expect((await fetch(`${bare.url}/keys`, { headers: { authorization: `Bearer guess-${i}-0123456789abcdef` } })).status).toBe(401);
  expect((await fetch(`${bare.url}/keys`, { headers: { authorization: `Bearer ${WRITE}` } })).status).toBe(429);
});

it('on PostgresStore, sessions and failures are shared: signed in on A, the session and its CSRF token work on B; failures on A count on B; signed out on A, it ends on B', async () => {
  const poolB = await pgPool(2);
  const storeB = new PostgresStore({ pool: poolB, schema: pg.schema, keyCacheMs: 0, sweepIntervalMs: 0 });
  try {
    const a = await adminApp({ store: pg.store });
    const b = await adminApp({ store: storeB });
    const s = await session(a.url);
    const me = await (await fetch(`${b.url}/dashboard/session`, { headers: { cookie: s.cookie } })).json() as { name: string; csrf: string };
    expect(me).toMatchObject({ name: 'ops', csrf: s.csrf });
    expect((await fetch(`${b.url}/dashboard/`, { headers: { cookie: s.cookie }, redirect: 'manual' })).status).toBe(200);
    expect((await createKey(b.url, { cookie: s.cookie })).status).toBe(403); // no CSRF token: refused there too
    expect((await createKey(b.url, { cookie: s.cookie, 'x-csrf-token': s.csrf })).status).toBe(201);
    // The table holds neither the cookie value nor the CSRF token nor the admin token (or its digest).
    const rows = (await pg.pool.query(`SELECT * FROM ${pg.schema}.dashboard_sessions`)).rows;
    const cookieValue = s.cookie.split('=')[1] as string;
    expect(JSON.stringify(rows)).not.toMatch(new RegExp([cookieValue, s.csrf, WRITE, createHash('sha256').update(WRITE).digest('hex')].join('|')));

    const out = await fetch(`${a.url}/dashboard/sign-out`, { method: 'POST', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });
    expect(out.status).toBe(204);
    expect((await fetch(`${b.url}/keys`, { headers: { cookie: s.cookie } })).status).toBe(401);

    // Ten failures by default, wherever they were made: five on A, four on B, the tenth on A as a Bearer token.
    for (let i = 0; i < 5; i++) expect((await signIn(a.url, `guess-a${i}-0123456789abcdef`)).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await signIn(b.url, `guess-b${i}-0123456789abcdef`)).status).toBe(401);
    expect((await fetch(`${a.url}/keys`, { headers: { authorization: 'Bearer guess-last-0123456789abcdef' } })).status).toBe(401);
    expect((await signIn(b.url, WRITE)).status).toBe(429);
    expect((await fetch(`${b.url}/keys`, { headers: { authorization: `Bearer ${WRITE}` } })).status).toBe(429);
  } finally {
    await storeB.close();
    await poolB.end();
  }
});

it('is off with dashboard: false; a wrong option is refused when the router is made', async () => {
  const { url } = await adminApp({ dashboard: false });
  expect((await fetch(`${url}/dashboard/sign-in`)).status).toBe(401);
  expect((await fetch(`${url}/dashboard/assets/app.js`)).status).toBe(401);
  expect(() => createAdminRouter({ store: new MemoryStore(), tokens: TOKENS, dashboard: 'yes' as unknown as boolean })).toThrow(refused('ERR_MGW_INVALID_OPTION', 'createAdminRouter: option "dashboard" must be true, false or a DashboardSessions.'));
  expect(() => new DashboardSessions({ ttlMs: 0 })).toThrow(refused('ERR_MGW_INVALID_DURATION', 'DashboardSessions: option "ttlMs" must be a positive integer'));
});

it('signs in, shows its page and signs out in an Express 4 host app too', async () => {
  const app = express4();
  app.use('/ops', createAdminRouter({ store: new MemoryStore(), tokens: TOKENS }) as never);
  const r = await serve(app);
  running.push(r);
  const url = `${r.url}/ops`;
  const { cookie, csrf } = await session(url);
  const page = await fetch(`${url}/dashboard/`, { headers: { cookie } });
  expect([page.status, page.headers.get('content-type'), page.headers.get('content-security-policy')]).toEqual([200, 'text/html; charset=utf-8', expect.stringContaining("default-src 'self'")]);
  expect((await fetch(`${url}/dashboard/assets/style.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  const out = await fetch(`${url}/dashboard/sign-out`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } });
  expect([out.status, out.headers.get('set-cookie')]).toEqual([204, expect.stringMatching(/^mgw_session=; Path=\/ops; Expires=Thu, 01 Jan 1970/)]);
  expect((await fetch(`${url}/dashboard/`, { headers: { cookie }, redirect: 'manual' })).headers.get('location')).toBe('sign-in');
});
