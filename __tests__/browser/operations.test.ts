/** The operator's pages in Chromium, over traffic this file makes: overview, accounts, keys, reviews, models, audit. */
import { anthropic, itLeftNoTrace, OPS, statusOf, useDashboard, type Session } from './dashboard';
import { shot } from './browser';

const d = useDashboard();
const ACME = 'sk-browser-acme-0123456789abcdef';
let ops: Session;

beforeAll(async () => {
  // Three answers, one upstream failure, one stream cut mid-way (a review).
  d.store.addKey(ACME, { id: 'acme' });
  d.store.credit({ callerId: 'acme', amount: 1_000_000, idempotencyKey: 'acme-open' });
  for (let i = 0; i < 3; i++) await d.ask(ACME);
  expect(await statusOf(d.ask(ACME, 'claude-status-500'))).toBeGreaterThanOrEqual(500);
  const cut = async () => { for await (const _event of await anthropic(ACME, d.origin).messages.create({ model: 'claude-midstream-error', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'Hi' }] })); };
  await expect(cut()).rejects.toThrow();
  await expect(cut()).rejects.toThrow(); // two reviews: one to waive, one to charge
  d.store.credit({ callerId: 'low', amount: 25, idempotencyKey: 'low-open', createAccount: true });
  ops = await d.signedIn(OPS);
});

it('overview: charts of the traffic this test made, the error rate, open reviews, lowest balances', async () => {
  const { page } = ops;
  await d.open(page, 'overview');
  const log = d.store.getLog().filter((e) => e.callerId === 'acme');
  const failed = log.filter((e) => e.errorCode !== null || e.status >= 400).length;
  expect([log.length, failed]).toEqual([6, 3]);
  const chart = page.locator('[data-chart=requests-24h]');
  await expect(chart.locator('figcaption strong').textContent()).resolves.toBe('6 requests, 3 errors');
  const bars = await chart.locator('rect.requests').evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('data-value'))));
  expect([bars.length, bars.reduce((a, b) => a + b, 0)]).toEqual([24, 6]);
  expect(await chart.locator('rect.requests[data-value="0"]').count()).toBeLessThan(24);
  expect(await page.locator('[data-chart=requests-7d] rect.requests').count()).toBe(7);
  const charged = log.reduce((sum, e) => sum + e.charge, 0);
  await expect(page.locator('[data-chart=spend-24h] figcaption strong').textContent()).resolves.toMatch(new RegExp(`^${charged.toLocaleString('en-US')} minor units \\(cost [\\d.,]+\\)$`)); // the label by default
  await expect(page.locator('[data-stat=errors] strong').textContent()).resolves.toBe('50.0 %');
  await expect(page.locator('[data-stat=reviews] strong').textContent()).resolves.toBe('2');
  const balance = d.store.getBalance('acme').toLocaleString('en-US');
  expect(await page.locator('table tbody tr').allTextContents()).toEqual(['low250', `acme${balance}0`]);
  await shot(page, 'overview');
});

it('accounts: a top-up sent by a double click moves money once and shows a new ledger row; a debit by keyboard', async () => {
  const { page } = ops;
  await d.open(page, 'accounts');
  await page.getByLabel('Caller id').fill('acme');
  await page.getByRole('button', { name: 'Open' }).click();
  await page.locator('[data-figure=balance]').waitFor();
  const before = d.store.getBalance('acme');
  const rows = d.store.getLedger().length;
  await page.getByLabel('Amount').fill('2500');
  await page.getByRole('button', { name: 'Apply' }).dblclick();
  await page.getByRole('status').filter({ hasText: 'Applied: +2,500 minor units.' }).waitFor();
  await expect(page.locator('[data-figure=balance]').textContent()).resolves.toBe((before + 2500).toLocaleString('en-US'));
  await expect(page.locator('tbody tr').first().textContent()).resolves.toMatch(/credit\+2,500——$/); // a credit is for nothing and of no request
  expect([d.store.getBalance('acme'), d.store.getLedger().length]).toEqual([before + 2500, rows + 1]);
  // By keyboard alone: the debit choice, the amount, Enter.
  await page.getByLabel('Debit').focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  await page.keyboard.type('500');
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Applied: -500 minor units.' }).waitFor();
  expect(d.store.getBalance('acme')).toBe(before + 2000);
  await shot(page, 'account');
  // A caller with no account yet (the page asks and is told 404): money moves only when the operator opens one.
  ops.refusals.push(404);
  await d.open(page, 'accounts/newcomer');
  await page.getByText('newcomer has no account yet').waitFor();
  await page.getByLabel('Amount').fill('300');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.locator('[data-figure=balance]').textContent()).resolves.toBe('300');
  expect(d.store.getBalance('newcomer')).toBe(300);
});

it('keys: created (the secret once, copied), used with the Anthropic SDK, disabled and enabled, rotated with a grace time, revoked after a confirmation', async () => {
  const { page } = ops;
  d.store.credit({ callerId: 'web', amount: 100_000, idempotencyKey: 'web-open', createAccount: true });
  await d.open(page, 'keys');
  await page.getByLabel('Caller id').fill('web');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.locator('#new-secret').inputValue();
  expect(secret).toMatch(/^sk-mgw-/);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied.').waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await shot(page, 'keys-created');
  expect((await d.ask(secret)).content[0]).toMatchObject({ type: 'text' });
  const [record] = (await d.store.listKeys({ callerId: 'web' })).items;
  const keyId = record?.keyId as string;

  await d.open(page, 'keys');
  const row = page.locator('tr', { hasText: keyId });
  await expect(row.locator('td.col-last-used').textContent()).resolves.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  expect(await page.locator('#new-secret').count()).toBe(0); // gone for good
  await row.getByRole('button', { name: 'Disable' }).click();
  await row.getByText('disabled').waitFor();
  expect(await statusOf(d.ask(secret))).toBe(401);
  await row.getByRole('button', { name: 'Enable' }).click();
  await row.getByText('active').waitFor();
  expect(await statusOf(d.ask(secret))).toBe(200);

  await row.getByRole('button', { name: 'Rotate…' }).click();
  await page.getByLabel('The old secret keeps working for (minutes)').fill('30');
  await page.getByRole('button', { name: 'Rotate', exact: true }).click();
  await page.locator('[data-part=secret]').waitFor();
  const rotated = await page.locator('#new-secret').inputValue();
  expect(rotated).not.toBe(secret);
  expect([await statusOf(d.ask(secret)), await statusOf(d.ask(rotated))]).toEqual([200, 200]); // the old one until its grace time
  const newId = (await d.store.listKeys({ callerId: 'web' })).items[0]?.keyId as string;
  expect((await d.store.getKey(keyId))?.expiresAt).toBeGreaterThan(Date.now() + 29 * 60_000);

  await page.locator('tr', { hasText: newId }).getByRole('button', { name: 'Revoke…' }).click();
  await page.getByText('Calls with this key are refused at once.').waitFor();
  await page.getByRole('button', { name: 'Revoke', exact: true }).click();
  await page.getByRole('status').filter({ hasText: `${newId} is revoked.` }).waitFor();
  await expect(page.locator('tr', { hasText: newId }).locator('.status').textContent()).resolves.toBe('revoked');
  expect(await statusOf(d.ask(rotated))).toBe(401);
  await shot(page, 'keys');
});

it('a review and its request say why it was flagged, what its observed usage costs, and why its charge is not its exact cost', async () => {
  const { page } = ops;
  // Each cut stream confirmed 25 input tokens at 0.3: 7.5 exactly; the first settlement charged 7 and carried 0.5, the second 8.
  const [first, second] = d.store.getReviews();
  expect([first?.charge, second?.charge]).toEqual([7, 8]);
  await d.open(page, 'reviews');
  await expect(page.locator('[data-part=carry-note]').textContent()).resolves.toContain('charges the whole units and carries the rest to the caller\'s next request');
  const card = page.locator(`[data-review="${second?.requestId}"]`);
  await expect(card.locator('[data-figure=flagged]').textContent()).resolves.toBe('its stream ended before the upstream\'s final usage: only the figures it confirmed were charged');
  await expect(card.locator('[data-figure=review-detail]').textContent()).resolves.not.toBe('—');
  await expect(card.locator('[data-figure=observed-cost]').textContent()).resolves.toBe('7.5 minor units');
  await expect(card.locator('[data-figure=observed-charge]').textContent()).resolves.toBe('7 minor units');
  await expect(card.locator('[data-figure=outstanding]').textContent()).resolves.toBe('0 minor units');
  expect(await card.locator('dl.facts').first().textContent()).toContain('Charged so far8 minor units');

  await d.open(page, `requests/${second?.requestId}`);
  expect(await page.locator('dl.facts').first().textContent()).toContain('Charge8 minor unitsExact cost7.5 minor units');
  await expect(page.locator('[data-part=carry-note]').textContent()).resolves.toMatch(/^A charge is in whole minor units; an exact cost is not\. Each settlement adds its exact cost to the caller's carried remainder/);
  const review = page.locator('[data-part=review]');
  await expect(review.getByRole('link', { name: 'Flagged for review' }).count()).resolves.toBe(1);
  await expect(review.locator('[data-figure=observed-cost]').textContent()).resolves.toBe('7.5 minor units');
  await shot(page, 'request-flagged');
  // A request that was billed has no review section, and still the note.
  const billed = d.store.getLog().find((e) => e.callerId === 'acme' && e.billingStatus === 'billed');
  await d.open(page, `requests/${billed?.requestId}`);
  expect(await page.locator('[data-part=review]').count()).toBe(0);
  expect(await page.locator('[data-part=carry-note]').count()).toBe(1);
});

it('reviews: an empty amount waives one (the review charges 0), 7 is charged on the other, once; each resolved review shows its resolution', async () => {
  const { page } = ops;
  const [first, second] = d.store.getReviews().map((r) => r.requestId);
  const settled = d.store.getReviews()[0]?.charge as number; // what the settlement charged for the part confirmed: a waiver keeps it
  await d.open(page, 'reviews');
  const waived = page.locator(`[data-review="${first}"]`);
  await waived.getByText('empty or 0 waives it').waitFor();
  await waived.getByLabel('Reason').fill('Nothing reached the client.');
  await waived.getByRole('button', { name: 'Resolve' }).click();
  await waived.locator('[data-part=resolution]').filter({ hasText: 'Waived by ops' }).waitFor();
  const reviewOf = async (requestId: string | undefined) => ((await d.read('reviews?open=false')).items as Array<Record<string, unknown>>).find((r) => r.requestId === requestId);
  expect(await reviewOf(first)).toMatchObject({ charge: settled, resolution: { action: 'waive', amount: 0, by: 'ops', reason: 'Nothing reached the client.' } });
  expect(await d.read(`requests/${first}`)).toMatchObject({ billingStatus: 'waived', charge: settled });

  const charged = page.locator(`[data-review="${second}"]`);
  await charged.getByLabel('Amount to charge').fill('7');
  await charged.getByLabel('Reason').fill('The first delta reached the client.');
  await charged.getByRole('button', { name: 'Resolve' }).click();
  await charged.locator('[data-part=resolution]').filter({ hasText: 'Charged 7 minor units by ops' }).waitFor();
  expect(await charged.getByRole('button', { name: 'Resolve' }).count()).toBe(0);
  expect(await reviewOf(second)).toMatchObject({ resolution: { action: 'charge', amount: 7, by: 'ops', reason: 'The first delta reached the client.' } });
  expect(d.store.getLedger().filter((r) => r.kind === 'review')).toEqual([expect.objectContaining({ callerId: 'acme', amount: -7 })]);
  await shot(page, 'reviews');

  // Resolved, as the list shows them later: the decision and the total, not what the settlement charged.
  await d.open(page, 'reviews?all=1');
  expect(await page.locator(`[data-review="${first}"] dl.facts`).first().textContent()).toContain(`Resolutionwaived`);
  expect(await page.locator(`[data-review="${first}"] dl.facts`).first().textContent()).toContain(`Charged in all${settled} minor units`);
  expect(await page.locator(`[data-review="${second}"] dl.facts`).first().textContent()).toContain(`Resolutioncharged 7 minor units more`);
  expect(await page.getByText('Charged so far').count()).toBe(0);
  await d.open(page, 'reviews');
  await page.getByText('No open reviews').waitFor();
});

it('models: the live catalog with its prices and their source; an edit applies, an invalid catalog is refused and the old one serves on, a revert goes back to the configuration', async () => {
  const { page } = ops;
  ops.refusals.push(400);
  await d.open(page, 'models');
  const row = page.locator('tr', { hasText: 'claude-json' });
  await expect(row.locator('.price-input').textContent()).resolves.toBe('300000');
  await row.getByRole('button', { name: 'Edit…' }).click();
  await expect(row.locator('.price-cacheRead').textContent()).resolves.toBe('30000default'); // Anthropic's: a tenth of input
  await page.getByLabel(/^Input tokens/).fill('310000.5');
  await page.getByLabel(/^Cache-read input tokens/).fill('31000');
  await page.getByLabel('Agent-ready').check();
  await page.getByRole('button', { name: 'Save catalog' }).click();
  await page.locator('tr', { hasText: 'claude-json' }).locator('.price-input').filter({ hasText: '310000.5' }).waitFor();
  expect(d.gateway.models.get().byId.get('claude-json')).toMatchObject({ pricing: { input: '310000.5', output: 1_500_000, cacheRead: '31000' }, agentReady: true });
  await expect(page.locator('tr', { hasText: 'claude-json' }).textContent()).resolves.toMatch(/yes.*31000/); // agent-ready, cache read set
  await expect(page.locator('tr', { hasText: 'claude-json' }).getByTitle(/^configured: /).textContent()).resolves.toBe('runtime: pricing, agentReady');
  await expect(page.locator('tr', { hasText: 'claude-status-500' }).getByText('configured', { exact: true }).count()).resolves.toBe(1);
  await shot(page, 'models');

  await page.locator('tr', { hasText: 'claude-json' }).getByRole('button', { name: 'Edit…' }).click();
  await page.getByLabel(/^Input tokens/).fill('a lot');
  await page.getByRole('button', { name: 'Save catalog' }).click();
  await page.getByRole('alert').filter({ hasText: 'models[0]' }).waitFor();
  expect(d.gateway.models.get().byId.get('claude-json')?.pricing?.input).toBe('310000.5');
  expect(await statusOf(d.ask(ACME))).toBe(200);

  await page.locator('tr', { hasText: 'claude-json' }).getByRole('button', { name: 'Revert' }).click();
  await page.locator('tr', { hasText: 'claude-json' }).locator('.price-input').filter({ hasText: /^300000$/ }).waitFor();
  expect(d.gateway.models.get().byId.get('claude-json')).toMatchObject({ pricing: { input: 300_000, output: 1_500_000 } });
  expect(d.gateway.models.get().byId.get('claude-json')?.agentReady).toBeUndefined();
  expect(await page.locator('tr', { hasText: 'claude-json' }).getByRole('button', { name: 'Revert' }).count()).toBe(0);
});

it('audit: who changed what', async () => {
  const { page } = ops;
  await d.open(page, 'audit');
  const actions = await page.locator('tbody tr td:nth-child(3)').allTextContents();
  expect(new Set(actions)).toEqual(new Set(['credit', 'debit', 'key.create', 'key.disable', 'key.enable', 'key.rotate', 'key.revoke', 'review.waive', 'review.charge', 'models.replace', 'models.revert']));
  expect(new Set(await page.locator('tbody tr td:nth-child(2)').allTextContents())).toEqual(new Set(['ops']));
  await page.getByLabel('Target').fill('caller:acme');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/target=caller%3Aacme/);
  await page.locator('tbody tr').first().waitFor();
  expect(await page.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['debit', 'credit']);
  await shot(page, 'audit');
});

itLeftNoTrace(d, 1);
