/**
 * What an instance of one release does with the store while an instance of another serves beside
 * it on the same schema: every gateway, admin and CLI operation, each step written by one and
 * checked through the other. Returns the steps that failed, so a test can say which break.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { PostgresStore, RequestLogEntry, Settlement } from '../../lib';
import { usageOf } from './usage';

/** A step of the exercise that failed, and why (the error's message). */
export interface StepFailure {
  step: string;
  error: string;
}

/** The store of any release tested: the operations below exist, with these shapes, on each. */
export type AnyReleaseStore = PostgresStore;

const hash = (key: string): string => createHash('sha256').update(key).digest('hex');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const usage = usageOf({ inputTokens: 10, outputTokens: 5 });

/** Throws, showing both, unless `actual` equals `expected` (deep, strict). */
function same(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/**
 * Runs every step with `older` (the release under test) and `newer` (the code serving beside it),
 * in order; a step that fails is recorded and the next runs. The money checks are exact, so a
 * failed write also fails the steps that count on it.
 */
export async function exercise(older: AnyReleaseStore, newer: AnyReleaseStore): Promise<StepFailure[]> {
  const failures: StepFailure[] = [];
  const step = async (name: string, body: () => Promise<void>): Promise<void> => {
    try {
      await body();
    } catch (err) {
      failures.push({ step: name, error: err instanceof Error ? err.message : String(err) });
    }
  };
  const tag = randomBytes(4).toString('hex');
  const [a, b] = [`ca_${tag}`, `cb_${tag}`];
  const [keyA, keyB] = [`sk-a-${tag}-${'x'.repeat(24)}`, `sk-b-${tag}-${'x'.repeat(24)}`];
  const r = (n: number): string => `req_${tag}_${n}`;
  const later = (): number => Date.now() + 60_000;
  const settlement = (requestId: string, cost: string, billingStatus: Settlement['billingStatus'] = 'billed'): Settlement =>
    ({ requestId, callerId: a, model: 'm', endpoint: 'messages', cost, billingStatus, usage });
  const entry = (requestId: string, charge: number, cost: string): RequestLogEntry => ({
    requestId, callerId: a, endpoint: 'messages', model: 'm', stream: false, status: 200, errorCode: null, usage, cost, charge,
    billingStatus: 'billed', startedAt: Date.now(), durationMs: 12, ttfbMs: null, upstream: 'fake', detail: null, user: null, attempts: [],
  });
  const account = async (store: AnyReleaseStore, id: string): Promise<unknown> => store.getAccount(id);

  await step('migrate', async () => same(await older.migrate(), [], 'versions applied by the older release at its start'));
  await step('ready', async () => { await older.ready(); });
  await step('addKey, credit', async () => {
    await older.addKey(keyB, { id: b });
    same((await older.credit({ callerId: b, amount: 1000, idempotencyKey: `open-${b}` })).applied, true, 'first credit');
    same((await newer.credit({ callerId: b, amount: 1000, idempotencyKey: `open-${b}` })).applied, false, 'the same credit again');
    same(await account(newer, b), { balance: 1000, held: 0, carry: '0', ledger: 1000 }, 'account read by the newer');
  });
  await step('findCaller', async () => {
    await newer.addKey(keyA, { id: a });
    await newer.credit({ callerId: a, amount: 1000, idempotencyKey: `open-${a}` });
    same((await older.findCaller(hash(keyA)))?.id, a, 'key added by the newer, found by the older');
    same((await newer.findCaller(hash(keyB)))?.id, b, 'key added by the older, found by the newer');
  });
  await step('key status', async () => {
    const keyD = `sk-d-${tag}-${'x'.repeat(24)}`;
    await newer.addKey(keyD, { id: a });
    same((await older.findCaller(hash(keyD)))?.disabled, false, 'a key provisioned by the newer, read by the older');
    await newer.addKey(keyD, { id: a, disabled: true });
    same((await older.findCaller(hash(keyD)))?.disabled, true, 'the key disabled by the newer, read by the older');
  });
  await step('key records', async () => {
    const made = await older.createKey({ keyHash: hash(`sk-c-${tag}`), prefix: 'sk-c-', callerId: a, metadata: { team: 'x' } });
    same((await older.listKeys({ callerId: a })).items.some((k) => k.keyId === made.keyId), true, 'listed');
    await older.updateKey(made.keyId, { status: 'disabled' });
    same((await newer.getKey(made.keyId))?.status, 'disabled', 'status read by the newer');
    await newer.updateKey(made.keyId, { status: 'revoked' });
    same((await older.getKey(made.keyId))?.status, 'revoked', 'status read by the older');
  });
  await step('reserve, renewHolds, settle', async () => {
    same(await older.reserve({ instanceId: `old-${tag}`, callerId: a, requestId: r(1), amount: 300, expiresAt: Date.now() + 5000 }), { ok: true }, 'reserve');
    await older.renewHolds(`old-${tag}`, later());
    same((await newer.getAccount(a)).held, 300, 'held, read by the newer');
    same(await older.settle(settlement(r(1), '120.5')), { applied: true, charge: 120 }, 'settle');
    same(await newer.settle(settlement(r(1), '120.5')), { applied: false, charge: 120 }, 'the same settle by the newer');
    same(await account(newer, a), { balance: 880, held: 0, carry: '0.5', ledger: 880 }, 'account after settle');
  });
  await step('settle beside the newer', async () => {
    same(await newer.reserve({ instanceId: `new-${tag}`, callerId: a, requestId: r(2), amount: 100, expiresAt: later() }), { ok: true }, 'reserve by the newer');
    same(await older.settle(settlement(r(2), '0.5')), { applied: true, charge: 1 }, 'settle through the carry');
    const both = await Promise.all([older.settle(settlement(r(3), '2')), newer.settle(settlement(r(3), '2'))]);
    same(both.filter((x) => x.applied).length, 1, 'one request settled by both at once, applied');
    same(await account(older, a), { balance: 877, held: 0, carry: '0', ledger: 877 }, 'account read by the older');
  });
  await step('release', async () => {
    same(await older.reserve({ instanceId: `old-${tag}`, callerId: a, requestId: r(4), amount: 50, expiresAt: later() }), { ok: true }, 'reserve');
    await older.release(r(4));
    same((await newer.getAccount(a)).held, 0, 'held after release');
  });
  await step('sweepExpiredHolds', async () => {
    same(await older.reserve({ instanceId: `dead-${tag}`, callerId: a, requestId: r(5), amount: 10, expiresAt: Date.now() + 30 }), { ok: true }, 'reserve');
    await sleep(60);
    await older.sweepExpiredHolds();
    same((await newer.getAccount(a)).held, 0, 'held after the sweep');
    same((await newer.listRequests({ callerId: a })).items.filter((e) => e.requestId === r(5)).map((e) => e.status), [0], 'placeholder line of the swept hold');
  });
  await step('appendLog', async () => {
    await older.appendLog(entry(r(1), 120, '120.5'));
    same((await newer.listRequests({ callerId: a })).items.filter((e) => e.requestId === r(1)).map((e) => [e.charge, e.cost]), [[120, '120.5']], 'line written by the older');
  });
  await step('listRequests', async () => {
    await newer.appendLog(entry(r(2), 1, '0.5'));
    same((await older.listRequests({ callerId: a })).items.some((e) => e.requestId === r(2)), true, 'line written by the newer, read by the older');
  });
  await step('reviews', async () => {
    same(await older.settle(settlement(r(6), '0', 'needs_review')), { applied: true, charge: 0 }, 'needs_review settle');
    same((await older.listReviews({ callerId: a })).items.map((x) => x.requestId), [r(6)], 'open reviews');
    same((await older.resolveReview({ requestId: r(6), action: 'charge', amount: 3, by: 'ops', reason: 'checked' })).applied, true, 'resolved');
    same((await newer.getAccount(a)).balance, 874, 'balance after the resolution');
  });
  await step('ledger, spend, accounts, series', async () => {
    const now = Date.now();
    same((await older.listLedger({ callerId: a })).items.filter((e) => e.kind === 'charge').map((e) => e.amount).sort(), [-1, -120, -2], 'charges');
    const logged = (await older.listRequests({ callerId: a })).items.reduce((n, x) => n + x.charge, 0);
    same((await older.spend({ callerId: a, from: now - 3_600_000, to: now + 3_600_000 })).items.reduce((n, x) => n + x.charge, 0), logged, 'spend, the sum of the log');
    same((await older.listAccounts({ limit: 1000 })).items.some((x) => x.callerId === a), true, 'accounts');
    same((await older.requestSeries({ from: now - 3_600_000, to: now + 60_000, bucketMs: 60_000, callerId: a })).length > 0, true, 'series');
    same(await account(older, a), await account(newer, a), 'the account read by both');
  });
  await step('audit', async () => {
    await older.appendAudit({ actor: 'ops', action: 'key.update', target: `key:${tag}`, before: null, after: { status: 'disabled' } });
    same((await newer.listAudit({ target: `key:${tag}` })).items.map((x) => x.actor), ['ops'], 'audit entry read by the newer');
  });
  await step('catalog overrides, dashboard sessions', async () => {
    await newer.catalogOverrides.changeCatalogOverrides([{ model: `m-${tag}`, override: { kind: 'remove', fields: {}, actor: 'ops', at: Date.now() } }]);
    same((await older.catalogOverrides.listCatalogOverrides()).overrides.some((o) => o.model === `m-${tag}`), true, 'override read by the older');
    const now = Date.now();
    await older.dashboardSessions.openSession(hash(`session-${tag}`), { tokenName: 'ops', tokenCheck: hash(tag), createdAt: now, expiresAt: now + 60_000, lastSeen: now }, { now, idleMs: 60_000, maxSessions: 10 });
    same((await newer.dashboardSessions.touchSession(hash(`session-${tag}`), now + 1, 60_000))?.tokenName, 'ops', 'session read by the newer');
  });
  return failures;
}
