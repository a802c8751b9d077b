/** Who may use the dashboard, in Chromium: sign-in, the session cookie, a read-only token, cross-site forms, framing, sign-out. */
import { itLeftNoTrace, OPS, useDashboard, VIEWER, type Session } from './dashboard';
import { shot, watch } from './browser';

const d = useDashboard();
let ops: Session;
let attackerPort: number;
let keyId: string;

beforeAll(async () => {
  // Another site's pages (as http://evil.test:port) and another origin of this site (as http://127.0.0.1:port).
  attackerPort = await d.listen((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url?.startsWith('/frame')
      ? `<!doctype html><iframe src="${q.get('src')}" title="framed"></iframe>`
      : `<!doctype html><form method="post" action="${q.get('action')}"><button>Win a prize</button></form>`);
  });
  d.store.addKey('sk-browser-target-0123456789abcdef', { id: 'target' });
  d.store.credit({ callerId: 'target', amount: 1000, idempotencyKey: 'target-open' });
  keyId = (await d.store.listKeys({ callerId: 'target' })).items[0]?.keyId as string;
});

it('an unauthenticated page redirects to sign-in; a bad token is refused; signing in by keyboard keeps the token out of storage and URLs', async () => {
  const context = await d.newContext();
  const page = await context.newPage();
  ops = { context, page, seen: watch(page), origin: d.origin, refusals: [401] }; // the bad token's
  d.sessions.push(ops);
  await page.goto(`${d.admin}/dashboard/#/keys`);
  expect(page.url()).toBe(`${d.admin}/dashboard/sign-in#/keys`); // the browser keeps the fragment
  await shot(page, 'sign-in');
  await page.getByLabel('Admin token').fill('not-the-token-0123456789');
  await page.keyboard.press('Enter');
  await page.getByRole('alert').filter({ hasText: 'That is not an admin token of this gateway.' }).waitFor();
  await page.getByLabel('Admin token').fill(OPS);
  await page.keyboard.press('Enter');
  await page.locator('main[data-view=overview]').waitFor();
  expect(page.url()).toBe(`${d.admin}/dashboard/`);
  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({ name: 'mgw_session', httpOnly: true, sameSite: 'Strict', path: '/admin', secure: false });
  expect(cookie?.expires).toBeGreaterThan(Date.now() / 1000);
  const stored = await page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie, location.href, history.length]));
  expect(stored).not.toContain(OPS);
  expect(stored).toContain('[{},{},""'); // nothing in storage; the session cookie is out of the page's reach
  expect(ops.seen.requests.filter((u) => u.includes(OPS))).toEqual([]);
});

it('a read-only token sees every page, and the server refuses its writes even when the page is forced', async () => {
  const viewer = await d.signedIn(VIEWER);
  const { page } = viewer;
  viewer.refusals.push(403);
  for (const hash of ['keys', 'requests', 'reviews', 'audit', 'models']) await d.open(page, hash);
  expect(await page.getByRole('button', { name: 'Edit…' }).first().isDisabled()).toBe(true); // models
  await d.open(page, 'accounts/target');
  const form = page.locator('form[data-form=credit]');
  expect(await form.getByRole('button', { name: 'Apply' }).isDisabled()).toBe(true);
  await form.getByText('Your token may only read').waitFor();
  await form.locator('fieldset').evaluate((fieldset) => fieldset.removeAttribute('disabled'));
  await page.getByLabel('Amount').fill('999');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('alert').filter({ hasText: 'authorization: token "viewer" may only read.' }).waitFor();
  expect(d.store.getBalance('target')).toBe(1000);
  await shot(page, 'read-only');
  await viewer.context.close();
});

it('a form posted from another site, or another origin of this one, changes nothing; the page cannot be framed', async () => {
  const attacker = await ops.context.newPage(); // the operator's own browser, signed in
  const post = async (site: string) => {
    await attacker.goto(`${site}/?action=${encodeURIComponent(`${d.admin}/keys/${keyId}/disable`)}`);
    const [res] = await Promise.all([attacker.waitForResponse(`${d.admin}/keys/${keyId}/disable`), attacker.getByRole('button', { name: 'Win a prize' }).click()]);
    return [res.status(), ((await res.json()) as { error: { type: string } }).error.type];
  };
  expect(await post(`http://evil.test:${attackerPort}`)).toEqual([401, 'authentication_error']); // cross-site: the cookie stays home
  expect(await post(`http://127.0.0.1:${attackerPort}`)).toEqual([403, 'permission_error']); // same site, other origin: no CSRF token
  expect((await d.store.getKey(keyId))?.status).toBe('active');
  // goto waits for the page's load, which waits for its frame's.
  await attacker.goto(`http://evil.test:${attackerPort}/frame?src=${encodeURIComponent(`${d.admin}/dashboard/sign-in`)}`);
  expect(await attacker.frames()[1]?.locator('#token').count()).toBe(0);
  await attacker.close();
});

it('sign-out ends the session on the server: the cookie is gone, a copy of it is refused', async () => {
  const { page, context } = ops;
  const [cookie] = await context.cookies();
  await d.open(page, 'overview');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${d.admin}/dashboard/sign-in`);
  expect(await context.cookies()).toEqual([]);
  expect((await fetch(`${d.admin}/keys`, { headers: { cookie: `mgw_session=${cookie?.value}` } })).status).toBe(401);
  await page.goto(`${d.admin}/dashboard/#/overview`);
  expect(page.url()).toBe(`${d.admin}/dashboard/sign-in#/overview`);
});

itLeftNoTrace(d, 2);
