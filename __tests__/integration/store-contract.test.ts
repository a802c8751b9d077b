/** The same contract, run against MemoryStore and PostgresStore (real PostgreSQL, own schema). */
import fc from 'fast-check';
import { fromPico, PICO_PER_UNIT } from '../../lib/billing/money';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { hashKey, MemoryStore, PostgresStore } from '../../lib';
import { SQL_DIR, type PgPoolLike } from '../../lib/stores/migrate';
import type { AuditStore, Credit, CreditResult, GatewayStore, KeyAdminStore, LedgerReads, RequestLogEntry, ReviewStore, Settlement, Usage } from '../../lib';
import { pgStore } from '../helpers/services';
import { usageOf } from '../helpers/usage';
import { refused } from '../helpers/config-error';

type Account = { balance: number; held: number; carry: string; ledger: number };
type ContractStore = GatewayStore & ReviewStore & LedgerReads & AuditStore & KeyAdminStore & {
  addKey(key: string, caller: { id: string; models?: string[]; disabled?: boolean }): unknown;
  credit(credit: Credit): CreditResult | Promise<CreditResult>;
  getAccount(id: string): Account | Promise<Account>;
  sweepExpiredHolds(): unknown;
};

const usage = (input = 10): Usage => usageOf({ inputTokens: input, outputTokens: 5 });
const rid = (): string => `req_${randomBytes(8).toString('hex')}`;
const later = (): number => Date.now() + 60_000;
const settlement = (requestId: string, callerId: string, cost: number | string, billingStatus: Settlement['billingStatus'] = 'billed'): Settlement =>
  ({ requestId, callerId, model: 'm', endpoint: 'messages', cost: String(cost), billingStatus, usage: usage() });

let drop: (() => Promise<void>) | undefined;
/** The billing status and charge of a request's log line, however the store keeps it. */
let logLine: (store: ContractStore, requestId: string) => Promise<{ billingStatus: string; charge: number } | undefined>;
const stores: Array<[string, () => Promise<ContractStore>]> = [
  ['MemoryStore', async () => new MemoryStore()],
  ['PostgresStore', async () => {
    const made = await pgStore();
    drop = made.drop;
    logLine = async (store, requestId) => {
      if (store instanceof MemoryStore) return store.getLog().find((e) => e.requestId === requestId);
      const row = (await made.pool.query(`SELECT billing_status, charge FROM ${made.schema}.request_log WHERE request_id = $1`, [requestId])).rows[0];
      return row && { billingStatus: row.billing_status as string, charge: Number(row.charge) };
    };
    return made.store;
  }],
];
afterAll(async () => drop?.());

describe.each(stores)('%s', (_name, make) => {
  let store: ContractStore;
  beforeAll(async () => { store = await make(); });

  async function caller(balance: number, extra: { models?: string[]; disabled?: boolean } = {}): Promise<string> {
    const id = `c_${randomBytes(6).toString('hex')}`;
    await store.addKey(`key-${id}`, { id, ...extra });
    if (balance !== 0) await store.credit({ callerId: id, amount: balance, idempotencyKey: `opening-${id}` });
    return id;
  }

  it('finds a caller by key digest only, with its allow-list and disabled flag', async () => {
    const id = await caller(0, { models: ['a', 'b'], disabled: true });
    expect(await store.findCaller(hashKey(`key-${id}`))).toMatchObject({ id, models: ['a', 'b'], disabled: true });
    expect(await store.findCaller(hashKey('nope'))).toBeUndefined();
    expect(await store.findCaller(`key-${id}`)).toBeUndefined(); // the clear key is not a lookup key
  });

  it('reserve is a check-and-hold on balance minus live holds', async () => {
    const id = await caller(100);
    expect(await store.reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 60, expiresAt: later() })).toEqual({ ok: true });
    expect(await store.reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 60, expiresAt: later() })).toEqual({ ok: false, available: 40 });
    expect(await store.getAccount(id)).toMatchObject({ balance: 100, held: 60 });
  });

  it('concurrent reserves never hold more than the balance', async () => {
    const id = await caller(200);
    const results = await Promise.all(Array.from({ length: 50 }, () => store.reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 10, expiresAt: later() })));
    expect(results.filter((r) => r.ok)).toHaveLength(20);
    expect((await store.getAccount(id)).held).toBe(200);
  });

  it('reserves of several callers made together: each caller admitted in order while it fits, refusals say what was left', async () => {
    const [a, b, none] = [await caller(100), await caller(25), `c_missing_${rid()}`];
    const ask = (callerId: string, amount: number) => store.reserve({ instanceId: 'test', callerId, requestId: rid(), amount, expiresAt: later() });
    const results = await Promise.all([ask(a, 60), ask(b, 10), ask(a, 30), ask(none, 1), ask(b, 10), ask(a, 20), ask(b, 10)]);
    expect(results).toEqual([
      { ok: true }, { ok: true }, { ok: true }, { ok: false, available: 0 }, { ok: true }, { ok: false, available: 10 }, { ok: false, available: 5 },
    ]);
    expect(await store.getAccount(a)).toMatchObject({ balance: 100, held: 90 });
    expect(await store.getAccount(b)).toMatchObject({ balance: 25, held: 20 });
  });

  it('settle charges once per request id, releases the hold, and a repeat (even concurrent) is a no-op', async () => {
    const id = await caller(1000);
    const requestId = rid();
    await store.reserve({ instanceId: 'test', callerId: id, requestId, amount: 300, expiresAt: later() });
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.settle(settlement(requestId, id, 120))));
    expect(outcomes.filter((o) => o.applied)).toHaveLength(1);
    expect(await store.getAccount(id)).toEqual({ balance: 880, held: 0, carry: '0', ledger: 880 });
  });

  /** Settles `costs` (pico-units) for a new caller, `wave` at a time concurrently; checks the exact-money rule. */
  async function settleExactly(costs: bigint[], wave: number): Promise<void> {
    const id = await caller(1_000_000_000);
    const ids = costs.map(() => rid());
    let charged = 0;
    for (let i = 0; i < costs.length; i += wave) {
      const results = await Promise.all(costs.slice(i, i + wave).map((pico, j) => store.settle(settlement(ids[i + j] as string, id, fromPico(pico)))));
      for (const r of results) charged += r.charge;
    }
    const total = costs.reduce((a, b) => a + b, 0n);
    expect(BigInt(charged)).toBe(total / PICO_PER_UNIT); // never more than the cost, short of it by less than one unit
    expect(await store.getAccount(id)).toEqual({ balance: 1_000_000_000 - charged, held: 0, carry: fromPico(total % PICO_PER_UNIT), ledger: 1_000_000_000 - charged });
    // A retry returns the first result and moves nothing.
    const again = await store.settle(settlement(ids.at(-1) ?? rid(), id, '5')); // the newest: MemoryStore remembers the last maxRecords
    if (costs.length > 0) expect(again.applied).toBe(false);
  }

  const subUnitCost = fc.oneof(fc.bigInt({ min: 0n, max: PICO_PER_UNIT }), fc.bigInt({ min: 0n, max: 50n * PICO_PER_UNIT }), fc.constant(25_800_000_000n));

  it('exact money: for any sequence of costs, the total charged is the exact total rounded down and the rest is carried', async () => {
    await fc.assert(fc.asyncProperty(fc.array(subUnitCost, { maxLength: 1500 }), fc.integer({ min: 1, max: 400 }), (costs, wave) => settleExactly(costs, wave)), { numRuns: 15 });
  });

  it('exact money: 10^5 confirmed sub-unit costs, settled concurrently, charge the exact total within one unit', async () => {
    await settleExactly(fc.sample(subUnitCost, { numRuns: 100_000, seed: 7 }), 2000);
  }, 120_000);

  it('a needs_review settlement charges only its charge and keeps a review record', async () => {
    const id = await caller(1000);
    const requestId = rid();
    await store.reserve({ instanceId: 'test', callerId: id, requestId, amount: 300, expiresAt: later() });
    expect(await store.settle(settlement(requestId, id, 0, 'needs_review'))).toEqual({ applied: true, charge: 0 });
    expect(await store.getAccount(id)).toEqual({ balance: 1000, held: 0, carry: '0', ledger: 1000 });
    if (store instanceof MemoryStore) expect(store.getReviews().map((r) => r.requestId)).toContain(requestId);
    if (store instanceof PostgresStore) {
      const pool = (store as unknown as { pool: { query(q: string, v: unknown[]): Promise<{ rows: unknown[] }> } }).pool;
      const { rows } = await pool.query(`SELECT caller_id, model FROM ${store.schema}.reviews WHERE request_id = $1`, [requestId]);
      expect(rows).toEqual([{ caller_id: id, model: 'm' }]);
    }
  });

  it('release frees a hold without charging; expired holds stop counting and are swept', async () => {
    const id = await caller(100);
    const a = rid();
    await store.reserve({ instanceId: 'test', callerId: id, requestId: a, amount: 70, expiresAt: later() });
    await store.release(a);
    expect(await store.getAccount(id)).toMatchObject({ balance: 100, held: 0 });
    await store.reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 100, expiresAt: Date.now() + 50 });
    await new Promise((r) => setTimeout(r, 80));
    await store.sweepExpiredHolds();
    expect(await store.getAccount(id)).toMatchObject({ balance: 100, held: 0 });
    expect(await store.reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 100, expiresAt: later() })).toEqual({ ok: true });
  });

  it('renewHolds extends every live hold of one instance, not another instance\'s, and never revives a lapsed one', async () => {
    const id = await caller(300);
    const soon = (): number => Date.now() + 1000; // the renewal below comes well within it, however busy the machine
    await store.reserve({ instanceId: 'alive', callerId: id, requestId: rid(), amount: 100, expiresAt: soon() });
    await store.reserve({ instanceId: 'alive', callerId: id, requestId: rid(), amount: 100, expiresAt: soon() });
    await store.reserve({ instanceId: 'dead', callerId: id, requestId: rid(), amount: 100, expiresAt: soon() });
    await store.renewHolds('alive', later());
    await new Promise((r) => setTimeout(r, 1050));
    await store.sweepExpiredHolds();
    expect(await store.getAccount(id)).toMatchObject({ balance: 300, held: 200 });
    await store.renewHolds('dead', later()); // too late: its hold lapsed and stays lapsed
    expect(await store.reserve({ instanceId: 'alive', callerId: id, requestId: rid(), amount: 100, expiresAt: later() })).toEqual({ ok: true });
    expect(await store.reserve({ instanceId: 'alive', callerId: id, requestId: rid(), amount: 1, expiresAt: later() })).toEqual({ ok: false, available: 0 });
  });

  it('a settle after the hold expired and was swept still charges exactly once', async () => {
    const id = await caller(100);
    const requestId = rid();
    await store.reserve({ instanceId: 'test', callerId: id, requestId, amount: 50, expiresAt: Date.now() + 20 });
    await new Promise((r) => setTimeout(r, 40));
    await store.sweepExpiredHolds();
    await store.settle(settlement(requestId, id, 30));
    await store.settle(settlement(requestId, id, 30));
    expect(await store.getAccount(id)).toEqual({ balance: 70, held: 0, carry: '0', ledger: 70 });
  });

  it('credits and debits move money once per idempotency key, even concurrently; another change under a used key is refused', async () => {
    const id = await caller(0);
    const key = `topup-${id}`;
    const results = await Promise.all(Array.from({ length: 10 }, () => store.credit({ callerId: id, amount: 500, idempotencyKey: key })));
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(results.every((r) => r.callerId === id && r.amount === 500 && r.idempotencyKey === key)).toBe(true);
    expect(await store.credit({ callerId: id, amount: -200, idempotencyKey: `debit-${id}` })).toMatchObject({ applied: true, amount: -200 });
    expect(await store.getAccount(id)).toEqual({ balance: 300, held: 0, carry: '0', ledger: 300 });
    await expect(Promise.resolve().then(() => store.credit({ callerId: id, amount: 501, idempotencyKey: key }))).rejects.toThrow(`idempotency key "${key}" was used for 500`);
    await expect(Promise.resolve().then(() => store.credit({ callerId: 'someone-else', amount: 500, idempotencyKey: key }))).rejects.toThrow(/was used for 500 to/);
    await expect(Promise.resolve().then(() => store.credit({ callerId: id, amount: 5, idempotencyKey: '' }))).rejects.toThrow(refused('ERR_MGW_INVALID_ARGUMENT', /idempotencyKey must be a string/));
    expect(await store.getAccount(id)).toEqual({ balance: 300, held: 0, carry: '0', ledger: 300 });
  });

  it('provisioning never moves money: re-adding a key changes nothing, and a balance field is refused', async () => {
    const id = await caller(1000);
    await store.addKey(`key-${id}`, { id, models: ['a'] }); // a host re-provisioning at start-up
    expect(await store.getAccount(id)).toEqual({ balance: 1000, held: 0, carry: '0', ledger: 1000 });
    await expect(Promise.resolve().then(() => store.addKey(`key-${id}`, { id, balance: 5 } as never))).rejects.toThrow(refused('ERR_MGW_INVALID_ARGUMENT', /"balance" is not taken/));
  });

  it('reviews: listed open, oldest first, a page at a time with what was observed; resolved once by charge or waiver, with the ledger and the log line', async () => {
    const id = await caller(1000);
    const flagged = [rid(), rid(), rid()];
    const partial: Usage = { ...usage(25), outputTokens: 0, provenance: 'partial' };
    for (const requestId of flagged) {
      await store.settle({ ...settlement(requestId, id, 25, 'needs_review'), usage: partial });
      await store.appendLog({
        requestId, callerId: id, endpoint: 'messages', model: 'm', stream: true, status: 200, errorCode: 'api_error', usage: partial,
        cost: '25', charge: 25, billingStatus: 'needs_review', startedAt: Date.now(), durationMs: 1, ttfbMs: 1, upstream: 'anthropic', detail: 'cut', user: null, attempts: [],
      });
      await new Promise((r) => setTimeout(r, 5));
    }
    const first = await store.listReviews({ callerId: id, limit: 2 });
    expect(first.items.map((r) => r.requestId)).toEqual(flagged.slice(0, 2));
    expect(first.items[0]).toMatchObject({ callerId: id, model: 'm', charge: 25, upstream: 'anthropic', usage: { inputTokens: 25, provenance: 'partial' }, resolution: null });
    const second = await store.listReviews({ callerId: id, limit: 2, after: first.next as string });
    expect(second).toEqual({ items: [expect.objectContaining({ requestId: flagged[2] })], next: null });
    const [a, b] = flagged as [string, string];
    const decisions = await Promise.all(Array.from({ length: 5 }, () => store.resolveReview({ requestId: a, action: 'charge', amount: 40, by: 'ops@acme', reason: 'stream cut; usage from the provider console' })));
    expect(decisions.filter((d) => d.applied)).toHaveLength(1);
    expect(decisions[0]?.review.resolution).toMatchObject({ action: 'charge', amount: 40, by: 'ops@acme' });
    await expect(Promise.resolve().then(() => store.resolveReview({ requestId: a, action: 'waive', by: 'x', reason: 'y' }))).rejects.toThrow(`${a} was already resolved (charge 40 by ops@acme)`);
    expect((await store.resolveReview({ requestId: b, action: 'waive', by: 'ops@acme', reason: 'goodwill' })).applied).toBe(true);
    await expect(Promise.resolve().then(() => store.resolveReview({ requestId: rid(), action: 'waive', by: 'x', reason: 'y' }))).rejects.toThrow(/no review for/);
    await expect(Promise.resolve().then(() => store.resolveReview({ requestId: a, action: 'charge', by: 'x', reason: 'y' }))).rejects.toThrow(/amount: a charge needs a positive amount/);
    expect(await store.getAccount(id)).toEqual({ balance: 1000 - 3 * 25 - 40, held: 0, carry: '0', ledger: 1000 - 3 * 25 - 40 });
    const line = (requestId: string) => (store instanceof MemoryStore ? Promise.resolve(store.getLog().find((e) => e.requestId === requestId)) : logLine(store, requestId));
    expect(await line(a)).toMatchObject({ billingStatus: 'billed', charge: 65 });
    expect(await line(b)).toMatchObject({ billingStatus: 'waived', charge: 25 });
    expect((await store.listReviews({ callerId: id })).items.map((r) => r.requestId)).toEqual([flagged[2]]);
    expect((await store.listReviews({ callerId: id, open: false })).items.map((r) => r.resolution?.action ?? null)).toEqual(['charge', 'waive', null]);
  });

  it('reads: the ledger and the request log newest first in cursor pages with filters, and spend per caller × model × UTC day', async () => {
    const id = await caller(1000);
    const other = await caller(50);
    const day1 = Date.UTC(2026, 10, 20, 12);
    const day2 = Date.UTC(2026, 10, 21, 9);
    const done: Array<{ who: string; model: string; at: number; charge: number; status: Settlement['billingStatus']; tokens: number }> = [
      { who: id, model: 'a', at: day1, charge: 10, status: 'billed', tokens: 100 },
      { who: id, model: 'a', at: day1 + 1000, charge: 5, status: 'needs_review', tokens: 50 },
      { who: id, model: 'b', at: day2, charge: 7, status: 'billed', tokens: 70 },
      { who: other, model: 'a', at: day2 + 5, charge: 3, status: 'billed', tokens: 30 },
    ];
    const ids: string[] = [];
    for (const d of done) {
      const requestId = rid();
      ids.push(requestId);
      await store.settle({ ...settlement(requestId, d.who, d.charge, d.status), model: d.model, usage: usage(d.tokens) });
      await store.appendLog({
        requestId, callerId: d.who, endpoint: 'messages', model: d.model, stream: false, status: 200, errorCode: null, usage: usage(d.tokens),
        cost: String(d.charge), charge: d.charge, billingStatus: d.status, startedAt: d.at, durationMs: 1, ttfbMs: null, upstream: 'u', detail: null, user: null, attempts: [],
      });
    }
    const page1 = await store.listLedger({ callerId: id, limit: 2 });
    expect(page1.items.map((e) => [e.kind, e.amount, e.requestId])).toEqual([['charge', -7, ids[2]], ['charge', -5, ids[1]]]);
    const page2 = await store.listLedger({ callerId: id, limit: 2, after: page1.next as string });
    expect(page2.items.map((e) => [e.kind, e.amount])).toEqual([['charge', -10], ['credit', 1000]]);
    expect(page2.next).toBeNull();
    const byModel = await store.listRequests({ callerId: id, model: 'a' });
    expect(byModel.items.map((e) => e.requestId)).toEqual([ids[1], ids[0]]);
    expect(byModel.items[0]).toMatchObject({ startedAt: day1 + 1000, charge: 5, usage: { inputTokens: 50 }, billingStatus: 'needs_review' });
    expect((await store.listRequests({ callerId: id, billingStatus: 'needs_review' })).items.map((e) => e.requestId)).toEqual([ids[1]]);
    expect((await store.listRequests({ callerId: id, from: day2, to: day2 + 1 })).items.map((e) => e.requestId)).toEqual([ids[2]]);
    const first = await store.listRequests({ callerId: id, limit: 1 });
    const rest = await store.listRequests({ callerId: id, limit: 5, after: first.next as string });
    expect([...first.items, ...rest.items].map((e) => e.requestId)).toEqual([ids[2], ids[1], ids[0]]);
    const rows = (await store.spend({ from: day1 - 3_600_000, to: day2 + 3_600_000 })).items.filter((r) => r.callerId === id || r.callerId === other);
    const figures = (inputTokens: number, outputTokens: number) => { const { provenance: _, ...all } = usageOf({ inputTokens, outputTokens }); return all; };
    expect(rows).toEqual([
      { callerId: id, model: 'a', day: '2026-11-20', requests: 2, cost: '15', charge: 15, ...figures(150, 10) },
      ...[{ callerId: id, model: 'b', day: '2026-11-21', requests: 1, cost: '7', charge: 7, ...figures(70, 5) },
        { callerId: other, model: 'a', day: '2026-11-21', requests: 1, cost: '3', charge: 3, ...figures(30, 5) }].sort((x, y) => x.callerId.localeCompare(y.callerId)),
    ]);
    await expect(Promise.resolve().then(() => store.listRequests({ after: 'not-a-cursor' }))).rejects.toThrow(/after: is not a cursor/);
    await expect(Promise.resolve().then(() => store.listLedger({ limit: 0 }))).rejects.toThrow(/limit: must be an integer/);
  });

  it('keys: created with a digest and prefix only, listed newest first, updated, disabled, expired and revoked for good; findCaller follows', async () => {
    const callerId = `c_${randomBytes(6).toString('hex')}`;
    const secrets = [`sk-a-${randomBytes(8).toString('hex')}`, `sk-b-${randomBytes(8).toString('hex')}`];
    const first = await store.createKey({ keyHash: hashKey(secrets[0] as string), prefix: 'sk-a-', callerId, models: ['m'], metadata: { team: 'x' } });
    const second = await store.createKey({ keyHash: hashKey(secrets[1] as string), prefix: 'sk-b-', callerId });
    expect(first).toMatchObject({ keyId: expect.stringMatching(/^key_[0-9a-f]{20}$/), prefix: 'sk-a-', callerId, models: ['m'], metadata: { team: 'x' }, status: 'active', lastUsedAt: null, expiresAt: null });
    expect(JSON.stringify(first)).not.toContain(secrets[0]);
    expect(await store.findCaller(hashKey(secrets[0] as string))).toMatchObject({ id: callerId, models: ['m'], disabled: false });
    for (let i = 0; i < 50 && (await store.getKey(first.keyId))?.lastUsedAt === null; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await store.getKey(first.keyId))?.lastUsedAt).toEqual(expect.any(Number));
    const page = await store.listKeys({ callerId, limit: 1 });
    expect(page.items.map((k) => k.keyId)).toEqual([second.keyId]);
    expect((await store.listKeys({ callerId, limit: 1, after: page.next as string })).items.map((k) => k.keyId)).toEqual([first.keyId]);
    expect(await store.updateKey(first.keyId, { models: ['m', 'n'], limits: { rpm: 5 } })).toMatchObject({ before: { models: ['m'] }, after: { models: ['m', 'n'], limits: { rpm: 5 } } });
    await store.updateKey(first.keyId, { status: 'disabled' });
    expect(await store.findCaller(hashKey(secrets[0] as string))).toMatchObject({ disabled: true });
    await store.updateKey(first.keyId, { status: 'active', expiresAt: Date.now() - 1000 });
    expect(await store.findCaller(hashKey(secrets[0] as string))).toMatchObject({ disabled: true }); // expired: a rotated-out secret
    await store.updateKey(second.keyId, { status: 'revoked' });
    expect(await store.findCaller(hashKey(secrets[1] as string))).toMatchObject({ disabled: true });
    await expect(Promise.resolve().then(() => store.updateKey(second.keyId, { status: 'active' }))).rejects.toThrow(/is revoked; create a new key instead/);
    expect(await store.getKey(second.keyId)).toMatchObject({ status: 'revoked' }); // history kept
    await store.addKey(secrets[1] as string, { id: callerId, disabled: false }); // provisioning re-run at start-up
    expect(await store.getKey(second.keyId)).toMatchObject({ status: 'revoked' });
    expect(await store.findCaller(hashKey(secrets[1] as string))).toMatchObject({ disabled: true });
    expect(await store.updateKey('key_nope', { status: 'disabled' })).toBeUndefined();
  });

  it('audit: entries appended with their actor, action, target, before and after, listed newest first by target', async () => {
    const target = `caller:${rid()}`;
    const one = await store.appendAudit({ actor: 'ops', action: 'credit', target, before: { balance: 0 }, after: { balance: 5 } });
    await store.appendAudit({ actor: 'ops', action: 'credit', target: 'caller:other', before: null, after: null });
    const two = await store.appendAudit({ actor: 'ci', action: 'key.disable', target, before: { status: 'active' }, after: { status: 'disabled' } });
    expect(one).toMatchObject({ id: expect.any(String), at: expect.any(Number), actor: 'ops', before: { balance: 0 }, after: { balance: 5 } });
    const page = await store.listAudit({ target, limit: 1 });
    expect(page.items.map((e) => e.id)).toEqual([two.id]);
    expect((await store.listAudit({ target, after: page.next as string })).items).toEqual([one]);
  });

  it('appends one log entry per request id, whatever the retries', async () => {
    const requestId = rid();
    const entry: RequestLogEntry = {
      requestId, callerId: 'c', endpoint: 'messages', model: 'm', stream: true, status: 200, errorCode: null, usage: usage(),
      cost: '3', charge: 3, billingStatus: 'billed', startedAt: Date.now(), durationMs: 1.5, ttfbMs: 0.7, upstream: 'fake', detail: null, user: 'u', attempts: [],
    };
    await store.appendLog(entry);
    await store.appendLog(entry);
    if (store instanceof MemoryStore) expect(store.getLog().filter((e) => e.requestId === requestId)).toHaveLength(1);
    if (store instanceof PostgresStore) {
      const pool = (store as unknown as { pool: { query(q: string, v: unknown[]): Promise<{ rows: unknown[] }> } }).pool;
      const { rows } = await pool.query(`SELECT status, charge, end_user FROM ${store.schema}.request_log WHERE request_id = $1`, [requestId]);
      expect(rows).toEqual([{ status: 200, charge: '3', end_user: 'u' }]);
    }
  });
});

it('PostgresStore: a host that provisions and credits at every start-up (new store, same database) never moves money twice', async () => {
  const made = await pgStore();
  try {
    for (let start = 0; start < 3; start++) {
      const store = new PostgresStore({ pool: made.pool, schema: made.schema, sweepIntervalMs: 0 });
      await store.addKey('sk-boot', { id: 'boot' });
      await store.credit({ callerId: 'boot', amount: 99_992, idempotencyKey: 'boot-opening-balance' });
      store.close();
    }
    expect(await made.store.getAccount('boot')).toEqual({ balance: 99_992, held: 0, carry: '0', ledger: 99_992 });
  } finally {
    await made.drop();
  }
});

/** The versions of the shipped migrations after `version`, in order: what migrate() applies to a schema left there. */
const versionsAfter = (version: number): number[] => readdirSync(SQL_DIR).map((f) => Number(f.slice(0, 3))).filter((v) => v > version).sort((a, b) => a - b);

/** A schema as an older release left it: the migrations up to `version` only, recorded as applied. */
async function oldSchema(pool: { query(text: string, values?: unknown[]): Promise<unknown> }, name: string, version: number): Promise<void> {
  await pool.query(`CREATE SCHEMA ${name}`);
  await pool.query(`CREATE TABLE ${name}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const file of readdirSync(SQL_DIR).filter((f) => Number(f.slice(0, 3)) <= version).sort()) {
    await pool.query(readFileSync(path.join(SQL_DIR, file), 'utf8').replaceAll('{{schema}}', name));
    await pool.query(`INSERT INTO ${name}.migrations (version) VALUES ($1)`, [Number(file.slice(0, 3))]);
  }
}

it('PostgresStore: a database made by the previous schema (v2, with money in it) upgrades in place', async () => {
  const made = await pgStore();
  const old = `mgw_old_${randomBytes(4).toString('hex')}`;
  try {
    // The schema as the previous release left it: migrations 1 and 2 only, with a caller, a hold and a charge.
    await oldSchema(made.pool, old, 2);
    await made.pool.query(`INSERT INTO ${old}.callers (key_hash, caller_id) VALUES ($1, 'veteran')`, [hashKey('sk-veteran')]);
    await made.pool.query(`INSERT INTO ${old}.balances (caller_id, balance, held) VALUES ('veteran', 950, 30)`);
    await made.pool.query(`INSERT INTO ${old}.ledger (caller_id, amount, kind) VALUES ('veteran', 1000, 'credit')`);
    await made.pool.query(`INSERT INTO ${old}.ledger (caller_id, request_id, amount, kind) VALUES ('veteran', 'req_old', -50, 'charge')`);
    await made.pool.query(`INSERT INTO ${old}.holds (request_id, caller_id, amount, expires_at) VALUES ('req_open', 'veteran', 30, now() + interval '1 hour')`);
    const store = new PostgresStore({ pool: made.pool, schema: old, sweepIntervalMs: 0 });
    expect(await store.migrate()).toEqual(versionsAfter(2));
    expect(await store.getAccount('veteran')).toEqual({ balance: 950, held: 30, carry: '0', ledger: 950 });
    expect(await store.findCaller(hashKey('sk-veteran'))).toMatchObject({ id: 'veteran' });
    expect(await store.credit({ callerId: 'veteran', amount: 50, idempotencyKey: 'after-upgrade' })).toMatchObject({ applied: true });
    expect(await store.credit({ callerId: 'veteran', amount: 50, idempotencyKey: 'after-upgrade' })).toMatchObject({ applied: false });
    expect(await store.settle(settlement('req_open', 'veteran', 20))).toEqual({ applied: true, charge: 20 });
    expect(await store.getAccount('veteran')).toEqual({ balance: 980, held: 0, carry: '0', ledger: 980 });
    store.close();
  } finally {
    await made.pool.query(`DROP SCHEMA IF EXISTS ${old} CASCADE`);
    await made.drop();
  }
});

it('PostgresStore: a database made by the v6 schema (whole-unit charges) upgrades to exact costs in place', async () => {
  const made = await pgStore();
  const old = `mgw_v6_${randomBytes(4).toString('hex')}`;
  try {
    await oldSchema(made.pool, old, 6);
    // A request the v6 code charged 1 for (its 0.0258 rounded up), with its ledger row and log line.
    await made.pool.query(`INSERT INTO ${old}.callers (key_hash, caller_id) VALUES ($1, 'v6')`, [hashKey('sk-v6')]);
    await made.pool.query(`INSERT INTO ${old}.balances (caller_id, balance) VALUES ('v6', 999)`);
    await made.pool.query(`INSERT INTO ${old}.ledger (caller_id, amount, kind) VALUES ('v6', 1000, 'credit'), ('v6', -1, 'charge')`);
    await made.pool.query(`INSERT INTO ${old}.settlements (request_id, caller_id, model, endpoint, charge, billing_status, usage) VALUES ('req_v6', 'v6', 'm', 'messages', 1, 'billed', '{}')`);
    await made.pool.query(`INSERT INTO ${old}.request_log (request_id, caller_id, endpoint, model, stream, status, charge, billing_status, started_at, duration_ms)
      VALUES ('req_v6', 'v6', 'messages', 'm', false, 200, 1, 'billed', now(), 1)`);
    const store = new PostgresStore({ pool: made.pool, schema: old, sweepIntervalMs: 0 });
    expect(await store.migrate()).toEqual(versionsAfter(6));
    expect(await store.getAccount('v6')).toEqual({ balance: 999, held: 0, carry: '0', ledger: 999 });
    expect((await store.listRequests({ callerId: 'v6' })).items[0]).toMatchObject({ requestId: 'req_v6', cost: '1', charge: 1 }); // billed before v7: cost is its charge
    expect(await store.settle(settlement('req_v6', 'v6', '0.0258'))).toEqual({ applied: false, charge: 1 });
    const results = await Promise.all(Array.from({ length: 200 }, () => store.settle(settlement(rid(), 'v6', '0.0258'))));
    expect(results.reduce((sum, r) => sum + r.charge, 0)).toBe(5); // 200 × 0.0258 = 5.16
    expect(await store.getAccount('v6')).toEqual({ balance: 994, held: 0, carry: '0.16', ledger: 994 });
    store.close();
  } finally {
    await made.pool.query(`DROP SCHEMA IF EXISTS ${old} CASCADE`);
    await made.drop();
  }
});

it('PostgresStore: usage recorded by the v9 schema (one cache-write total) reads as 5-minute writes after v10', async () => {
  const made = await pgStore();
  const old = `mgw_v9_${randomBytes(4).toString('hex')}`;
  try {
    await oldSchema(made.pool, old, 9);
    const v9 = { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 300, cacheCreationInputTokens: 40, searchUnits: 0, provenance: 'confirmed' };
    await made.pool.query(`INSERT INTO ${old}.balances (caller_id, balance) VALUES ('v9', 1000)`);
    await made.pool.query(`INSERT INTO ${old}.settlements (request_id, caller_id, model, endpoint, charge, billing_status, usage) VALUES ('req_v9', 'v9', 'm', 'messages', 1, 'needs_review', $1)`, [v9]);
    await made.pool.query(`INSERT INTO ${old}.reviews (request_id, caller_id, model, endpoint, charge, usage, search_units) VALUES ('req_v9', 'v9', 'm', 'messages', 1, $1, 0)`, [v9]);
    await made.pool.query(`INSERT INTO ${old}.ledger (caller_id, request_id, amount, kind) VALUES ('v9', 'req_v9', -1, 'charge')`);
    await made.pool.query(`INSERT INTO ${old}.request_log (request_id, caller_id, endpoint, model, stream, status, charge, billing_status, started_at, duration_ms, usage)
      VALUES ('req_v9', 'v9', 'messages', 'm', false, 200, 1, 'needs_review', now(), 1, $1)`, [v9]);
    const store = new PostgresStore({ pool: made.pool, schema: old, sweepIntervalMs: 0 });
    expect(await store.migrate()).toEqual(versionsAfter(9));
    const now = usageOf({ inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 300, cacheWrite5mInputTokens: 40 });
    expect((await store.listRequests({ callerId: 'v9' })).items[0]?.usage).toEqual(now);
    expect((await store.listReviews({ callerId: 'v9' })).items[0]?.usage).toEqual(now);
    expect((await store.listLedger({ callerId: 'v9' })).items[0]?.usage).toEqual(now);
    store.close();
  } finally {
    await made.pool.query(`DROP SCHEMA IF EXISTS ${old} CASCADE`);
    await made.drop();
  }
});

it('migrate() runs once when several instances start at once, and is idempotent after', async () => {
  const made = await pgStore();
  try {
    const fresh = `${made.schema}_b`;
    const instances = [1, 2, 3].map(() => new PostgresStore({ pool: made.pool, schema: fresh, sweepIntervalMs: 0 }));
    const first = await Promise.all(instances.map((s) => s.migrate()));
    expect(first.flat()).toEqual(versionsAfter(0));
    expect(await instances[0]!.migrate()).toEqual([]);
    await made.pool.query(`DROP SCHEMA ${fresh} CASCADE`);
  } finally {
    await made.drop();
  }
  expect(() => new PostgresStore({ pool: made.pool, schema: 'Bad-Name' })).toThrow(refused('ERR_MGW_INVALID_OPTION', /option "schema" must be a lower-case SQL identifier/));
});

it('PostgresStore caches found keys only: a key added by another instance works at once, unknown keys do not pile up', async () => {
  const made = await pgStore({ keyCacheMs: 60_000 });
  try {
    const other = new PostgresStore({ pool: made.pool, schema: made.schema, sweepIntervalMs: 0 });
    expect(await made.store.findCaller(hashKey('sk-late'))).toBeUndefined();
    await other.addKey('sk-late', { id: 'late' });
    expect(await made.store.findCaller(hashKey('sk-late'))).toMatchObject({ id: 'late' });
    for (let i = 0; i < 50; i++) await made.store.findCaller(hashKey(`sk-random-${i}`));
    expect((made.store as unknown as { keys: Map<string, unknown> }).keys.size).toBe(1);
  } finally {
    await made.drop();
  }
});

it('PostgresStore: a connection the server ends in the middle of a settlement transaction fails that batch only; the process lives and a retry settles once', async () => {
  const made = await pgStore();
  const base = made.pool;
  let terminateNext = true;
  // The pool lends real clients; the first one lent is terminated by the server right after its BEGIN, while it sits idle.
  const pool = {
    query: base.query.bind(base),
    on: base.on.bind(base),
    off: base.off.bind(base),
    connect: async () => {
      const client = await base.connect();
      if (!terminateNext) return client;
      terminateNext = false;
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      const pid = ((await client.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
      return Object.assign(client, {
        query: async (...args: unknown[]) => {
          const out = await query(...args);
          if (args[0] === 'BEGIN') {
            await base.query('SELECT pg_terminate_backend($1)', [pid]);
            await new Promise((r) => setTimeout(r, 200)); // the client learns of it while idle: an 'error' event
          }
          return out;
        },
      });
    },
  };
  const store = new PostgresStore({ pool: pool as unknown as PgPoolLike, schema: made.schema, sweepIntervalMs: 0 });
  try {
    await store.addKey('sk-cut', { id: 'cut' });
    await store.credit({ callerId: 'cut', amount: 100, idempotencyKey: 'cut-opening' });
    await expect(store.settle(settlement('req_cut', 'cut', '7'))).rejects.toThrow();
    expect(await store.settle(settlement('req_cut', 'cut', '7'))).toEqual({ applied: true, charge: 7 });
    expect(await store.settle(settlement('req_cut', 'cut', '7'))).toEqual({ applied: false, charge: 7 });
    expect(await store.getAccount('cut')).toEqual({ balance: 93, held: 0, carry: '0', ledger: 93 });
  } finally {
    store.close();
    await made.drop();
  }
});
