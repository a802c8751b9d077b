/** The request log in Chromium: filters, one request in full (usage breakdowns old and new), 10,000 rows a page at a time; every page at phone width. */
import { USAGE_FIGURES } from '../../lib/billing/figures';
import type { RequestLogEntry, Usage } from '../../lib';
import { itLeftNoTrace, OPS, statusOf, useDashboard, type Session } from './dashboard';
import { shot } from './browser';

const d = useDashboard();
const DAY = 86_400_000;
let ops: Session;

beforeAll(async () => {
  const acme = 'sk-browser-acme-0123456789abcdef';
  d.store.addKey(acme, { id: 'acme' });
  d.store.credit({ callerId: 'acme', amount: 1_000_000, idempotencyKey: 'acme-open' });
  await d.ask(acme);
  expect(await statusOf(d.ask(acme, 'claude-status-500'))).toBeGreaterThanOrEqual(500);
  // A month-old log of 10,000 requests, and two with the usage breakdowns old and new rows hold.
  const row = (requestId: string, startedAt: number, extra: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
    requestId, callerId: 'bulk', endpoint: 'messages', model: 'claude-json', stream: false, status: 200, errorCode: null, usage: null, cost: '0', charge: 0,
    billingStatus: 'billed', startedAt, durationMs: 12, ttfbMs: null, upstream: 'anthropic', detail: null, user: null, attempts: [], ...extra,
  });
  const old = Date.now() - 30 * DAY;
  for (let i = 0; i < 10_000; i++) d.store.appendLog(row(`req_bulk_${String(i).padStart(5, '0')}`, old + i));
  const breakdown: Usage = { inputTokens: 1200, cacheReadInputTokens: 300, cacheWrite5mInputTokens: 40, cacheWrite1hInputTokens: 60, outputTokens: 500, webSearchRequests: 2, searchUnits: 0, provenance: 'confirmed' };
  d.store.appendLog(row('req_breakdown', old + 20_000, { usage: breakdown, cost: '1234.56789', charge: 1234, durationMs: 842, ttfbMs: 120 }));
  // A row kept before cache writes were split by duration holds their total only.
  const unsplit = { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 0, cacheCreationInputTokens: 7, searchUnits: 0, provenance: 'partial' };
  d.store.appendLog(row('req_older_shape', old + 20_001, { usage: unsplit as unknown as Usage }));
  ops = await d.signedIn(OPS);
});

it('requests: filtered to the failed request, with its usage breakdown, charge, latency, provenance and id; 10,000 rows paged 50 at a time', async () => {
  const { page } = ops;
  const failed = d.store.getLog().find((e) => e.model === 'claude-status-500') as RequestLogEntry;
  await d.open(page, 'requests');
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

  await d.open(page, 'requests/req_breakdown');
  // Labelled from the gateway's one table of figures.
  const label = (name: keyof typeof USAGE_FIGURES) => USAGE_FIGURES[name].label.replace(/^./, (c) => c.toUpperCase());
  expect(await page.locator('tbody tr').allTextContents()).toEqual([
    `${label('inputTokens')}1,200`, `${label('cacheReadInputTokens')}300`, `${label('cacheWrite5mInputTokens')}40`, `${label('cacheWrite1hInputTokens')}60`,
    `${label('outputTokens')}500`, `${label('webSearchRequests')}2`, `${label('searchUnits')}0`,
  ]);
  expect(await page.locator('dl.facts').textContent()).toMatch(/Charge1,234 minor unitsExact cost1,234\.56789 minor unitsLatency842 msFirst byte120 ms/);
  await expect(page.locator('[data-figure=provenance]').textContent()).resolves.toBe('confirmed');
  await shot(page, 'request');
  await d.open(page, 'requests/req_older_shape');
  expect(await page.locator('tbody tr').allTextContents()).toContain('Cache-write input tokens (not split by duration)7');

  // A time range: the month-old rows are outside the last day.
  await d.open(page, 'requests?callerId=bulk');
  await page.locator('tbody tr').first().waitFor();
  await page.getByLabel('From').fill(new Date(Date.now() - DAY - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16));
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No request matches.').waitFor();
  expect(page.url()).toMatch(/callerId=bulk&from=\d{13}$/);

  // Only one page at a time crosses the wire, however long the log.
  const pages: Array<{ url: string; items: number }> = [];
  page.on('response', async (r) => { if (r.url().includes('/admin/requests?')) pages.push({ url: r.url(), items: ((await r.json()) as { items: unknown[] }).items.length }); });
  await d.open(page, 'requests?callerId=bulk');
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

it('at phone width every page fits the screen, and every control has a label', async () => {
  const phone = await d.signedIn(OPS, d.admin, { viewport: { width: 390, height: 844 } });
  for (const hash of ['overview', 'accounts/acme', 'keys', 'requests', 'requests/req_breakdown', 'reviews?all=1', 'models', 'audit']) {
    await d.open(phone.page, hash);
    const [scrollWidth, width, unlabelled] = await phone.page.evaluate(() => [
      document.documentElement.scrollWidth, window.innerWidth,
      [...document.querySelectorAll('input, select, textarea')].filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label')).map((el) => el.outerHTML),
    ] as const);
    expect([hash, scrollWidth <= width, unlabelled]).toEqual([hash, true, []]);
    await shot(phone.page, `phone-${hash.replace(/[/?=]/g, '-')}`);
  }
  await phone.context.close();
});

itLeftNoTrace(d, 2);
