/** The operator dashboard in a real browser (Debian's Chromium) against a gateway with a fake upstream: each page, its writes, its security. */
import Anthropic from '@anthropic-ai/sdk';
import express from 'express';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAdminRouter, createGatewayRouter, MemoryStore, type GatewayRouter, type RequestLogEntry, type Usage } from '../../lib';
import { USAGE_FIGURES } from '../../lib/billing/figures';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import type { FakeServer } from '../helpers/fake-server';
import { llmModels } from '../helpers/gateway';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { launch, shot, watch, type Watch } from './browser';

const OPS = 'browser-ops-token-0123456789';
const VIEWER = 'browser-viewer-token-012345678';
const DAY = 86_400_000;

let upstream: FakeServer;
let store: MemoryStore;
let gateway: GatewayRouter;
let servers: http.Server[] = [];
let origin: string;
let admin: string;
let attackerPort: number;
let browser: Browser;
/** A signed-in browser: its page, what the page did, and the refusals it was made to meet (the browser logs each as a console error). */
interface Session { context: BrowserContext; page: Page; seen: Watch; origin: string; refusals: number[] }
let ops: Session;
const sessions: Session[] = [];

const listen = async (app: http.RequestListener): Promise<number> => {
  const server = http.createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};
const sdk = (key: string) => new Anthropic({ apiKey: key, baseURL: origin, maxRetries: 0 });
const ask = (key: string, model = 'claude-json') => sdk(key).messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] });
const statusOf = (call: Promise<unknown>) => call.then(() => 200, (err: { status?: number }) => err.status ?? 0);

/** A browser context of its own (cookies, storage); a wait longer than 10 s is a failure, not a slow pass. */
async function newContext(viewport = { width: 1280, height: 800 }): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(10_000);
  return context;
}
/** A new browser context signed in with `token`, its page watched. */
async function signedIn(token: string, at = admin, viewport = { width: 1280, height: 800 }): Promise<Session> {
  const context = await newContext(viewport);
  const page = await context.newPage();
  const session: Session = { context, page, seen: watch(page), origin: new URL(at).origin, refusals: [] };
  sessions.push(session);
  await page.goto(`${at}/dashboard/`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByLabel('Admin token').press('Enter');
  await page.locator('main[data-view=overview]').waitFor();
  return session;
}
/** Shows a view of the dashboard (loaded again when it is the one shown) and waits for its new render. */
async function open(page: Page, hash: string, at = admin): Promise<void> {
  const target = `${at}/dashboard/#/${hash}`;
  const turn = page.url().startsWith(`${at}/dashboard/`) ? await page.locator('main').getAttribute('data-turn') : null;
  if (page.url() === target) await page.reload();
  else await page.goto(target);
  await page.locator(`main[data-view=${hash.split(/[/?]/)[0]}]:not([data-turn="${turn}"])`).waitFor();
}

beforeAll(async () => {
  upstream = await startAnthropicFake();
  store = new MemoryStore({ maxRecords: 20_000 });
  // Prices of a few units a request, so the spend charts have bars.
  const models = llmModels(upstream.url, upstream.url, ['claude-json', 'claude-status-500', 'claude-midstream-error']).map((m) => ({ ...m, pricing: { input: 300_000, output: 1_500_000 } }));
  gateway = createGatewayRouter({ store, models });
  const app = express();
  app.use('/admin', createAdminRouter({ store, models: gateway.models, tokens: [{ name: 'ops', token: OPS, access: 'write' }, { name: 'viewer', token: VIEWER, access: 'read' }] }));
  app.use(gateway);
  origin = `http://127.0.0.1:${await listen(app)}`;
  admin = `${origin}/admin`;
  // Another site's pages (as http://evil.test:port) and another origin of this site (as http://127.0.0.1:port).
  attackerPort = await listen((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url?.startsWith('/frame')
      ? `<!doctype html><iframe src="${q.get('src')}" title="framed"></iframe>`
      : `<!doctype html><form method="post" action="${q.get('action')}"><button>Win a prize</button></form>`);
  });

  // Traffic for the overview: three answers, one upstream failure, one stream cut mid-way (a review).
  const acme = 'sk-browser-acme-0123456789abcdef';
  store.addKey(acme, { id: 'acme' });
  store.credit({ callerId: 'acme', amount: 1_000_000, idempotencyKey: 'acme-open' });
  for (let i = 0; i < 3; i++) await ask(acme);
  expect(await statusOf(ask(acme, 'claude-status-500'))).toBeGreaterThanOrEqual(500);
  await expect((async () => { for await (const _event of await sdk(acme).messages.create({ model: 'claude-midstream-error', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'Hi' }] })); })()).rejects.toThrow();
  store.credit({ callerId: 'low', amount: 25, idempotencyKey: 'low-open', createAccount: true });
  // A month-old log of 10,000 requests, and two with the usage breakdowns old and new rows hold.
  const row = (requestId: string, startedAt: number, extra: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
    requestId, callerId: 'bulk', endpoint: 'messages', model: 'claude-json', stream: false, status: 200, errorCode: null, usage: null, cost: '0', charge: 0,
    billingStatus: 'billed', startedAt, durationMs: 12, ttfbMs: null, upstream: 'anthropic', detail: null, user: null, attempts: [], ...extra,
  });
  const old = Date.now() - 30 * DAY;
  for (let i = 0; i < 10_000; i++) store.appendLog(row(`req_bulk_${String(i).padStart(5, '0')}`, old + i));
  const breakdown = { inputTokens: 1200, cacheReadInputTokens: 300, cacheWrite5mInputTokens: 40, cacheWrite1hInputTokens: 60, outputTokens: 500, webSearchRequests: 2, searchUnits: 0, provenance: 'confirmed' };
  store.appendLog(row('req_breakdown', old + 20_000, { usage: breakdown as unknown as Usage, cost: '1234.56789', charge: 1234, durationMs: 842, ttfbMs: 120 }));
  // A row kept before cache writes were split by duration holds their total only.
  store.appendLog(row('req_older_shape', old + 20_001, { usage: { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 0, cacheCreationInputTokens: 7, searchUnits: 0, provenance: 'partial' } as unknown as Usage }));

  browser = await launch();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => { s.closeAllConnections(); return new Promise((r) => s.close(r)); }));
  servers = [];
  await gateway?.close();
  await upstream?.close();
});

it('an unauthenticated page redirects to sign-in; a bad token is refused; signing in by keyboard keeps the token out of storage and URLs', async () => {
  const context = await newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  const seen = watch(page);
  ops = { context, page, seen, origin, refusals: [401] }; // the bad token's
  sessions.push(ops);
  await page.goto(`${admin}/dashboard/#/keys`);
  expect(page.url()).toBe(`${admin}/dashboard/sign-in#/keys`); // the browser keeps the fragment
  await shot(page, 'sign-in');
  await page.getByLabel('Admin token').fill('not-the-token-0123456789');
  await page.keyboard.press('Enter');
  await page.getByRole('alert').filter({ hasText: 'That is not an admin token of this gateway.' }).waitFor();
  await page.getByLabel('Admin token').fill(OPS);
  await page.keyboard.press('Enter');
  await page.locator('main[data-view=overview]').waitFor();
  expect(page.url()).toBe(`${admin}/dashboard/`);
  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({ name: 'mgw_session', httpOnly: true, sameSite: 'Strict', path: '/admin', secure: false });
  expect(cookie?.expires).toBeGreaterThan(Date.now() / 1000);
  const stored = await page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie, location.href, history.length]));
  expect(stored).not.toContain(OPS);
  expect(stored).toContain('[{},{},""'); // nothing in storage; the session cookie is out of the page's reach
  expect(seen.requests.filter((u) => u.includes(OPS))).toEqual([]);
});

it('overview: charts of the traffic this test made, the error rate, open reviews, lowest balances', async () => {
  const { page } = ops;
  await open(page, 'overview');
  const log = store.getLog().filter((e) => e.callerId === 'acme');
  const failed = log.filter((e) => e.errorCode !== null || e.status >= 400).length;
  expect([log.length, failed]).toEqual([5, 2]);
  const chart = page.locator('[data-chart=requests-24h]');
  await expect(chart.locator('figcaption strong').textContent()).resolves.toBe('5 requests, 2 errors');
  const bars = await chart.locator('rect.requests').evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('data-value'))));
  expect([bars.length, bars.reduce((a, b) => a + b, 0)]).toEqual([24, 5]);
  expect(await chart.locator('rect.requests[data-value="0"]').count()).toBeLessThan(24);
  expect(await page.locator('[data-chart=requests-7d] rect.requests').count()).toBe(7);
  const charged = log.reduce((sum, e) => sum + e.charge, 0);
  await expect(page.locator('[data-chart=spend-24h] figcaption strong').textContent()).resolves.toMatch(new RegExp(`^${charged.toLocaleString('en-US')} units \\(cost [\\d.,]+\\)$`));
  await expect(page.locator('[data-stat=errors] strong').textContent()).resolves.toBe('40.0 %');
  await expect(page.locator('[data-stat=reviews] strong').textContent()).resolves.toBe('1');
  const balance = store.getBalance('acme').toLocaleString('en-US');
  expect(await page.locator('table tbody tr').allTextContents()).toEqual(['low250', `acme${balance}0`]);
  await shot(page, 'overview');
});

it('accounts: a top-up sent by a double click moves money once and shows a new ledger row; a debit by keyboard', async () => {
  const { page } = ops;
  await open(page, 'accounts');
  await page.getByLabel('Caller id').fill('acme');
  await page.getByRole('button', { name: 'Open' }).click();
  await page.locator('[data-figure=balance]').waitFor();
  const before = store.getBalance('acme');
  const rows = store.getLedger().length;
  await page.getByLabel('Amount').fill('2500');
  await page.getByRole('button', { name: 'Apply' }).dblclick();
  await page.getByRole('status').filter({ hasText: 'Applied: +2,500.' }).waitFor();
  await expect(page.locator('[data-figure=balance]').textContent()).resolves.toBe((before + 2500).toLocaleString('en-US'));
  await expect(page.locator('tbody tr').first().textContent()).resolves.toMatch(/credit\+2,500—$/);
  expect([store.getBalance('acme'), store.getLedger().length]).toEqual([before + 2500, rows + 1]);
  // By keyboard alone: the debit choice, the amount, Enter.
  await page.getByLabel('Debit').focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  await page.keyboard.type('500');
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Applied: -500.' }).waitFor();
  expect(store.getBalance('acme')).toBe(before + 2000);
  await shot(page, 'account');
  // A caller with no account yet (the page asks and is told 404): money moves only when the operator opens one.
  ops.refusals.push(404);
  await open(page, 'accounts/newcomer');
  await page.getByText('newcomer has no account yet').waitFor();
  await page.getByLabel('Amount').fill('300');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.locator('[data-figure=balance]').textContent()).resolves.toBe('300');
  expect(store.getBalance('newcomer')).toBe(300);
});

it('keys: created (the secret once, copied), used with the Anthropic SDK, disabled and enabled, rotated with a grace time, revoked after a confirmation', async () => {
  const { page } = ops;
  store.credit({ callerId: 'web', amount: 100_000, idempotencyKey: 'web-open', createAccount: true });
  await open(page, 'keys');
  await page.getByLabel('Caller id').fill('web');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.locator('#new-secret').inputValue();
  expect(secret).toMatch(/^sk-mgw-/);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied.').waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await shot(page, 'keys-created');
  expect((await ask(secret)).content[0]).toMatchObject({ type: 'text' });
  const [record] = (await store.listKeys({ callerId: 'web' })).items;
  const keyId = record?.keyId as string;

  await open(page, 'keys');
  const row = page.locator('tr', { hasText: keyId });
  await expect(row.locator('td').nth(5).textContent()).resolves.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/); // last used
  expect(await page.locator('#new-secret').count()).toBe(0); // gone for good
  await row.getByRole('button', { name: 'Disable' }).click();
  await row.getByText('disabled').waitFor();
  expect(await statusOf(ask(secret))).toBe(401);
  await row.getByRole('button', { name: 'Enable' }).click();
  await row.getByText('active').waitFor();
  expect(await statusOf(ask(secret))).toBe(200);

  await row.getByRole('button', { name: 'Rotate…' }).click();
  await page.getByLabel('The old secret keeps working for (minutes)').fill('30');
  await page.getByRole('button', { name: 'Rotate', exact: true }).click();
  await page.locator('[data-part=secret]').waitFor();
  const rotated = await page.locator('#new-secret').inputValue();
  expect(rotated).not.toBe(secret);
  expect([await statusOf(ask(secret)), await statusOf(ask(rotated))]).toEqual([200, 200]); // the old one until its grace time
  const newId = (await store.listKeys({ callerId: 'web' })).items[0]?.keyId as string;
  expect((await store.getKey(keyId))?.expiresAt).toBeGreaterThan(Date.now() + 29 * 60_000);

  await page.locator('tr', { hasText: newId }).getByRole('button', { name: 'Revoke…' }).click();
  await page.getByText('Calls with this key are refused at once.').waitFor();
  await page.getByRole('button', { name: 'Revoke', exact: true }).click();
  await page.getByRole('status').filter({ hasText: `${newId} is revoked.` }).waitFor();
  await expect(page.locator('tr', { hasText: newId }).locator('.status').textContent()).resolves.toBe('revoked');
  expect(await statusOf(ask(rotated))).toBe(401);
  await shot(page, 'keys');
});

it('requests: filtered to the failed request, with its usage breakdown, charge, latency, provenance and id; 10,000 rows paged 50 at a time', async () => {
  const { page } = ops;
  const failed = store.getLog().find((e) => e.model === 'claude-status-500') as RequestLogEntry;
  await open(page, 'requests');
  await page.getByLabel('Caller').fill('acme');
  await page.getByLabel('Status').fill(String(failed.status));
  await page.getByLabel('Billing').selectOption('not_billed');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/#\/requests\?callerId=acme&status=\d+&billingStatus=not_billed$/);
  await page.locator('main[data-view=requests] tbody tr').first().waitFor();
  expect(await page.locator('tbody tr').count()).toBe(1);
  await page.getByRole('link', { name: failed.requestId }).click();
  await expect(page.locator('[data-figure=request-id]').textContent()).resolves.toBe(failed.requestId);
  await shot(page, 'request-failed');

  await open(page, 'requests/req_breakdown');
  // Labelled from the gateway's one table of figures.
  const label = (name: keyof typeof USAGE_FIGURES) => USAGE_FIGURES[name].label.replace(/^./, (c) => c.toUpperCase());
  expect(await page.locator('tbody tr').allTextContents()).toEqual([
    `${label('inputTokens')}1,200`, `${label('cacheReadInputTokens')}300`, `${label('cacheWrite5mInputTokens')}40`, `${label('cacheWrite1hInputTokens')}60`,
    `${label('outputTokens')}500`, `${label('webSearchRequests')}2`, `${label('searchUnits')}0`,
  ]);
  expect(await page.locator('dl.facts').textContent()).toMatch(/Charge1,234Exact cost1234\.56789Latency842 msFirst byte120 ms/);
  await expect(page.locator('[data-figure=provenance]').textContent()).resolves.toBe('confirmed');
  await shot(page, 'request');
  await open(page, 'requests/req_older_shape');
  expect(await page.locator('tbody tr').allTextContents()).toContain('Cache-write input tokens (not split by duration)7');

  // Only one page at a time crosses the wire, however long the log.
  const pages: Array<{ url: string; items: number }> = [];
  page.on('response', async (r) => { if (r.url().includes('/admin/requests?')) pages.push({ url: r.url(), items: ((await r.json()) as { items: unknown[] }).items.length }); });
  await open(page, 'requests?callerId=bulk');
  await page.getByText('Page 1').waitFor();
  expect(await page.locator('tbody tr').count()).toBe(50);
  const first = await page.locator('tbody tr').first().textContent();
  await page.getByRole('button', { name: 'Next →' }).click();
  await page.getByText('Page 2').waitFor();
  expect(await page.locator('tbody tr').count()).toBe(50);
  expect(await page.locator('tbody tr').first().textContent()).not.toBe(first);
  expect(pages.map((p) => [new URL(p.url).searchParams.get('limit'), p.items])).toEqual([['50', 50], ['50', 50]]);
  expect(new URL(pages[1]?.url as string).searchParams.get('after')).toBeTruthy();
  page.removeAllListeners('response');
});

it('reviews: the stream cut mid-way is charged with a reason, once', async () => {
  const { page } = ops;
  const [review] = store.getReviews();
  await open(page, 'reviews');
  const card = page.locator(`[data-review="${review?.requestId}"]`);
  await card.getByLabel('Amount to charge').fill('7');
  await card.getByLabel('Reason').fill('The first delta reached the client.');
  await card.getByRole('button', { name: 'Resolve' }).click();
  await card.locator('[data-part=resolution]').filter({ hasText: 'Charged 7 by ops' }).waitFor();
  expect(await card.getByRole('button', { name: 'Resolve' }).count()).toBe(0);
  expect(store.getReviews()[0]?.resolution).toMatchObject({ action: 'charge', amount: 7, by: 'ops', reason: 'The first delta reached the client.' });
  expect(store.getLedger().filter((r) => r.kind === 'review')).toEqual([expect.objectContaining({ callerId: 'acme', amount: -7 })]);
  await shot(page, 'reviews');
  await open(page, 'reviews');
  await page.getByText('No open reviews').waitFor();
});

it('models: the live catalog with its prices; an edit applies, an invalid catalog is refused and the old one serves on', async () => {
  const { page } = ops;
  ops.refusals.push(400);
  await open(page, 'models');
  const row = page.locator('tr', { hasText: 'claude-json' });
  await expect(row.locator('.price-input').textContent()).resolves.toBe('300000');
  await row.getByRole('button', { name: 'Edit…' }).click();
  await page.getByLabel(/^Input tokens/).fill('310000.5');
  await page.getByRole('button', { name: 'Save catalog' }).click();
  await page.locator('tr', { hasText: 'claude-json' }).locator('.price-input').filter({ hasText: '310000.5' }).waitFor();
  expect(gateway.models.get().byId.get('claude-json')?.pricing?.input).toBe('310000.5');
  await shot(page, 'models');

  await page.locator('tr', { hasText: 'claude-json' }).getByRole('button', { name: 'Edit…' }).click();
  await page.getByLabel(/^Input tokens/).fill('a lot');
  await page.getByRole('button', { name: 'Save catalog' }).click();
  await page.getByRole('alert').filter({ hasText: 'models[0]' }).waitFor();
  expect(gateway.models.get().byId.get('claude-json')?.pricing?.input).toBe('310000.5');
  expect(await statusOf(ask('sk-browser-acme-0123456789abcdef'))).toBe(200);
});

it('audit: who changed what', async () => {
  const { page } = ops;
  await open(page, 'audit');
  const actions = await page.locator('tbody tr td:nth-child(3)').allTextContents();
  expect(new Set(actions)).toEqual(new Set(['credit', 'debit', 'key.create', 'key.disable', 'key.enable', 'key.rotate', 'key.revoke', 'review.charge', 'models.replace']));
  expect(new Set(await page.locator('tbody tr td:nth-child(2)').allTextContents())).toEqual(new Set(['ops']));
  await page.getByLabel('Target').fill('caller:acme');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/target=caller%3Aacme/);
  await page.locator('tbody tr').first().waitFor();
  expect(await page.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['debit', 'credit']);
  await shot(page, 'audit');
});

it('a read-only token sees every page, and the server refuses its writes even when the page is forced', async () => {
  const viewer = await signedIn(VIEWER);
  const { page } = viewer;
  viewer.refusals.push(403);
  for (const hash of ['keys', 'requests', 'reviews', 'models', 'audit']) await open(page, hash);
  await open(page, 'accounts/acme');
  const form = page.locator('form[data-form=credit]');
  expect(await form.getByRole('button', { name: 'Apply' }).isDisabled()).toBe(true);
  await form.getByText('Your token may only read').waitFor();
  await form.locator('fieldset').evaluate((fieldset) => fieldset.removeAttribute('disabled'));
  const before = store.getBalance('acme');
  await page.getByLabel('Amount').fill('999');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('alert').filter({ hasText: 'authorization: token "viewer" may only read.' }).waitFor();
  expect(store.getBalance('acme')).toBe(before);
  await shot(page, 'read-only');
  await viewer.context.close();
});

it('a form posted from another site, or another origin of this one, changes nothing; the page cannot be framed', async () => {
  const keyId = (await store.listKeys({ callerId: 'web' })).items[1]?.keyId as string;
  expect((await store.getKey(keyId))?.status).toBe('active');
  const attacker = await ops.context.newPage(); // the operator's own browser, signed in
  const post = async (site: string) => {
    await attacker.goto(`${site}/?action=${encodeURIComponent(`${admin}/keys/${keyId}/disable`)}`);
    const [res] = await Promise.all([attacker.waitForResponse(`${admin}/keys/${keyId}/disable`), attacker.getByRole('button', { name: 'Win a prize' }).click()]);
    return [res.status(), ((await res.json()) as { error: { type: string } }).error.type];
  };
  expect(await post(`http://evil.test:${attackerPort}`)).toEqual([401, 'authentication_error']); // cross-site: the cookie stays home
  expect(await post(`http://127.0.0.1:${attackerPort}`)).toEqual([403, 'permission_error']); // same site, other origin: no CSRF token
  expect((await store.getKey(keyId))?.status).toBe('active');
  await attacker.goto(`http://evil.test:${attackerPort}/frame?src=${encodeURIComponent(`${admin}/dashboard/sign-in`)}`);
  const frame = attacker.frames()[1];
  await attacker.locator('iframe').waitFor();
  expect(await frame?.locator('#token').count()).toBe(0);
  await attacker.close();
});

it('at phone width every page fits the screen, and every control has a label', async () => {
  const phone = await signedIn(OPS, admin, { width: 390, height: 844 });
  for (const hash of ['overview', 'accounts/acme', 'keys', 'requests', 'requests/req_breakdown', 'reviews?all=1', 'models', 'audit']) {
    await open(phone.page, hash);
    const [scrollWidth, width, unlabelled] = await phone.page.evaluate(() => [
      document.documentElement.scrollWidth, window.innerWidth,
      [...document.querySelectorAll('input, select, textarea')].filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label')).map((el) => el.outerHTML),
    ] as const);
    expect([hash, scrollWidth <= width, unlabelled]).toEqual([hash, true, []]);
    await shot(phone.page, `phone-${hash.replace(/[/?=]/g, '-')}`);
  }
  await phone.context.close();
});

it('sign-out ends the session on the server: the cookie is gone, a copy of it is refused', async () => {
  const { page, context } = ops;
  const [cookie] = await context.cookies();
  await open(page, 'overview');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${admin}/dashboard/sign-in`);
  expect(await context.cookies()).toEqual([]);
  const replayed = await fetch(`${admin}/keys`, { headers: { cookie: `mgw_session=${cookie?.value}` } });
  expect(replayed.status).toBe(401);
  await page.goto(`${admin}/dashboard/#/overview`);
  expect(page.url()).toBe(`${admin}/dashboard/sign-in#/overview`);
});

it('the binary serves the dashboard on its admin port: a key made there answers the SDK on the public port, and the overview counts it', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-dash-'));
  const adminPort = await listen(() => undefined).then(async (port) => { const s = servers.pop() as http.Server; await new Promise((r) => s.close(r)); return port; });
  writeFileSync(path.join(dir, 'gateway.yaml'), `
server: { port: 0 }
store: { type: memory }
upstreams: { fake: { type: anthropic, baseURL: "${upstream.url}", apiKey: "${UPSTREAM_KEY}" } }
models: [{ id: claude-json, capability: llm, upstream: fake, pricing: { input: 300000, output: 1500000 } }]
admin: { port: ${adminPort}, tokens: [{ name: ops, token: "${OPS}", access: write }] }
`);
  const child = spawn(process.execPath, [path.join(__dirname, '..', '..', 'bin', 'model-gateway.js'), 'serve', '--config', path.join(dir, 'gateway.yaml')]);
  let out = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { out += c.toString(); });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const line = await new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => { const m = /serving on (http:\/\/\S+)[\s\S]*dashboard: (http:\/\/\S+)\/dashboard\/ /.exec(out); if (m) resolve(m); };
      child.stdout.on('data', look);
      child.once('exit', () => reject(new Error(`serve exited: ${out}`)));
    });
    const [, publicUrl, at] = line as unknown as [string, string, string];
    expect(at).toBe(`http://127.0.0.1:${adminPort}/admin`);
    expect((await fetch(`${publicUrl}/admin/dashboard/sign-in`)).status).toBe(404); // the public port has no admin mount
    const binary = await signedIn(OPS, at);
    await open(binary.page, 'keys', at);
    await binary.page.getByLabel('Caller id').fill('bin');
    await binary.page.getByRole('button', { name: 'Create key' }).click();
    const secret = await binary.page.locator('#new-secret').inputValue();
    await open(binary.page, 'accounts/bin', at);
    await binary.page.getByLabel('Amount').fill('1000');
    await binary.page.getByRole('button', { name: 'Apply' }).click();
    await binary.page.getByRole('status').filter({ hasText: 'Applied: +1,000.' }).waitFor();
    const answer = await new Anthropic({ apiKey: secret, baseURL: publicUrl, maxRetries: 0 }).messages.create({ model: 'claude-json', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] });
    expect(answer.content[0]).toMatchObject({ type: 'text' });
    await open(binary.page, 'overview', at);
    await expect(binary.page.locator('[data-chart=requests-24h] figcaption strong').textContent()).resolves.toBe('1 requests, 0 errors');
    await shot(binary.page, 'binary-overview');
    await binary.context.close();
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});

it('no page logged an error (but the refusals the tests asked for) or asked another host for anything', () => {
  expect(sessions.length).toBe(4); // the operator, the viewer, the phone, the binary
  for (const s of sessions) {
    expect(s.seen.requests.filter((u) => new URL(u).origin !== s.origin)).toEqual([]);
    // Chromium logs each refused fetch or page load as a console error: those the tests made, and nothing else.
    const logged = s.seen.errors.map((e) => /^Failed to load resource: the server responded with a status of (\d{3}) /.exec(e)?.[1] ?? e);
    expect(logged.sort()).toEqual(s.refusals.map(String).sort());
  }
});
