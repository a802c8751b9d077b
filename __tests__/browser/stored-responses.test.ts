/** Stored responses in the dashboard, in Chromium: a request's page shows its response (stored or why not, chained from), an account's are erased after a confirmation. */
import { randomBytes } from 'node:crypto';
import { type NewResponse } from '../../lib';
import { responseExpiry } from '../../lib/stores/responses';
import { itLeftNoTrace, OPS, VIEWER, useDashboard, type Session } from './dashboard';
import { shot } from './browser';

const d = useDashboard();
const KEY = 'sk-browser-stored-0123456789abcdef';
let ops: Session;

const stored = (callerId: string, requestId: string, previousResponseId: string | null = null): NewResponse => {
  const id = `resp_${randomBytes(8).toString('hex')}`;
  const now = Date.now();
  return {
    id, callerId, requestId, model: 'claude-json', upstream: 'anthropic', upstreamResponseId: null, previousResponseId,
    response: { id, object: 'response', status: 'completed', output: [] }, inputItems: [{ role: 'user', content: 'Hi' }], instructions: null, tools: [],
    usage: null, createdAt: now, expiresAt: responseExpiry(now, 30),
  };
};

beforeAll(async () => {
  d.store.addKey(KEY, { id: 'keeper' });
  d.store.credit({ callerId: 'keeper', amount: 1_000_000, idempotencyKey: 'keeper-open' });
  ops = await d.signedIn(OPS);
});

it("a request's page shows the response it made: its id, stored or why not, and what it chained from", async () => {
  // Two requests through the gateway; the Responses route's notes of them, as it will write them.
  await d.ask(KEY);
  await d.ask(KEY);
  const [first, second] = d.store.getLog().filter((e) => e.callerId === 'keeper').map((e) => e.requestId) as [string, string];
  const made = stored('keeper', first);
  expect(d.store.responses.putResponse(made, { maxBytes: 1_048_576 })).toEqual({ stored: true });
  d.store.responses.noteResponse({ requestId: second, responseId: 'resp_unstored', callerId: 'keeper', stored: false, reason: 'not_requested', previousResponseId: made.id });
  const { page } = ops;
  await d.open(page, `requests/${first}`);
  await expect(page.locator('[data-figure=response-id]').textContent()).resolves.toBe(made.id);
  await expect(page.locator('[data-figure=stored]').textContent()).resolves.toBe('stored');
  await d.open(page, `requests/${second}`);
  await expect(page.locator('[data-figure=stored]').textContent()).resolves.toBe('not stored (the request said store: false)');
  await expect(page.locator('[data-figure=previous-response-id]').textContent()).resolves.toBe(made.id);
  await shot(page, 'request-response');
  // A request that made no response shows no such lines.
  await d.ask(KEY);
  const plain = d.store.getLog().at(-1)?.requestId as string;
  await d.open(page, `requests/${plain}`);
  await page.locator('[data-figure=request-id]').waitFor();
  expect(await page.locator('[data-figure=response-id]').count()).toBe(0);
  expect(await page.getByText('Chained from').count()).toBe(0);
});

it("an account's stored responses are deleted after a confirmation (a cancel deletes nothing); the audit trail has the count", async () => {
  const rs = d.store.responses;
  const mine = [stored('keeper', 'req_b1'), stored('keeper', 'req_b2')];
  const theirs = stored('neighbour', 'req_b3');
  for (const r of [...mine, theirs]) rs.putResponse(r, { maxBytes: 1_048_576 });
  const { page } = ops;
  await d.open(page, 'accounts/keeper');
  await page.getByRole('button', { name: 'Delete stored responses…' }).click();
  await page.getByText('Delete every stored response of keeper?').waitFor();
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(mine.every((r) => rs.getResponse('keeper', r.id))).toBe(true);
  await page.getByRole('button', { name: 'Delete stored responses…' }).click();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Deleted 3 stored responses.' }).waitFor(); // the one of the test before too
  expect(mine.map((r) => rs.getResponse('keeper', r.id))).toEqual([undefined, undefined]);
  expect(rs.getResponse('neighbour', theirs.id)).toMatchObject({ id: theirs.id });
  await shot(page, 'account-responses-deleted');
  expect((await d.read(`audit?target=${encodeURIComponent('caller:keeper')}`)).items).toEqual([
    expect.objectContaining({ actor: 'ops', action: 'responses.delete', after: { deleted: 3 } }),
  ]);
});

it('a read-only session sees the button disabled', async () => {
  const viewer = await d.signedIn(VIEWER);
  await d.open(viewer.page, 'accounts/keeper');
  expect(await viewer.page.getByRole('button', { name: 'Delete stored responses…' }).isDisabled()).toBe(true);
});

itLeftNoTrace(d, 2);
