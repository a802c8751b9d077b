/** What the dashboard shows, in Chromium: its tables whole at 1280 and 800 px, a key's grants (set, shown, edited), money with the configured label, chart axes with dates and the time zone. */
import type { Page } from 'playwright-core';
import { anthropicAdapter, createAdminRouter, failover, MemoryStore, openaiChatAdapter, type ModelEntry } from '../../lib';
import { itLeftNoTrace, OPS, statusOf, useDashboard } from './dashboard';
import { shot } from './browser';

const d = useDashboard({ currency: 'USD cents' });
const ACME = 'sk-browser-acme-0123456789abcdef';
const TEAM = 'sk-browser-team-0123456789abcdef';
const ZONE = 'Asia/Tehran'; // UTC+03:30 all year: its hours start at :30 UTC, so a UTC label would be wrong
const grantsOf = ({ models, limits, metadata }: Record<string, unknown>) => ({ models, limits, metadata });

beforeAll(async () => {
  d.store.addKey(ACME, { id: 'acme' });
  d.store.credit({ callerId: 'acme', amount: 1_000_000, idempotencyKey: 'acme-open' });
  // Names as long as real ones: a dated model id served under another upstream name, a caller named for its team.
  const live = d.gateway.models;
  const json = live.get().byId.get('claude-json') as ModelEntry;
  // A failover group across formats, each member with its own model, one with its own prices; names besides its id.
  const flagship = failover([
    { upstream: anthropicAdapter({ baseURL: d.upstream.url, name: 'claude-eu' }), upstreamModel: 'claude-sonnet-4-5', pricing: { input: 300_000, output: 1_500_000 } },
    { upstream: openaiChatAdapter({ baseURL: d.upstream.url, name: 'gpt-us' }), upstreamModel: 'gpt-5.1' },
  ]);
  live.replace([...live.get().models.map((m) => (m.id === 'claude-json' ? { ...m, maxOutputTokens: 16_384 } : m)),
    { ...json, id: 'acme-large-reasoning-2026-01-15', upstreamModel: 'claude-json', maxOutputTokens: 64_000, pricing: { input: 300_000, output: 1_500_000, cacheRead: 30_000, cacheWrite5m: 375_000, cacheWrite1h: 600_000, webSearch: 1_000_000 } },
    { id: 'flagship', capability: 'llm', upstream: flagship, pricing: { input: 125_000, output: 1_000_000 }, aliases: ['flagship-2026-01'], patterns: ['flagship-*'] }]);
  d.store.addKey(TEAM, { id: 'search-team-production-eu' });
  const [team] = d.store.listKeys({ callerId: 'search-team-production-eu' }).items;
  d.store.updateKey(team?.keyId as string, { metadata: { team: 'search', owner: 'ana.lopez@example.com', cost_center: 'eu-4711' } });
  d.store.credit({ callerId: 'search-team-production-eu', amount: 1_000_000, idempotencyKey: 'team-open' });
  for (let i = 0; i < 2; i++) await d.ask(ACME);
  await d.ask(TEAM, 'acme-large-reasoning-2026-01-15');
  expect(await statusOf(d.ask(ACME, 'claude-status-500'))).toBeGreaterThanOrEqual(500);
  // A charge for every figure at once, as an agent's cached turn with a web search leaves in the ledger.
  d.store.settle({
    requestId: 'req_0123456789abcdef0123456789abcdef', callerId: 'acme', model: 'acme-large-reasoning-2026-01-15', endpoint: 'messages', cost: '1234.5', billingStatus: 'billed',
    usage: { inputTokens: 1_200, cacheReadInputTokens: 30_000, cacheWrite5mInputTokens: 4_000, cacheWrite1hInputTokens: 6_000, outputTokens: 1_500, webSearchRequests: 2, searchUnits: 0, provenance: 'confirmed' },
  });
});

/** How many lines of text each body row of the page's first table holds in `column`, and in its tallest cell (the row's lines). */
function linesPerRow(page: Page, column: string): Promise<Array<{ cell: number; row: number }>> {
  return page.evaluate((column) => {
    const table = document.querySelector('main table') as HTMLTableElement;
    const at = [...table.tHead?.rows[0]?.cells ?? []].findIndex((th) => th.textContent?.startsWith(column));
    // The lines a cell's text takes: the tops of its text's line boxes, those within 4 px of each other one line (fonts differ in a cell).
    const lines = (cell: Element): number => {
      const tops: number[] = [];
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        tops.push(...[...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top));
      }
      return tops.sort((a, b) => a - b).filter((top, i) => i === 0 || top - (tops[i - 1] as number) > 4).length;
    };
    return [...table.tBodies[0]?.rows ?? []].map((row) => ({ cell: lines(row.cells[at] as Element), row: Math.max(...[...row.cells].map(lines)) }));
  }, column);
}

/** Headings of the page's first table whose text is wider than their cell (cut off). */
function cutHeadings(page: Page): Promise<string[]> {
  return page.evaluate(() => [...document.querySelectorAll('main table thead th')].filter((th) => th.scrollWidth > th.clientWidth + 0.5).map((th) => th.textContent ?? ''));
}

/**
 * Where the named columns (heading and every cell) and buttons fall short of being seen: each must
 * lie wholly inside the viewport and be what the browser shows at its centre, so neither a column
 * scrolled away inside its table nor one under another cell passes. Only the page scrolls, and only
 * down: a sideways scroll of a table would bring a hidden column into view.
 */
function unseen(page: Page, columns: string[], buttons: string[]): Promise<string[]> {
  return page.evaluate(([columns, buttons]) => {
    const table = document.querySelector('main table') as HTMLTableElement;
    const headings = [...table.tHead?.rows[0]?.cells ?? []];
    const named: Array<[string, Element]> = [];
    for (const column of columns) {
      const at = headings.findIndex((th) => th.textContent?.startsWith(column));
      if (at < 0) return [`no column "${column}"`];
      named.push([column, headings[at] as Element], ...[...table.tBodies[0]?.rows ?? []].map((row, i): [string, Element] => [`${column}, row ${i + 1}`, row.cells[at] as Element]));
    }
    for (const name of buttons) {
      const found = [...table.querySelectorAll('button')].filter((b) => b.textContent === name);
      if (found.length === 0) return [`no button "${name}"`];
      named.push(...found.map((b, i): [string, Element] => [`${name} ${i + 1}`, b]));
    }
    const width = document.documentElement.clientWidth;
    return named.flatMap(([what, el]) => {
      window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 80);
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (r.width === 0 || r.left < 0 || r.right > width + 0.5 || r.top < 0 || r.bottom > window.innerHeight) return [`${what}: at ${Math.round(r.left)}–${Math.round(r.right)} of ${width} px`];
      return hit && el.contains(hit) ? [] : [`${what}: covered by ${hit?.outerHTML.slice(0, 60)}`];
    });
  }, [columns, buttons] as const);
}

describe.each([1280, 800])('at %i px', (width) => {
  let page: Page;
  beforeAll(async () => { ({ page } = await d.signedIn(OPS, d.admin, { viewport: { width, height: 800 } })); });

  it('the models table shows Max output and every Edit button (at 1280 px, every price and the source too)', async () => {
    await d.open(page, 'models');
    const prices = ['input', 'cacheRead', 'cacheWrite5m', 'cacheWrite1h', 'output', 'webSearch', 'searchUnit', 'Source'];
    expect(await unseen(page, ['Model', 'Max output', ...(width >= 1280 ? prices : [])], ['Edit…'])).toEqual([]);
    await shot(page, `models-${width}`);
  });

  it('the request log shows status, billing and charge', async () => {
    await d.open(page, 'requests');
    expect(await unseen(page, ['Time', 'Request', 'Status', 'Billing', 'Charge'], [])).toEqual([]);
    await shot(page, `requests-${width}`);
  });

  it('the keys show every column, their headings whole, and every action', async () => {
    await d.open(page, 'keys');
    await shot(page, `keys-${width}`);
    expect(await unseen(page, ['Key', 'Caller', 'Status', 'Models', 'Limits', 'Metadata', 'Last used'], ['Edit…', 'Disable', 'Rotate…', 'Revoke…'])).toEqual([]);
    expect(await cutHeadings(page)).toEqual([]);
  });

  it('the account ledger keeps each row to a few lines: what a charge was for, whole, beside its request', async () => {
    await d.open(page, 'accounts/acme');
    await shot(page, `ledger-${width}`);
    expect(await unseen(page, ['Time', 'Kind', 'Amount', 'For', 'Request'], [])).toEqual([]);
    expect(await cutHeadings(page)).toEqual([]);
    const lines = await linesPerRow(page, 'For');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    // Every figure of a charge at once (the newest row) in at most 3 lines; the other rows, two figures or none, in one.
    expect(lines[0]?.row).toBeLessThanOrEqual(3);
    expect(lines.slice(1).map((l) => l.row)).toEqual(lines.slice(1).map(() => 1));
  });
});

it('keys: created with models, limits and metadata, shown in the list, edited; the admin API holds each change', async () => {
  const { page } = await d.signedIn(OPS);
  d.store.credit({ callerId: 'grants', amount: 100_000, idempotencyKey: 'grants-open', createAccount: true });
  await d.open(page, 'keys');
  const create = page.locator('form[data-form=create-key]');
  await create.getByLabel('Caller id').fill('grants');
  await create.getByLabel('Models').fill('claude-json, claude-status-500');
  await create.getByLabel('Requests per minute (rpm)').fill('60');
  await create.getByLabel('Tokens per minute (tpm)').fill('100000');
  await create.getByLabel('Requests at once (concurrency)').fill('2');
  await create.getByLabel('Metadata').fill('team=search\nowner = ana@example.com\n');
  await create.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.locator('#new-secret').inputValue();
  const keyId = (await d.store.listKeys({ callerId: 'grants' })).items[0]?.keyId as string;
  expect(grantsOf(await d.read(`keys/${keyId}`))).toEqual({
    models: ['claude-json', 'claude-status-500'], limits: { rpm: 60, tpm: 100_000, concurrency: 2 }, metadata: { team: 'search', owner: 'ana@example.com' },
  });
  const row = page.locator('tr', { hasText: keyId });
  expect(await row.locator('td.col-models, td.col-limits, td.col-metadata').allTextContents())
    .toEqual(['claude-jsonclaude-status-500', 'rpm 60tpm 100,000concurrency 2', 'team=searchowner=ana@example.com']);
  expect((await d.ask(secret)).content[0]).toMatchObject({ type: 'text' });

  // Edited: the form holds what the key has; an empty field clears its limit, a malformed line is refused before anything is sent.
  await row.getByRole('button', { name: 'Edit…' }).click();
  const edit = page.locator('form[data-form=edit-key]');
  expect([await edit.getByLabel('Models').inputValue(), await edit.getByLabel('Requests per minute (rpm)').inputValue(), await edit.getByLabel('Metadata').inputValue()])
    .toEqual(['claude-json, claude-status-500', '60', 'team=search\nowner=ana@example.com']);
  await edit.getByLabel('Models').fill('claude-json');
  await edit.getByLabel('Requests per minute (rpm)').fill('');
  await edit.getByLabel('Tokens per minute (tpm)').fill('5000');
  await edit.getByLabel('Metadata').fill('team infra');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.getByRole('alert').filter({ hasText: 'Metadata, line 1: write name=value.' }).waitFor();
  await edit.getByLabel('Metadata').fill('team=infra');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: `${keyId} is saved.` }).waitFor();
  expect(grantsOf(await d.read(`keys/${keyId}`))).toEqual({ models: ['claude-json'], limits: { tpm: 5000, concurrency: 2 }, metadata: { team: 'infra' } });
  expect(await row.locator('td.col-models, td.col-limits, td.col-metadata').allTextContents()).toEqual(['claude-json', 'tpm 5,000concurrency 2', 'team=infra']);
  expect(await statusOf(d.ask(secret, 'claude-status-500'))).toBe(404); // no longer its model
  await shot(page, 'keys-grants');

  // Cleared: every grant back to the gateway's defaults.
  await row.getByRole('button', { name: 'Edit…' }).click();
  for (const label of ['Models', 'Tokens per minute (tpm)', 'Requests at once (concurrency)', 'Metadata']) await edit.getByLabel(label).fill('');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: `${keyId} is saved.` }).waitFor();
  expect(grantsOf(await d.read(`keys/${keyId}`))).toEqual({ models: null, limits: null, metadata: null });
  expect(await row.locator('td.col-models, td.col-limits, td.col-metadata').allTextContents()).toEqual(['every model', 'defaults', '—']);
  await page.context().close();
});

it("models: a failover group shows each member with the model it is sent and its prices in effect (what a request it serves is charged); a model's names, edited", async () => {
  const { page, context } = await d.signedIn(OPS);
  await d.open(page, 'models');
  const row = page.locator('tr', { hasText: 'flagship' });
  expect(await row.locator('td').first().locator('code, small').allTextContents()).toEqual(['flagship', 'flagship-2026-01', 'flagship-*']);
  expect(await row.locator('td').nth(2).locator('small').allTextContents()).toEqual(['claude-eu (claude-sonnet-4-5)', 'gpt-us (gpt-5.1)']);
  // Each member's price in effect, the member beneath: the admin API's, which bills its requests; no model-wide price at 1 × input.
  const view = ((await d.read('models')).items as Array<{ id: string; prices: unknown; members: Array<{ upstream: string; prices: Record<string, string> }> }>).find((m) => m.id === 'flagship');
  expect(view?.prices).toBeNull();
  for (const key of ['input', 'cacheRead', 'cacheWrite5m', 'output']) {
    const cells = await row.locator(`td.price-${key} .member-price`).allTextContents();
    expect(cells).toEqual(view?.members.map((m) => `${m.prices[key]}${m.upstream}`));
  }
  // A member's price that is its format's default is muted, and says so in its tooltip.
  expect(await row.locator('td.price-cacheRead .member-price').evaluateAll((cells) => cells.map((c) => c.getAttribute('title')))).toEqual(['claude-eu: not set, the default of its format', 'gpt-us: not set, the default of its format']);
  expect(await row.locator('td.price-input .member-price').allTextContents()).toEqual(['300000claude-eu', '125000gpt-us']);

  await row.getByRole('button', { name: 'Edit…' }).click();
  await page.getByText('Failover members with prices of their own keep them (claude-eu)').waitFor();
  await page.getByLabel('Other names (aliases)').fill('flagship-2026-01, flagship-eu');
  await page.getByRole('button', { name: 'Save catalog' }).click();
  await page.locator('tr', { hasText: 'flagship-eu' }).waitFor();
  expect(d.gateway.models.get().byId.get('flagship')?.aliases).toEqual(['flagship-2026-01', 'flagship-eu']);
  const answer = await d.ask(ACME, 'flagship-eu');
  expect(answer.model).toBe('flagship-eu');
  await shot(page, 'models-failover');
  await context.close();
});

it('money carries the configured label: cards, charts, balances, the ledger, the log, prices', async () => {
  const { page, context } = await d.signedIn(OPS);
  await d.open(page, 'overview');
  await expect(page.locator('[data-stat=charged] strong').textContent()).resolves.toMatch(/^[\d,]+ USD cents$/);
  await expect(page.locator('[data-chart=spend-24h] figcaption strong').textContent()).resolves.toMatch(/^[\d,]+ USD cents \(cost [\d.,]+\)$/);
  await d.open(page, 'accounts/acme');
  await expect(page.locator('dl.facts div').first().textContent()).resolves.toMatch(/^Balance[\d,]+ USD cents$/);
  await expect(page.locator('thead th').filter({ hasText: 'Amount' }).textContent()).resolves.toBe('AmountUSD cents');
  await d.open(page, 'requests');
  await expect(page.locator('thead th').filter({ hasText: 'Charge' }).textContent()).resolves.toBe('ChargeUSD cents');
  const [answered] = d.store.getLog().filter((e) => e.model === 'claude-json');
  await d.open(page, `requests/${answered?.requestId}`);
  await expect(page.locator('[data-figure=charge]').textContent()).resolves.toBe(`${answered?.charge.toLocaleString('en-US')} USD cents`);
  await d.open(page, 'models');
  await expect(page.locator('[data-part=units]').textContent()).resolves.toMatch(/^Prices in USD cents per million tokens \(webSearch: per 1,000 requests; searchUnit: per 1,000 search units\); "default": not set, the upstream format's default in effect; "review": not set, that usage is flagged for review\./);
  await shot(page, 'currency-account');
  await context.close();
});

it(`chart axes carry the date of their first and last bars and the browser's time zone (${ZONE})`, async () => {
  const { page, context } = await d.signedIn(OPS, d.admin, { timezoneId: ZONE });
  await d.open(page, 'overview');
  // "2026-11-24 17:00" in the zone, as Swedish writes dates.
  const local = (ms: number): string => new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(ms);
  for (const [chart, label, starts] of [['requests-24h', local, ':00'], ['spend-7d', (ms: number) => local(ms).slice(0, 10), ' 00:00']] as const) {
    const bars = await page.locator(`[data-chart=${chart}] g`).evaluateAll((gs) => gs.map((g) => Number(g.getAttribute('data-at'))));
    expect(bars.map(local).filter((t) => !t.endsWith(starts))).toEqual([]); // the zone's own hours and days
    const axis = await page.locator(`[data-chart=${chart}] .axis span`).allTextContents();
    expect([axis[0], axis[2]]).toEqual([label(bars[0] as number), label(bars[bars.length - 1] as number)]);
    await expect(page.locator(`[data-chart=${chart}] .legend`).textContent()).resolves.toContain(`Times in ${ZONE} (UTC+03:30)`);
  }
  await shot(page, 'overview-zone');
  await context.close();
});

it('the label is checked when the router is made', () => {
  const make = (currency: unknown) => () => createAdminRouter({ store: new MemoryStore(), tokens: [{ name: 'ops', token: OPS, access: 'write' }], currency: currency as string });
  for (const bad of ['', '   ', 'x'.repeat(41), 'USD\ncents', 7]) expect(make(bad)).toThrow('createAdminRouter: option "currency" must be a label of 1 to 40 printable characters');
  expect(make('€ cents')).not.toThrow();
});

itLeftNoTrace(d, 6);
