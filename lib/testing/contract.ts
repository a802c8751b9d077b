/** What the store contract suite runs against, and the helpers both halves of it share. */
import { randomBytes } from 'node:crypto';
import { FIGURE_NAMES } from '../billing/figures';
import type { AuditStore } from '../stores/audit';
import type { BudgetStore } from '../stores/budgets';
import type { Credit, CreditResult } from '../stores/credit';
import type { KeyAdminStore } from '../stores/keys';
import type { LedgerReads } from '../stores/reads';
import type { ReviewStore } from '../stores/reviews';
import type { Awaitable, GatewayStore, Settlement } from '../stores/types';
import type { Usage } from '../types';
import type { TestFramework } from './framework';

/** A store the suite can run: the gateway's and the admin API's roles (budgets included), plus provisioning and the hold sweep. */
export type ContractStore = GatewayStore & ReviewStore & LedgerReads & AuditStore & KeyAdminStore & BudgetStore & {
  /** Provisions a key for a caller (never moves money). */
  addKey(key: string, caller: { id: string; models?: string[]; disabled?: boolean }): unknown;
  credit(credit: Credit): Awaitable<CreditResult>;
  /** Frees the holds whose lease ended. */
  sweepExpiredHolds(): unknown;
};

/** One store to test, made fresh by `create`; `drop` removes what it made (a schema, a database). */
export interface ContractTarget {
  store: ContractStore;
  drop?: () => Promise<void>;
}

/** Options of runStoreContract(): the framework's functions, a name, and the store factory. */
export interface StoreContractOptions extends TestFramework {
  /** The describe block's name, e.g. "MyStore". */
  name: string;
  create: () => Promise<ContractTarget>;
  /** Seed of the random money cases (the same seed, the same cases). Default: 7. */
  seed?: number;
}

/** What every test of the suite reads: the framework, the store, and helpers on it. */
export interface Suite extends TestFramework {
  store(): ContractStore;
  /** A new caller with a key `key-<id>` and, unless 0, an opening credit of `balance`. */
  caller(balance: number, extra?: { models?: string[]; disabled?: boolean }): Promise<string>;
  seed: number;
}

/** A usage record: every figure 0 unless given. */
export function usageOf(figures: Partial<Usage> = {}): Usage {
  return { ...Object.fromEntries(FIGURE_NAMES.map((name) => [name, 0])), provenance: 'confirmed', ...figures } as Usage;
}

export const usage = (input = 10): Usage => usageOf({ inputTokens: input, outputTokens: 5 });
export const rid = (): string => `req_${randomBytes(8).toString('hex')}`;
export const later = (): number => Date.now() + 60_000;
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
export const settlement = (requestId: string, callerId: string, cost: number | string, billingStatus: Settlement['billingStatus'] = 'billed'): Settlement =>
  ({ requestId, callerId, model: 'm', endpoint: 'messages', cost: String(cost), billingStatus, usage: usage() });

/** A seeded generator of numbers in [0, 1) (mulberry32): the money cases are random but repeatable. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The error a store throws for an argument outside the contract (a GatewayConfigError), matched by code and wording. */
export const refusedArgument = (t: TestFramework, wording: RegExp): unknown =>
  t.expect.objectContaining({ code: 'ERR_MGW_INVALID_ARGUMENT', reason: t.expect.stringMatching(wording) });
