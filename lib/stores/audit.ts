/** The audit trail of operator writes: who did what to which record, with the record before and after. */
import type { Awaitable } from './types';
import type { Page } from './reads';

/** One operator write. */
export interface AuditEntry {
  /** A whole number, as a string, that grows with every entry of a store (lists order by its value, never its text). */
  id: string;
  /** Epoch ms. */
  at: number;
  /** The admin token's name. */
  actor: string;
  /** E.g. "credit", "review.resolve", "key.create". */
  action: string;
  /** What it changed, e.g. "caller:acme" or "request:req_…". */
  target: string;
  before: unknown;
  after: unknown;
}

/** Which audit entries to list, newest first. */
export interface AuditQuery {
  target?: string;
  limit?: number;
  after?: string;
}

/** Keeps the audit trail (both built-in stores). */
export interface AuditStore {
  appendAudit(entry: Omit<AuditEntry, 'id' | 'at'>): Awaitable<AuditEntry>;
  listAudit(query?: AuditQuery): Awaitable<Page<AuditEntry>>;
}
