/**
 * The budgets a request passes through, narrowest first: each subagent and session template of the
 * budgets on its caller's path, then the run key, the key, the account and the organisation; each
 * with the period the clock puts the request in. And the refusal a client stops on when one is full.
 */
import { isoInZone, PeriodCache } from '../budgets/periods';
import type { SessionRef } from '../budgets/session';
import { GatewayError } from '../foundation/errors';
import type { BudgetCap, BudgetPeriod } from '../schemas/budgets';
import type { ScopeHold } from '../stores/budgets';
import type { ReserveResult } from '../stores/types';
import type { Caller, ScopeBudget } from '../types';

/** What a request is held on: its scopes, and for each the period's end and zone (what a refusal says). */
export interface BudgetPath {
  readonly scopes: ScopeHold[];
  readonly periods: Array<{ period: BudgetPeriod; timeZone: string; end: number | null }>;
}

/** The anonymous session: a template's cap covers the requests that name none as one session. */
export const NO_SESSION = '-';

/** Builds the paths of requests: one PeriodCache per router, so a period's bounds are computed once. */
export class BudgetPaths {
  private readonly periods = new PeriodCache();

  /** The path of a request of `caller`, or undefined when no budget is on it (the common case: one property read). */
  of(caller: Caller, session: SessionRef | undefined, agent: string | undefined, now: number): BudgetPath | undefined {
    const budgets = caller.budgets;
    if (budgets === undefined || budgets.length === 0) return undefined;
    const path: BudgetPath = { scopes: [], periods: [] };
    const add = (scope: string, cap: BudgetCap): void => {
      const period = this.periods.at(cap.period, cap.timeZone, now);
      path.scopes.push({ scope, period: period.key, amount: cap.amount, requests: cap.requests, tokens: cap.tokens });
      path.periods.push({ period: cap.period, timeZone: cap.timeZone, end: period.end });
    };
    const sid = session?.id ?? NO_SESSION;
    // Narrowest first: the first full scope is the one a refusal names.
    for (let i = budgets.length - 1; i >= 0; i--) {
      const { limits, scope } = budgets[i] as ScopeBudget;
      if (agent !== undefined && limits.perSubagent) add(`subagent:${scope}/${sid}/${agent}`, limits.perSubagent);
      if (limits.perSession) add(`session:${scope}/${sid}`, limits.perSession);
    }
    for (let i = budgets.length - 1; i >= 0; i--) {
      const { limits, scope } = budgets[i] as ScopeBudget;
      if (limits.amount !== null || limits.requests !== null || limits.tokens !== null) add(scope, limits);
    }
    return path.scopes.length > 0 ? path : undefined;
  }
}

const KIND_NAMES: Readonly<Record<string, string>> = {
  org: 'organisation', account: 'account', key: 'key', run: 'run key', session: 'session', subagent: 'subagent',
};

const PER: Readonly<Record<BudgetPeriod, string>> = { day: 'daily', week: 'weekly', month: 'monthly', total: 'total' };

/** A scope as a refusal names it: `the session budget (daily) "session:key:key_…/abc"`. */
function named(scope: string, period: BudgetPeriod): string {
  const kind = scope.slice(0, scope.indexOf(':'));
  return `the ${PER[period]} ${KIND_NAMES[kind] ?? kind} budget "${scope}"`;
}

/**
 * The refusal of a request a budget on its path cannot hold: the answer an exhausted balance gets
 * (402 `billing_error`; 429 `insufficient_quota` on the OpenAI routes; never retried), naming the
 * scope, what is left of it and when it resets; nothing of any other scope.
 */
export function budgetRefusal(path: BudgetPath, result: Extract<ReserveResult, { ok: false }>, amount: number, tokens: number): GatewayError {
  const i = path.scopes.findIndex((s) => s.scope === result.scope);
  const meta = path.periods[i];
  if (i < 0 || meta === undefined) return new GatewayError('billing_error', `Budget exhausted: this request may cost up to ${amount}; a budget on its path cannot hold it.`);
  const left = result.left ?? 0;
  const what = result.dimension === 'requests' ? `it allows no more requests (${left} left)`
    : result.dimension === 'tokens' ? `this request may use up to ${tokens} tokens; ${left} left`
      : `this request may cost up to ${amount}; ${left} left`;
  const reset = meta.end === null ? 'it does not reset' : `it resets at ${isoInZone(meta.end, meta.timeZone)} (${meta.timeZone})`;
  return new GatewayError('billing_error', `Budget exhausted: ${named(result.scope ?? '', meta.period)}: ${what}; ${reset}.`);
}
