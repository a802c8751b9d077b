/** The records MemoryStore keeps: ledger rows and live holds. */
import type { ScopeHold } from '../../billing/records';
import type { Usage } from '../../types';

/** One movement of money; a balance is the sum of its ledger. */
export interface LedgerRow {
  /** Increases with every row. */
  seq: number;
  callerId: string;
  requestId: string | null;
  /** Positive for credit, negative for a charge. */
  amount: number;
  /** `review`: the charge of a review's resolution (its requestId names the request). */
  kind: 'credit' | 'charge' | 'review';
  at: number;
  /** What a charge was for; null for the other kinds. */
  usage: Usage | null;
}

export interface Hold {
  callerId: string;
  amount: number;
  expiresAt: number;
  instanceId: string;
  /** The most tokens the request can use (held on token caps). */
  tokens: number;
  /** The budgets it is also held on. */
  scopes: readonly ScopeHold[] | undefined;
}

/** A caller's live holds and their running sum, so a reserve does not walk them. */
export interface CallerHolds {
  ids: Set<string>;
  held: number;
  /** No hold of this caller expires before this time (a lower bound: a sweep may find none). */
  nextExpiry: number;
}
