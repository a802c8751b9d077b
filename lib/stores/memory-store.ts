/** MemoryStore: the embedded default store for one process (keys, balances, holds, ledger, log, reviews). */
import type { Caller } from '../types';
import { hashKey } from './hash';
import type { GatewayStore, RequestLogEntry, ReserveRequest, ReserveResult, Settlement } from './types';

/** A key to add: the caller it authenticates and its starting balance. */
export interface MemoryKey extends Caller {
  /** Starting balance in integer minor units. Default: 0. */
  balance?: number;
}

/** One movement of money; a balance is the sum of its ledger. */
export interface LedgerRow {
  callerId: string;
  requestId: string | null;
  /** Positive for credit, negative for a charge. */
  amount: number;
  kind: 'credit' | 'charge';
  at: number;
}

/** A settled request whose usage could not be billed from confirmed tokens. */
export type ReviewRecord = Settlement;

interface Hold {
  callerId: string;
  amount: number;
  expiresAt: number;
}

/** Options of MemoryStore. */
export interface MemoryStoreOptions {
  /** Log entries, settlements and reviews kept (oldest dropped first). Default: 100000. */
  maxRecords?: number;
}

/**
 * In-memory GatewayStore: everything is lost with the process, so it suits one instance,
 * development and tests. It keeps the last `maxRecords` log entries, settlements and reviews;
 * the ledger is kept whole (a balance is its sum). Use PostgresStore for several instances.
 */
export class MemoryStore implements GatewayStore {
  private readonly callers = new Map<string, Caller>();
  private readonly balances = new Map<string, number>();
  private readonly holds = new Map<string, Hold>();
  /** Live holds per caller, so a reserve looks at its own caller's holds only. */
  private readonly holdsByCaller = new Map<string, Set<string>>();
  private readonly maxRecords: number;
  private readonly settled = new Map<string, Settlement>();
  private readonly ledger: LedgerRow[] = [];
  private readonly log: RequestLogEntry[] = [];
  private readonly logged = new Set<string>();
  private readonly reviews: ReviewRecord[] = [];

  constructor(options: MemoryStoreOptions = {}) {
    this.maxRecords = options.maxRecords ?? 100_000;
    if (!Number.isSafeInteger(this.maxRecords) || this.maxRecords < 1) throw new TypeError('MemoryStore: option "maxRecords" must be a positive integer.');
  }

  /** Adds (or replaces) a key; only its SHA-256 digest is kept. */
  addKey(key: string, caller: MemoryKey): void {
    const { balance = 0, ...rest } = caller;
    this.callers.set(hashKey(key), Object.freeze({ ...rest }));
    if (!this.balances.has(caller.id)) this.balances.set(caller.id, 0);
    if (balance !== 0) this.credit(caller.id, balance);
  }

  /** Adds money to a caller's balance (a ledger row). */
  credit(callerId: string, amount: number): void {
    if (!Number.isSafeInteger(amount)) throw new TypeError('MemoryStore.credit: amount must be an integer of minor units.');
    this.balances.set(callerId, (this.balances.get(callerId) ?? 0) + amount);
    this.ledger.push({ callerId, requestId: null, amount, kind: 'credit', at: Date.now() });
  }

  findCaller(keyHash: string): Caller | undefined {
    return this.callers.get(keyHash);
  }

  reserve(request: ReserveRequest): ReserveResult {
    const available = this.available(request.callerId);
    if (request.amount > available) return { ok: false, available };
    this.holds.set(request.requestId, { callerId: request.callerId, amount: request.amount, expiresAt: request.expiresAt });
    let own = this.holdsByCaller.get(request.callerId);
    if (!own) this.holdsByCaller.set(request.callerId, (own = new Set()));
    own.add(request.requestId);
    return { ok: true };
  }

  settle(settlement: Settlement): { applied: boolean } {
    if (this.settled.has(settlement.requestId)) return { applied: false };
    this.settled.set(settlement.requestId, settlement);
    this.trim(this.settled);
    this.release(settlement.requestId);
    if (settlement.charge !== 0) {
      this.balances.set(settlement.callerId, (this.balances.get(settlement.callerId) ?? 0) - settlement.charge);
      this.ledger.push({ callerId: settlement.callerId, requestId: settlement.requestId, amount: -settlement.charge, kind: 'charge', at: Date.now() });
    }
    if (settlement.billingStatus === 'needs_review') this.keep(this.reviews, settlement);
    return { applied: true };
  }

  release(requestId: string): void {
    const hold = this.holds.get(requestId);
    if (!hold) return;
    this.holds.delete(requestId);
    this.holdsByCaller.get(hold.callerId)?.delete(requestId);
  }

  /**
   * Appends to a bounded list. The oldest records are dropped in blocks of maxRecords / 8: a
   * splice of one at the front of a full list moved every other record, on every request.
   */
  private keep<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length >= this.maxRecords + Math.ceil(this.maxRecords / 8)) list.splice(0, list.length - this.maxRecords);
  }

  /**
   * Bounds a Map or Set (insertion order = age) the same way. Deleting the first entry one at a
   * time is worse than it looks: V8 leaves deleted slots in place, so finding the new first entry
   * walks all of them (~35 µs per request at 100,000).
   */
  private trim(records: Map<string, unknown> | Set<string>): void {
    let excess = records.size - this.maxRecords;
    if (excess < Math.ceil(this.maxRecords / 8)) return;
    for (const key of records.keys()) {
      if (excess-- <= 0) break;
      records.delete(key);
    }
  }

  /** The last maxRecords items of a list kept by keep() (a copy). */
  private kept<T>(list: T[]): T[] {
    return list.slice(Math.max(0, list.length - this.maxRecords));
  }

  appendLog(entry: RequestLogEntry): void {
    if (this.logged.has(entry.requestId)) return; // one entry per request id, as in PostgresStore
    this.logged.add(entry.requestId);
    this.keep(this.log, entry);
    this.trim(this.logged);
  }

  /** Drops expired holds (they already stopped counting); returns how many. */
  sweepExpiredHolds(now = Date.now()): number {
    let n = 0;
    for (const [id, hold] of this.holds) {
      if (hold.expiresAt > now) continue;
      this.release(id);
      n++;
    }
    return n;
  }

  /** Balance, live holds and the ledger sum of a caller (balance always equals the ledger sum). */
  getAccount(callerId: string): { balance: number; held: number; ledger: number } {
    const ledger = this.ledger.reduce((sum, row) => (row.callerId === callerId ? sum + row.amount : sum), 0);
    return { balance: this.getBalance(callerId), held: this.held(callerId), ledger };
  }

  /** Balance in minor units (holds not subtracted). */
  getBalance(callerId: string): number {
    return this.balances.get(callerId) ?? 0;
  }

  /** Balance minus the live (unexpired) holds. */
  available(callerId: string, now = Date.now()): number {
    let held = 0;
    for (const requestId of this.holdsByCaller.get(callerId) ?? []) {
      const hold = this.holds.get(requestId) as Hold;
      if (hold.expiresAt <= now) this.release(requestId);
      else held += hold.amount;
    }
    return (this.balances.get(callerId) ?? 0) - held;
  }

  /** Sum of live holds of a caller. */
  held(callerId: string): number {
    return this.getBalance(callerId) - this.available(callerId);
  }

  /** The request log, oldest first (a copy). */
  getLog(): RequestLogEntry[] {
    return this.kept(this.log);
  }

  /** Settlements marked needs_review (a copy). */
  getReviews(): ReviewRecord[] {
    return this.kept(this.reviews);
  }

  /** The ledger (a copy); the sum of a caller's rows equals its balance. */
  getLedger(): LedgerRow[] {
    return [...this.ledger];
  }

  /** The settlement of a request, if settled. */
  getSettlement(requestId: string): Settlement | undefined {
    return this.settled.get(requestId);
  }
}
