/** The budgets a request passes through, narrowest first, each in its period; and the refusal that names one scope only. */
import { BudgetPaths, budgetRefusal, NO_SESSION } from '../../../lib/middleware/budget-path';
import type { BudgetLimits } from '../../../lib/schemas/budgets';
import type { Caller } from '../../../lib/types';

const cap = (amount: number | null, more: Partial<BudgetLimits> = {}): BudgetLimits =>
  ({ amount, period: 'day', timeZone: 'UTC', requests: null, tokens: null, perSession: null, perSubagent: null, ...more });
const NOW = Date.parse('2026-11-24T22:00:00Z');

describe('BudgetPaths', () => {
  const caller: Caller = {
    id: 'acme', keyId: 'key_1',
    budgets: [
      { scope: 'org:corp', limits: cap(100_000, { period: 'month', timeZone: 'Europe/Paris' }) },
      { scope: 'account:acme', limits: cap(null, { requests: 1000 }) },
      { scope: 'key:key_1', limits: cap(5000, { perSession: { amount: 500, period: 'day', timeZone: 'UTC', requests: null, tokens: null }, perSubagent: { amount: 100, period: 'total', timeZone: 'UTC', requests: null, tokens: null } }) },
    ],
  };

  it('lists the subagent and session templates, then the key, account and organisation, each in its period', () => {
    const path = new BudgetPaths().of(caller, { id: 's1', source: 'x-claude-code-session-id' }, 'agent-7', NOW);
    expect(path?.scopes).toEqual([
      { scope: 'subagent:key:key_1/s1/agent-7', period: 'total', amount: 100, requests: null, tokens: null },
      { scope: 'session:key:key_1/s1', period: 'd:2026-11-24', amount: 500, requests: null, tokens: null },
      { scope: 'key:key_1', period: 'd:2026-11-24', amount: 5000, requests: null, tokens: null },
      { scope: 'account:acme', period: 'd:2026-11-24', amount: null, requests: 1000, tokens: null },
      { scope: 'org:corp', period: 'm:2026-11', amount: 100_000, requests: null, tokens: null },
    ]);
  });

  it('puts requests that name no session in one anonymous session; no subagent, no subagent scope', () => {
    const path = new BudgetPaths().of(caller, undefined, undefined, NOW);
    expect(path?.scopes.map((s) => s.scope)).toEqual([`session:key:key_1/${NO_SESSION}`, 'key:key_1', 'account:acme', 'org:corp']);
  });

  it('is undefined for a caller with no budget (the common case)', () => {
    expect(new BudgetPaths().of({ id: 'x' }, undefined, undefined, NOW)).toBeUndefined();
    expect(new BudgetPaths().of({ id: 'x', budgets: [{ scope: 'account:x', limits: cap(null) }] }, undefined, undefined, NOW)).toBeUndefined();
  });
});

describe('budgetRefusal', () => {
  const path = new BudgetPaths().of({ id: 'acme', budgets: [
    { scope: 'org:corp', limits: cap(100_000, { timeZone: 'Europe/Paris' }) },
    { scope: 'run:key_9', limits: cap(2000, { period: 'total', tokens: 10_000 }) },
  ] }, undefined, undefined, NOW);
  if (!path) throw new Error('a path');

  it('is a billing_error naming the scope, what is left of it and when it resets; nothing of another scope', () => {
    const error = budgetRefusal(path, { ok: false, available: 999_999, scope: 'org:corp', dimension: 'amount', left: 30 }, 120, 4000);
    expect(error).toMatchObject({ code: 'billing_error', status: 402 });
    expect(error.message).toBe('Budget exhausted: the daily organisation budget "org:corp": this request may cost up to 120; 30 left; it resets at 2026-11-25T00:00:00+01:00 (Europe/Paris).');
    expect(error.message).not.toMatch(/999999|run:key_9|2000/);
  });

  it('says a total never resets, and names a token or request cap in its own unit', () => {
    expect(budgetRefusal(path, { ok: false, available: 5, scope: 'run:key_9', dimension: 'tokens', left: 10 }, 120, 4000).message)
      .toBe('Budget exhausted: the total run key budget "run:key_9": this request may use up to 4000 tokens; 10 left; it does not reset.');
  });
});
