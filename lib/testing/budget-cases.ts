/** The store contract, budget half: scopes held with the balance, settled in their period, never over a cap, freed with their hold; stored budgets, organisations, run keys. */
import { hashKey } from '../stores/hash';
import type { BudgetLimits } from '../schemas/budgets';
import type { ScopeHold } from '../stores/budgets';
import type { ReserveRequest } from '../stores/types';
import { later, rid, settlement, sleep, type Suite } from './contract';

/** Caps for a test: money (and optionally requests, tokens) per day in UTC, no templates. */
export const capOf = (amount: number | null, more: Partial<BudgetLimits> = {}): BudgetLimits =>
  ({ amount, period: 'day', timeZone: 'UTC', requests: null, tokens: null, perSession: null, perSubagent: null, ...more });

const scopeOf = (scope: string, amount: number | null, more: Partial<ScopeHold> = {}): ScopeHold => ({ scope, period: 'd:2030-01-01', amount, requests: null, tokens: null, ...more });

export function budgetCases(s: Suite): void {
  const { it, expect } = s;
  const ask = (callerId: string, amount: number, scopes: ScopeHold[], more: Partial<ReserveRequest> = {}) =>
    s.store().reserve({ instanceId: 'test', callerId, requestId: rid(), amount, expiresAt: later(), scopes, ...more });
  const usage = async (scope: string, period = 'd:2030-01-01') => (await s.store().budgetUsage({ scope, period })).items[0];

  it('budgets: a scope is held with the balance; the first scope that does not fit refuses, naming itself, the cap and what is left', async () => {
    const id = await s.caller(1000);
    const [key, session] = [`key:${id}`, `session:key:${id}/s1`];
    expect(await ask(id, 60, [scopeOf(session, 500), scopeOf(key, 100)])).toEqual({ ok: true });
    expect(await ask(id, 60, [scopeOf(session, 500), scopeOf(key, 100)])).toEqual({ ok: false, available: 940, scope: key, dimension: 'amount', left: 40 });
    expect(await ask(id, 60, [scopeOf(session, 50), scopeOf(key, 100)])).toEqual({ ok: false, available: 940, scope: session, dimension: 'amount', left: 0 });
    expect(await usage(key)).toMatchObject({ spent: 0, held: 60, requestsHeld: 1 });
    expect(await s.store().getAccount(id)).toMatchObject({ balance: 1000, held: 60 });
  });

  it('budgets: concurrent reserves never hold more than any scope on their path, one shared by two callers (an organisation) included', async () => {
    const [a, b] = [await s.caller(10_000), await s.caller(10_000)];
    const org = `org:o_${a}`;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => {
      const id = i % 2 === 0 ? a : b;
      return ask(id, 10, [scopeOf(`key:${id}`, 150), scopeOf(org, 200)]);
    }));
    expect(results.filter((r) => r.ok)).toHaveLength(20);
    // A refusal names a scope that was full (a store may count requests it refused in the same step against later ones: never more).
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && [org, `key:${a}`, `key:${b}`].includes(r.scope ?? '') && r.dimension === 'amount')).toBe(true);
    expect(await usage(org)).toMatchObject({ held: 200, requestsHeld: 20 });
  });

  it('budgets: settle moves each scope by the exact charge, tokens and one request, in the period it names, frees the holds, once', async () => {
    const id = await s.caller(1000);
    const [day, total] = [scopeOf(`key:${id}`, 300), scopeOf(`run:${id}`, 300, { period: 'total' })];
    const requestId = rid();
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId, amount: 100, tokens: 40, expiresAt: later(), scopes: [day, total] });
    const settled = { ...settlement(requestId, id, '37.5'), scopes: [day, total] };
    expect(await s.store().settle(settled)).toEqual({ applied: true, charge: 37 });
    expect(await s.store().settle(settled)).toEqual({ applied: false, charge: 37 });
    const moved = { spent: 37, held: 0, excess: 0, requests: 1, requestsHeld: 0, tokens: 15, tokensHeld: 0 };
    expect(await usage(day.scope)).toEqual({ scope: day.scope, period: day.period, ...moved });
    expect(await usage(total.scope, 'total')).toEqual({ scope: total.scope, period: 'total', ...moved });
    expect(await s.store().getAccount(id)).toEqual({ balance: 963, held: 0, carry: '0.5', ledger: 963 });
  });

  it('budgets: a request held in one period settles in it, while the next period (a new row) starts empty', async () => {
    const id = await s.caller(10_000);
    const scope = `key:${id}`;
    const before = rid();
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId: before, amount: 100, expiresAt: later(), scopes: [scopeOf(scope, 100)] });
    expect(await ask(id, 100, [scopeOf(scope, 100, { period: 'd:2030-01-02' })])).toEqual({ ok: true });
    await s.store().settle({ ...settlement(before, id, 80), scopes: [scopeOf(scope, 100)] });
    expect(await usage(scope)).toMatchObject({ spent: 80, held: 0 });
    expect(await usage(scope, 'd:2030-01-02')).toMatchObject({ spent: 0, held: 100 });
    expect(await ask(id, 21, [scopeOf(scope, 100)])).toMatchObject({ ok: false, scope, left: 20 });
  });

  it('budgets: caps on requests and tokens refuse like a cap on money', async () => {
    const id = await s.caller(1000);
    const [r, t] = [scopeOf(`key:${id}`, null, { requests: 2 }), scopeOf(`run:${id}`, null, { tokens: 100 })];
    expect(await ask(id, 1, [r], { tokens: 10 })).toEqual({ ok: true });
    expect(await ask(id, 1, [r], { tokens: 10 })).toEqual({ ok: true });
    expect(await ask(id, 1, [r], { tokens: 10 })).toEqual({ ok: false, available: 998, scope: r.scope, dimension: 'requests', left: 0 });
    expect(await ask(id, 1, [t], { tokens: 60 })).toEqual({ ok: true });
    expect(await ask(id, 1, [t], { tokens: 60 })).toEqual({ ok: false, available: 997, scope: t.scope, dimension: 'tokens', left: 40 });
  });

  it('budgets: release, and a lease that lapsed and was swept, give the scopes back', async () => {
    const id = await s.caller(1000);
    const scope = scopeOf(`key:${id}`, 100);
    const a = rid();
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId: a, amount: 100, expiresAt: later(), scopes: [scope] });
    await s.store().release(a);
    expect(await usage(scope.scope)).toMatchObject({ held: 0, requestsHeld: 0 });
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 100, tokens: 5, expiresAt: Date.now() + 50, scopes: [scope] });
    await sleep(80);
    await s.store().sweepExpiredHolds();
    expect(await usage(scope.scope)).toMatchObject({ spent: 0, held: 0, requestsHeld: 0, tokensHeld: 0 });
    expect(await ask(id, 100, [scope])).toEqual({ ok: true });
  });

  it('budgets: a charge beyond a cap (more than was held, or settled after its hold lapsed) stops at the cap; the rest is excess', async () => {
    const id = await s.caller(1000);
    const scope = scopeOf(`key:${id}`, 60);
    const over = rid();
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId: over, amount: 50, expiresAt: later(), scopes: [scope] });
    expect(await s.store().settle({ ...settlement(over, id, 80), scopes: [scope] })).toEqual({ applied: true, charge: 80 });
    expect(await usage(scope.scope)).toMatchObject({ spent: 60, held: 0, excess: 20 });
    const fresh = scopeOf(`run:${id}`, 100, { period: 'total' });
    expect(await s.store().settle({ ...settlement(rid(), id, 30), scopes: [fresh] })).toEqual({ applied: true, charge: 30 });
    expect(await usage(fresh.scope, 'total')).toMatchObject({ spent: 30, held: 0, excess: 0, requests: 1 });
    expect(await s.store().getAccount(id)).toEqual({ balance: 890, held: 0, carry: '0', ledger: 890 });
  });

  it('budgets of organisations and accounts: put, listed in scope order, removed; membership; findCaller carries the path widest first', async () => {
    const id = await s.caller(0);
    const org = `o_${id}`;
    expect(await s.store().putBudget(`account:${id}`, capOf(500))).toMatchObject({ before: undefined, after: { scope: `account:${id}`, limits: capOf(500) } });
    expect((await s.store().putBudget(`account:${id}`, capOf(400))).before).toMatchObject({ limits: capOf(500) });
    await s.store().putBudget(`org:${org}`, capOf(9000, { period: 'month', timeZone: 'Europe/Paris' }));
    await expect(Promise.resolve().then(() => s.store().putBudget(`session:${id}`, capOf(1)))).rejects.toThrow(/scope/);
    await expect(Promise.resolve().then(() => s.store().setOrganization(`c_missing_${id}`, org))).rejects.toThrow(/no account/);
    expect(await s.store().setOrganization(id, org)).toEqual({ before: null, after: org });
    expect(await s.store().getOrganization(id)).toBe(org);
    const caller = await s.store().findCaller(hashKey(`key-${id}`));
    expect(caller?.budgets).toEqual([{ scope: `org:${org}`, limits: capOf(9000, { period: 'month', timeZone: 'Europe/Paris' }) }, { scope: `account:${id}`, limits: capOf(400) }]);
    const listed = await s.store().listBudgets({ limit: 1000 });
    const mine = listed.items.filter((b) => b.scope.endsWith(id));
    expect(mine.map((b) => b.scope)).toEqual([`account:${id}`, `org:${org}`]);
    expect(await s.store().deleteBudget(`account:${id}`)).toMatchObject({ scope: `account:${id}` });
    expect(await s.store().getBudget(`account:${id}`)).toBeUndefined();
    expect(await s.store().setOrganization(id, null)).toEqual({ before: org, after: null });
    expect((await s.store().findCaller(hashKey(`key-${id}`)))?.budgets).toBeUndefined();
  });

  it('run keys: the parent key\'s budget is on the path, the models are within the parent\'s, and the key stops with its parent', async () => {
    const id = await s.caller(0);
    const parent = await s.store().createKey({ keyHash: hashKey(`parent-${id}`), prefix: 'sk-p', callerId: id, models: ['a', 'b'], budget: capOf(1000), runKeys: { maxAmount: 100, maxTtlSeconds: 60 } });
    const expiresAt = Date.now() + 60_000;
    const run = await s.store().createKey({ keyHash: hashKey(`run-${id}`), prefix: 'sk-r', callerId: id, models: ['b', 'c'], budget: capOf(50, { period: 'total' }), parentKeyId: parent.keyId, expiresAt });
    expect(run).toMatchObject({ parentKeyId: parent.keyId, budget: capOf(50, { period: 'total' }), runKeys: null, expiresAt });
    expect(await s.store().findCaller(hashKey(`parent-${id}`))).toMatchObject({ keyId: parent.keyId, runKeys: { maxAmount: 100, maxTtlSeconds: 60 }, budgets: [{ scope: `key:${parent.keyId}` }] });
    const caller = await s.store().findCaller(hashKey(`run-${id}`));
    expect(caller).toMatchObject({ id, keyId: run.keyId, parentKeyId: parent.keyId, models: ['b'], disabled: false, expiresAt });
    expect(caller?.budgets?.map((b) => b.scope)).toEqual([`key:${parent.keyId}`, `run:${run.keyId}`]);
    expect(caller?.runKeys).toBeUndefined();
    await s.store().updateKey(parent.keyId, { status: 'disabled' });
    expect(await s.store().findCaller(hashKey(`run-${id}`))).toMatchObject({ disabled: true });
  });

  it('budget usage reads: one scope, every scope under a prefix (a key\'s sessions), one period, in pages', async () => {
    const id = await s.caller(1000);
    const owner = `session:key:${id}/`;
    for (const sid of ['s3', 's1', 's2']) await ask(id, 1, [scopeOf(`${owner}${sid}`, 10)]);
    await ask(id, 1, [scopeOf(`${owner}s1`, 10, { period: 'd:2030-01-02' })]);
    const first = await s.store().budgetUsage({ prefix: owner, limit: 2 });
    expect(first.items.map((u) => [u.scope, u.period])).toEqual([[`${owner}s1`, 'd:2030-01-01'], [`${owner}s1`, 'd:2030-01-02']]);
    const rest = await s.store().budgetUsage({ prefix: owner, limit: 2, after: first.next ?? undefined });
    expect(rest.items.map((u) => u.scope)).toEqual([`${owner}s2`, `${owner}s3`]);
    expect(rest.next).toBeNull();
    expect((await s.store().budgetUsage({ prefix: owner, period: 'd:2030-01-02' })).items).toHaveLength(1);
    expect((await s.store().budgetUsage({ prefix: `session:key:${id}/s` })).items).toHaveLength(4);
  });
}
