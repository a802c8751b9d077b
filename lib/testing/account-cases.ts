/** The store contract, admin half: credits, provisioning, reviews, the reads, keys, audit and the request log. */
import { randomBytes } from 'node:crypto';
import { hashKey } from '../stores/hash';
import type { RequestLogEntry, Settlement } from '../stores/types';
import type { Usage } from '../types';
import { refusedArgument, rid, settlement, sleep, usage, usageOf, type Suite } from './contract';

export function accountCases(s: Suite): void {
  const { it, expect } = s;

  it('credits and debits move money once per idempotency key, even concurrently; another change under a used key is refused', async () => {
    const id = await s.caller(0);
    const key = `topup-${id}`;
    const results = await Promise.all(Array.from({ length: 10 }, () => s.store().credit({ callerId: id, amount: 500, idempotencyKey: key })));
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(results.every((r) => r.callerId === id && r.amount === 500 && r.idempotencyKey === key)).toBe(true);
    expect(await s.store().credit({ callerId: id, amount: -200, idempotencyKey: `debit-${id}` })).toMatchObject({ applied: true, amount: -200 });
    expect(await s.store().getAccount(id)).toEqual({ balance: 300, held: 0, carry: '0', ledger: 300 });
    await expect(Promise.resolve().then(() => s.store().credit({ callerId: id, amount: 501, idempotencyKey: key }))).rejects.toThrow(`idempotency key "${key}" was used for 500`);
    await expect(Promise.resolve().then(() => s.store().credit({ callerId: 'someone-else', amount: 500, idempotencyKey: key }))).rejects.toThrow(/was used for 500 to/);
    await expect(Promise.resolve().then(() => s.store().credit({ callerId: id, amount: 5, idempotencyKey: '' }))).rejects.toThrow(refusedArgument(s, /idempotencyKey must be a string/));
    expect(await s.store().getAccount(id)).toEqual({ balance: 300, held: 0, carry: '0', ledger: 300 });
  });

  it('provisioning never moves money: re-adding a key changes nothing, and a balance field is refused', async () => {
    const id = await s.caller(1000);
    await s.store().addKey(`key-${id}`, { id, models: ['a'] }); // a host re-provisioning at start-up
    expect(await s.store().getAccount(id)).toEqual({ balance: 1000, held: 0, carry: '0', ledger: 1000 });
    await expect(Promise.resolve().then(() => s.store().addKey(`key-${id}`, { id, balance: 5 } as never))).rejects.toThrow(refusedArgument(s, /"balance" is not taken/));
  });

  it('reviews: listed open, oldest first, a page at a time with what was observed; resolved once by charge or waiver, with the ledger and the log line', async () => {
    const id = await s.caller(1000);
    const flagged = [rid(), rid(), rid()];
    const partial: Usage = { ...usage(25), outputTokens: 0, provenance: 'partial' };
    for (const requestId of flagged) {
      await s.store().settle({ ...settlement(requestId, id, 25, 'needs_review'), usage: partial });
      await s.store().appendLog({
        requestId, callerId: id, endpoint: 'messages', model: 'm', stream: true, status: 200, errorCode: 'api_error', usage: partial,
        cost: '25', charge: 25, billingStatus: 'needs_review', startedAt: Date.now(), durationMs: 1, ttfbMs: 1, upstream: 'anthropic', detail: 'cut', user: null, attempts: [],
      });
      await sleep(5);
    }
    const first = await s.store().listReviews({ callerId: id, limit: 2 });
    expect(first.items.map((r) => r.requestId)).toEqual(flagged.slice(0, 2));
    expect(first.items[0]).toMatchObject({ callerId: id, model: 'm', charge: 25, upstream: 'anthropic', detail: 'cut', attempts: [], usage: { inputTokens: 25, provenance: 'partial' }, resolution: null });
    const second = await s.store().listReviews({ callerId: id, limit: 2, after: first.next as string });
    expect(second).toEqual({ items: [expect.objectContaining({ requestId: flagged[2] })], next: null });
    const [a, b] = flagged as [string, string];
    const decisions = await Promise.all(Array.from({ length: 5 }, () => s.store().resolveReview({ requestId: a, action: 'charge', amount: 40, by: 'ops@acme', reason: 'stream cut; usage from the provider console' })));
    expect(decisions.filter((d) => d.applied)).toHaveLength(1);
    expect(decisions[0]?.review.resolution).toMatchObject({ action: 'charge', amount: 40, by: 'ops@acme' });
    await expect(Promise.resolve().then(() => s.store().resolveReview({ requestId: a, action: 'waive', by: 'x', reason: 'y' }))).rejects.toThrow(`${a} was already resolved (charge 40 by ops@acme)`);
    expect((await s.store().resolveReview({ requestId: b, action: 'waive', by: 'ops@acme', reason: 'goodwill' })).applied).toBe(true);
    await expect(Promise.resolve().then(() => s.store().resolveReview({ requestId: rid(), action: 'waive', by: 'x', reason: 'y' }))).rejects.toThrow(/no review for/);
    await expect(Promise.resolve().then(() => s.store().resolveReview({ requestId: a, action: 'charge', by: 'x', reason: 'y' }))).rejects.toThrow(/amount: a charge needs a positive amount/);
    expect(await s.store().getAccount(id)).toEqual({ balance: 1000 - 3 * 25 - 40, held: 0, carry: '0', ledger: 1000 - 3 * 25 - 40 });
    const line = async (requestId: string) => (await s.store().listRequests({ callerId: id })).items.find((e) => e.requestId === requestId);
    expect(await line(a)).toMatchObject({ billingStatus: 'billed', charge: 65 });
    expect(await line(b)).toMatchObject({ billingStatus: 'waived', charge: 25 });
    expect((await s.store().listReviews({ callerId: id })).items.map((r) => r.requestId)).toEqual([flagged[2]]);
    expect((await s.store().listReviews({ callerId: id, open: false })).items.map((r) => r.resolution?.action ?? null)).toEqual(['charge', 'waive', null]);
    // One review by its request id, resolved or not.
    expect((await s.store().listReviews({ requestId: a })).items).toEqual([expect.objectContaining({ requestId: a, detail: 'cut', resolution: expect.objectContaining({ action: 'charge' }) })]);
    expect((await s.store().listReviews({ requestId: rid() })).items).toEqual([]);
  });

  it('reads: the ledger and the request log newest first in cursor pages with filters, and spend per caller × model × UTC day', async () => {
    const id = await s.caller(1000);
    const other = await s.caller(50);
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
      await s.store().settle({ ...settlement(requestId, d.who, d.charge, d.status), model: d.model, usage: usage(d.tokens) });
      await s.store().appendLog({
        requestId, callerId: d.who, endpoint: 'messages', model: d.model, stream: false, status: 200, errorCode: null, usage: usage(d.tokens),
        cost: String(d.charge), charge: d.charge, billingStatus: d.status, startedAt: d.at, durationMs: 1, ttfbMs: null, upstream: 'u', detail: null, user: null, attempts: [],
      });
    }
    const page1 = await s.store().listLedger({ callerId: id, limit: 2 });
    expect(page1.items.map((e) => [e.kind, e.amount, e.requestId])).toEqual([['charge', -7, ids[2]], ['charge', -5, ids[1]]]);
    const page2 = await s.store().listLedger({ callerId: id, limit: 2, after: page1.next as string });
    expect(page2.items.map((e) => [e.kind, e.amount])).toEqual([['charge', -10], ['credit', 1000]]);
    expect(page2.next).toBeNull();
    const byModel = await s.store().listRequests({ callerId: id, model: 'a' });
    expect(byModel.items.map((e) => e.requestId)).toEqual([ids[1], ids[0]]);
    expect(byModel.items[0]).toMatchObject({ startedAt: day1 + 1000, charge: 5, usage: { inputTokens: 50 }, billingStatus: 'needs_review' });
    expect((await s.store().listRequests({ callerId: id, billingStatus: 'needs_review' })).items.map((e) => e.requestId)).toEqual([ids[1]]);
    expect((await s.store().listRequests({ callerId: id, from: day2, to: day2 + 1 })).items.map((e) => e.requestId)).toEqual([ids[2]]);
    const first = await s.store().listRequests({ callerId: id, limit: 1 });
    const rest = await s.store().listRequests({ callerId: id, limit: 5, after: first.next as string });
    expect([...first.items, ...rest.items].map((e) => e.requestId)).toEqual([ids[2], ids[1], ids[0]]);
    const rows = (await s.store().spend({ from: day1 - 3_600_000, to: day2 + 3_600_000 })).items.filter((r) => r.callerId === id || r.callerId === other);
    const figures = (inputTokens: number, outputTokens: number) => { const { provenance: _, ...all } = usageOf({ inputTokens, outputTokens }); return all; };
    expect(rows).toEqual([
      { callerId: id, model: 'a', day: '2026-11-20', requests: 2, cost: '15', charge: 15, ...figures(150, 10) },
      ...[{ callerId: id, model: 'b', day: '2026-11-21', requests: 1, cost: '7', charge: 7, ...figures(70, 5) },
        { callerId: other, model: 'a', day: '2026-11-21', requests: 1, cost: '3', charge: 3, ...figures(30, 5) }].sort((x, y) => x.callerId.localeCompare(y.callerId)),
    ]);
    await expect(Promise.resolve().then(() => s.store().listRequests({ after: 'not-a-cursor' }))).rejects.toThrow(/after: is not a cursor/);
    await expect(Promise.resolve().then(() => s.store().listLedger({ limit: 0 }))).rejects.toThrow(/limit: must be an integer/);
  });

  it('keys: created with a digest and prefix only, listed newest first, updated, disabled, expired and revoked for good; findCaller follows', async () => {
    const callerId = `c_${randomBytes(6).toString('hex')}`;
    const secrets = [`sk-a-${randomBytes(8).toString('hex')}`, `sk-b-${randomBytes(8).toString('hex')}`];
    const first = await s.store().createKey({ keyHash: hashKey(secrets[0] as string), prefix: 'sk-a-', callerId, models: ['m'], metadata: { team: 'x' } });
    const second = await s.store().createKey({ keyHash: hashKey(secrets[1] as string), prefix: 'sk-b-', callerId });
    expect(first).toMatchObject({ keyId: expect.stringMatching(/^key_[0-9a-f]{20}$/), prefix: 'sk-a-', callerId, models: ['m'], metadata: { team: 'x' }, status: 'active', lastUsedAt: null, expiresAt: null });
    expect(JSON.stringify(first)).not.toContain(secrets[0]);
    expect(await s.store().findCaller(hashKey(secrets[0] as string))).toMatchObject({ id: callerId, models: ['m'], disabled: false });
    for (let i = 0; i < 50 && (await s.store().getKey(first.keyId))?.lastUsedAt === null; i++) await sleep(10);
    expect((await s.store().getKey(first.keyId))?.lastUsedAt).toEqual(expect.any(Number));
    const page = await s.store().listKeys({ callerId, limit: 1 });
    expect(page.items.map((k) => k.keyId)).toEqual([second.keyId]);
    expect((await s.store().listKeys({ callerId, limit: 1, after: page.next as string })).items.map((k) => k.keyId)).toEqual([first.keyId]);
    expect(await s.store().updateKey(first.keyId, { models: ['m', 'n'], limits: { rpm: 5 } })).toMatchObject({ before: { models: ['m'] }, after: { models: ['m', 'n'], limits: { rpm: 5 } } });
    await s.store().updateKey(first.keyId, { status: 'disabled' });
    expect(await s.store().findCaller(hashKey(secrets[0] as string))).toMatchObject({ disabled: true });
    await s.store().updateKey(first.keyId, { status: 'active', expiresAt: Date.now() - 1000 });
    expect(await s.store().findCaller(hashKey(secrets[0] as string))).toMatchObject({ disabled: true }); // expired: a rotated-out secret
    await s.store().updateKey(second.keyId, { status: 'revoked' });
    expect(await s.store().findCaller(hashKey(secrets[1] as string))).toMatchObject({ disabled: true });
    await expect(Promise.resolve().then(() => s.store().updateKey(second.keyId, { status: 'active' }))).rejects.toThrow(/is revoked; create a new key instead/);
    expect(await s.store().getKey(second.keyId)).toMatchObject({ status: 'revoked' }); // history kept
    await s.store().addKey(secrets[1] as string, { id: callerId, disabled: false }); // provisioning re-run at start-up
    expect(await s.store().getKey(second.keyId)).toMatchObject({ status: 'revoked' });
    expect(await s.store().findCaller(hashKey(secrets[1] as string))).toMatchObject({ disabled: true });
    expect(await s.store().updateKey('key_nope', { status: 'disabled' })).toBeUndefined();
  });

  it('audit: entries appended with their actor, action, target, before and after, listed newest first by target', async () => {
    const target = `caller:${rid()}`;
    const one = await s.store().appendAudit({ actor: 'ops', action: 'credit', target, before: { balance: 0 }, after: { balance: 5 } });
    await s.store().appendAudit({ actor: 'ops', action: 'credit', target: 'caller:other', before: null, after: null });
    const two = await s.store().appendAudit({ actor: 'ci', action: 'key.disable', target, before: { status: 'active' }, after: { status: 'disabled' } });
    expect(one).toMatchObject({ id: expect.any(String), at: expect.any(Number), actor: 'ops', before: { balance: 0 }, after: { balance: 5 } });
    const page = await s.store().listAudit({ target, limit: 1 });
    expect(page.items.map((e) => e.id)).toEqual([two.id]);
    expect((await s.store().listAudit({ target, after: page.next as string })).items).toEqual([one]);
  });

  it('appends one log entry per request id, whatever the retries', async () => {
    const requestId = rid();
    const callerId = `c_${randomBytes(6).toString('hex')}`;
    const entry: RequestLogEntry = {
      requestId, callerId, endpoint: 'messages', model: 'm', stream: true, status: 200, errorCode: null, usage: usage(),
      cost: '3', charge: 3, billingStatus: 'billed', startedAt: Date.now(), durationMs: 1.5, ttfbMs: 0.7, upstream: 'fake', detail: null, user: 'u', attempts: [],
    };
    await s.store().appendLog(entry);
    await s.store().appendLog(entry);
    const { items } = await s.store().listRequests({ callerId });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ requestId, status: 200, charge: 3, user: 'u' });
  });
}
