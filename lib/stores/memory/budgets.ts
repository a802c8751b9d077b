/** MemoryStore's budgets: stored budgets, organisations, and spend per scope and period, held and settled with the balance. */
import { tokensOf } from '../../billing/figures';
import type { Budget, BudgetLimits } from '../../schemas/budgets';
import { noAccountError } from '../credit';
import { checkBudget, checkOrgId, emptyUsage, type BudgetUsage, type ScopeHold, type ScopeRefusal, type UsageQuery } from '../budgets';
import type { Page } from '../reads';
import type { Settlement } from '../types';
import { pageOf } from './reads';

/** A scope's usage in one period, with its live holds (so a lapsed one is dropped where it counts) and the earliest lease among them. */
interface Row {
  usage: BudgetUsage;
  holds: Set<string>;
  nextExpiry: number;
}

/** What the book needs of a hold. */
export interface ScopedHold {
  amount: number;
  tokens: number;
  expiresAt: number;
  scopes?: readonly ScopeHold[] | undefined;
}

const rowKey = (scope: string, period: string): string => `${scope}\n${period}`;

export class MemoryBudgets {
  private readonly stored = new Map<string, Budget>();
  private readonly orgs = new Map<string, string>();
  private readonly rows = new Map<string, Row>();

  private row(scope: string, period: string): Row {
    const key = rowKey(scope, period);
    let row = this.rows.get(key);
    if (!row) this.rows.set(key, (row = { usage: emptyUsage(scope, period), holds: new Set(), nextExpiry: Infinity }));
    return row;
  }

  /**
   * The first scope of `scopes` a hold of `amount` and `tokens` does not fit in, or undefined. Holds
   * of a scope whose lease ended are given back first (`lapse` releases one by request id).
   */
  refusal(scopes: readonly ScopeHold[], amount: number, tokens: number, now: number, holdOf: (id: string) => ScopedHold | undefined, lapse: (id: string) => void): ScopeRefusal | undefined {
    for (const s of scopes) {
      const row = this.rows.get(rowKey(s.scope, s.period));
      if (!row) continue; // nothing spent or held yet: only a cap below this request refuses it
      if (row.nextExpiry <= now) {
        row.nextExpiry = Infinity;
        for (const id of row.holds) {
          const expiresAt = holdOf(id)?.expiresAt ?? 0;
          if (expiresAt <= now) lapse(id);
          else if (expiresAt < row.nextExpiry) row.nextExpiry = expiresAt;
        }
      }
    }
    for (const s of scopes) {
      const u = this.rows.get(rowKey(s.scope, s.period))?.usage ?? emptyUsage(s.scope, s.period);
      if (s.amount !== null && u.spent + u.held + amount > s.amount) return { scope: s.scope, dimension: 'amount', left: Math.max(0, s.amount - u.spent - u.held) };
      if (s.requests !== null && u.requests + u.requestsHeld + 1 > s.requests) return { scope: s.scope, dimension: 'requests', left: Math.max(0, s.requests - u.requests - u.requestsHeld) };
      if (s.tokens !== null && u.tokens + u.tokensHeld + tokens > s.tokens) return { scope: s.scope, dimension: 'tokens', left: Math.max(0, s.tokens - u.tokens - u.tokensHeld) };
    }
    return undefined;
  }

  /** Holds a request on each of its scopes. */
  hold(requestId: string, hold: ScopedHold): void {
    for (const s of hold.scopes ?? []) {
      const row = this.row(s.scope, s.period);
      if (row.holds.has(requestId)) continue;
      row.holds.add(requestId);
      row.usage.held += hold.amount;
      row.usage.tokensHeld += hold.tokens;
      row.usage.requestsHeld += 1;
      if (hold.expiresAt < row.nextExpiry) row.nextExpiry = hold.expiresAt;
    }
  }

  /** Gives a request's hold back on each of its scopes. */
  release(requestId: string, hold: ScopedHold): void {
    for (const s of hold.scopes ?? []) {
      const row = this.rows.get(rowKey(s.scope, s.period));
      if (!row?.holds.delete(requestId)) continue;
      row.usage.held -= hold.amount;
      row.usage.tokensHeld -= hold.tokens;
      row.usage.requestsHeld -= 1;
    }
  }

  /** Moves each scope of a settlement, in the period it names, by its charge (spend stops at the cap; the rest is excess). */
  charge(settlement: Settlement, charge: number): void {
    const tokens = tokensOf(settlement.usage, 'input') + tokensOf(settlement.usage, 'output');
    const counted = settlement.billingStatus === 'not_billed' ? 0 : 1;
    for (const s of settlement.scopes ?? []) {
      const u = this.row(s.scope, s.period).usage;
      const ceiling = s.amount === null ? Infinity : Math.max(s.amount, u.spent);
      const total = u.spent + charge;
      u.excess += Math.max(0, total - ceiling);
      u.spent = Math.min(total, ceiling);
      u.tokens += tokens;
      u.requests += counted;
    }
  }

  usage(query: UsageQuery): Page<BudgetUsage> {
    const page = pageOf(this.rows.values(), { limit: query.limit, after: query.after }, {
      keep: (r) => (query.scope === undefined || r.usage.scope === query.scope) && (query.prefix === undefined || r.usage.scope.startsWith(query.prefix))
        && (query.period === undefined || r.usage.period === query.period),
      key: (r) => [r.usage.scope, r.usage.period], shape: ['string', 'string'], order: 'oldest',
    });
    return { items: page.items.map((r) => ({ ...r.usage })), next: page.next };
  }

  put(scope: string, limits: BudgetLimits): { before: Budget | undefined; after: Budget } {
    checkBudget(scope, limits);
    const before = this.stored.get(scope);
    const after: Budget = { scope, limits: structuredClone(limits), updatedAt: Date.now() };
    this.stored.set(scope, after);
    return { before, after: structuredClone(after) };
  }

  get(scope: string): Budget | undefined {
    const budget = this.stored.get(scope);
    return budget && structuredClone(budget);
  }

  list(query: { limit?: number; after?: string }): Page<Budget> {
    const page = pageOf(this.stored.values(), query, { key: (b) => [b.scope], shape: ['string'], order: 'oldest' });
    return { items: page.items.map((b) => structuredClone(b)), next: page.next };
  }

  delete(scope: string): Budget | undefined {
    const budget = this.stored.get(scope);
    this.stored.delete(scope);
    return budget;
  }

  /** Sets an account's organisation; `known` says whether the account exists. */
  setOrganization(callerId: string, orgId: string | null, known: boolean): { before: string | null; after: string | null } {
    if (!known) throw noAccountError(callerId);
    checkOrgId(orgId);
    const before = this.orgs.get(callerId) ?? null;
    if (orgId === null) this.orgs.delete(callerId);
    else this.orgs.set(callerId, orgId);
    return { before, after: orgId };
  }

  organization(callerId: string): string | null {
    return this.orgs.get(callerId) ?? null;
  }

  /** What a key's caller is read with: its account's and organisation's budgets. */
  pathOf(callerId: string): { account: BudgetLimits | undefined; orgId: string | undefined; org: BudgetLimits | undefined } {
    const orgId = this.orgs.get(callerId);
    return { account: this.stored.get(`account:${callerId}`)?.limits, orgId, org: orgId === undefined ? undefined : this.stored.get(`org:${orgId}`)?.limits };
  }
}
