/** MemoryStore: the embedded default store for one process (keys, balances, holds, ledger, log, reviews). */
import { GatewayConfigError } from '../../foundation/config-errors';
import { carryCharge } from '../../billing/money';
import type { Caller } from '../../types';
import { checkCredit, checkProvision, noAccountError, replayOf, type Credit, type CreditResult } from '../credit';
import { keepBounded, lastOf, trimBounded } from './bounded';
import { auditPage, ledgerPage, requestPage, spendOf } from './reads';
import { accountsPage, seriesOf } from './stats';
import type { AccountQuery, AccountRow, SeriesPoint, SeriesQuery, StatsReads } from '../stats';
import type { AuditEntry, AuditQuery, AuditStore } from '../audit';
import type { Account, LedgerEntry, LedgerReads, Page, ReadQuery, RequestQuery, SpendRow } from '../reads';
import { hashKey } from '../hash';
import { MemoryReviews } from './reviews';
import { MemoryKeys } from './keys';
import { MemoryCatalogOverrides } from './catalog-overrides';
import { MemoryResponses } from './responses';
import { MemoryBudgets } from './budgets';
import type { Budget, BudgetLimits } from '../../schemas/budgets';
import type { BudgetStore, BudgetUsage, UsageQuery } from '../budgets';
import { keyIdOf, prefixOf, type KeyAdminStore, type MemoryKey, type KeyPatch, type KeyRecord, type NewKey } from '../keys';
import type { CallerHolds, Hold, LedgerRow } from './records';
export type { LedgerRow } from './records';
import type { ReviewQuery, ReviewRecord, ReviewStore, ResolveReview } from '../reviews';
import type { GatewayStore, RequestLogEntry, ReserveRequest, ReserveResult, SettleResult, Settlement } from '../types';

export type { MemoryKey } from '../keys';

/** Options of MemoryStore. */
export interface MemoryStoreOptions {
  /**
   * Log entries, settlements, reviews and ledger rows kept (oldest dropped first). Default: 10000.
   * Every kept record is marked by each full GC: more costs CPU on every request (docs/benchmarks.md).
   */
  maxRecords?: number;
  /** Total bytes of the stored responses kept (each measured as its JSON), beside `maxRecords` of them; oldest dropped first. Default: 134217728 (128 MiB). */
  maxResponseBytes?: number;
}

/**
 * In-memory GatewayStore: everything is lost with the process, so it suits one instance,
 * development and tests. It keeps the last `maxRecords` log entries, settlements, reviews and
 * ledger rows; the rows it drops are summed per caller, so a balance still equals its ledger.
 * Use PostgresStore for several instances.
 */
export class MemoryStore implements GatewayStore, ReviewStore, LedgerReads, AuditStore, KeyAdminStore, StatsReads, BudgetStore {
  private readonly keys = new MemoryKeys();
  private readonly budgets = new MemoryBudgets();
  private readonly balances = new Map<string, number>();
  private readonly holds = new Map<string, Hold>();
  /** Live holds per caller with their sum, so a reserve costs the same however many are in flight. */
  private readonly holdsByCaller = new Map<string, CallerHolds>();
  private readonly maxRecords: number;
  /** The charge of each settled request: a replay answers with it (the details are in the log). */
  private readonly settled = new Map<string, number>();
  /** Per caller, the cost below one minor unit not charged yet (decimal string). */
  private readonly carries = new Map<string, string>();
  private readonly ledger: LedgerRow[] = [];
  /** Per caller, the sum of the ledger rows dropped from the front of `ledger`. */
  private readonly carried = new Map<string, number>();
  private readonly log: RequestLogEntry[] = [];
  private readonly logged = new Set<string>();
  /** Every credit by idempotency key (kept for the store's life: a key must never move money twice). */
  private readonly credits = new Map<string, Credit>();
  private ledgerSeq = 0;
  private readonly audit: AuditEntry[] = [];
  private auditSeq = 0;
  private readonly reviewBook: MemoryReviews;
  readonly catalogOverrides = new MemoryCatalogOverrides();
  readonly responses: MemoryResponses; // stored Responses API responses (a ResponseStore)

  constructor(options: MemoryStoreOptions = {}) {
    this.maxRecords = options.maxRecords ?? 10_000;
    if (!Number.isSafeInteger(this.maxRecords) || this.maxRecords < 1) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', 'MemoryStore: option "maxRecords" must be a positive integer.');
    this.responses = new MemoryResponses(this.maxRecords, options.maxResponseBytes);
    this.reviewBook = new MemoryReviews(this.maxRecords, (requestId) => this.log.findLast((e) => e.requestId === requestId));
  }

  /** Adds (or replaces) a key; only its SHA-256 digest is kept. Never moves money. */
  addKey(key: string, caller: MemoryKey): void {
    checkProvision(caller, 'MemoryStore');
    this.keys.create({ keyHash: hashKey(key), prefix: prefixOf(key), callerId: caller.id, models: caller.models ?? null, limits: caller.limits ?? null });
    // Provisioning sets the status only when `disabled` is given; a revoked key stays revoked (as in PostgresStore).
    const record = this.keys.get(keyIdOf(hashKey(key)));
    if (caller.disabled !== undefined && record?.status !== 'revoked') this.keys.update(keyIdOf(hashKey(key)), { status: caller.disabled ? 'disabled' : 'active' });
    if (!this.balances.has(caller.id)) this.balances.set(caller.id, 0);
  }

  /** Credits (or, negative, debits) a caller once per idempotency key: a ledger row and the balance. */
  credit(credit: Credit): CreditResult {
    const change = checkCredit(credit, 'MemoryStore');
    const first = this.credits.get(change.idempotencyKey);
    if (first) return replayOf(change, first);
    if (!this.balances.has(change.callerId) && credit.createAccount !== true) throw noAccountError(change.callerId);
    this.credits.set(change.idempotencyKey, change);
    this.balances.set(change.callerId, (this.balances.get(change.callerId) ?? 0) + change.amount);
    this.record(change.callerId, null, change.amount, 'credit', null);
    return { ...change, applied: true };
  }

  /** Always ready: it lives in this process (nothing to reach). */
  ready(): void {}

  findCaller(keyHash: string): Caller | undefined { return this.keys.find(keyHash, (callerId) => this.budgets.pathOf(callerId)); }

  createKey(key: NewKey): KeyRecord {
    const record = this.keys.create(key);
    if (!this.balances.has(key.callerId)) this.balances.set(key.callerId, 0);
    return record;
  }

  getKey(keyId: string): KeyRecord | undefined { return this.keys.get(keyId); }

  listKeys(query: { callerId?: string; limit?: number; after?: string } = {}): Page<KeyRecord> { return this.keys.list(query); }

  updateKey(keyId: string, patch: KeyPatch): { before: KeyRecord; after: KeyRecord } | undefined { return this.keys.update(keyId, patch); }

  reserve(request: ReserveRequest): ReserveResult {
    // A request id reserved again replaces its hold, so the running sum counts it once.
    if (this.holds.has(request.requestId)) this.release(request.requestId);
    const available = this.available(request.callerId);
    if (request.amount > available) return { ok: false, available };
    const tokens = request.tokens ?? 0;
    const scopes = request.scopes && request.scopes.length > 0 ? request.scopes : undefined;
    if (scopes) {
      const refused = this.budgets.refusal(scopes, request.amount, tokens, Date.now(), (id) => this.holds.get(id), (id) => this.release(id));
      if (refused) return { ok: false, available: this.available(request.callerId), ...refused };
    }
    const hold = { callerId: request.callerId, amount: request.amount, expiresAt: request.expiresAt, instanceId: request.instanceId, tokens, scopes };
    this.holds.set(request.requestId, hold);
    if (scopes) this.budgets.hold(request.requestId, hold);
    let own = this.holdsByCaller.get(request.callerId);
    if (!own) this.holdsByCaller.set(request.callerId, (own = { ids: new Set(), held: 0, nextExpiry: Infinity }));
    own.ids.add(request.requestId);
    own.held += request.amount;
    if (request.expiresAt < own.nextExpiry) own.nextExpiry = request.expiresAt;
    return { ok: true };
  }

  renewHolds(instanceId: string, expiresAt: number): void {
    const now = Date.now();
    for (const hold of this.holds.values()) {
      if (hold.instanceId === instanceId && hold.expiresAt > now) hold.expiresAt = expiresAt; // a lapsed hold stays lapsed
    }
  }

  settle(settlement: Settlement): SettleResult {
    const first = this.settled.get(settlement.requestId);
    if (first !== undefined) return { applied: false, charge: first };
    const { callerId, requestId } = settlement;
    const { charge, carry } = carryCharge(this.carries.get(callerId) ?? '0', settlement.cost);
    this.carries.set(callerId, carry);
    this.settled.set(requestId, charge);
    trimBounded(this.settled, this.maxRecords);
    this.release(requestId);
    if (settlement.scopes) this.budgets.charge(settlement, charge);
    if (charge !== 0) {
      this.balances.set(callerId, (this.balances.get(callerId) ?? 0) - charge);
      this.record(callerId, requestId, -charge, 'charge', settlement.usage);
    }
    if (settlement.billingStatus === 'needs_review') this.reviewBook.add({ ...settlement, charge });
    return { applied: true, charge };
  }

  release(requestId: string): void {
    const hold = this.holds.get(requestId);
    if (!hold) return;
    this.holds.delete(requestId);
    const own = this.holdsByCaller.get(hold.callerId);
    if (own?.ids.delete(requestId)) own.held -= hold.amount;
    if (hold.scopes) this.budgets.release(requestId, hold);
  }

  /** Appends a ledger row; rows dropped from the front are added to their caller's carried sum. */
  private record(callerId: string, requestId: string | null, amount: number, kind: LedgerRow['kind'], usage: LedgerRow['usage']): void {
    const row: LedgerRow = { seq: ++this.ledgerSeq, callerId, requestId, amount, kind, at: Date.now(), usage };
    for (const old of keepBounded(this.ledger, row, this.maxRecords)) {
      this.carried.set(old.callerId, (this.carried.get(old.callerId) ?? 0) + old.amount);
    }
  }

  appendLog(entry: RequestLogEntry): void {
    if (this.logged.has(entry.requestId)) return; // one entry per request id, as in PostgresStore
    this.logged.add(entry.requestId);
    keepBounded(this.log, entry, this.maxRecords);
    trimBounded(this.logged, this.maxRecords);
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

  /** Balance, live holds, the remainder owed below one unit, and the ledger sum (always equal to the balance). */
  getAccount(callerId: string): Account {
    if (!this.balances.has(callerId)) throw noAccountError(callerId);
    const kept = this.ledger.reduce((sum, row) => (row.callerId === callerId ? sum + row.amount : sum), 0);
    const ledger = kept + (this.carried.get(callerId) ?? 0);
    return { balance: this.getBalance(callerId), held: this.held(callerId), carry: this.carries.get(callerId) ?? '0', ledger };
  }

  /** Balance in minor units (holds not subtracted). */
  getBalance(callerId: string): number { return this.balances.get(callerId) ?? 0; }

  /** Balance minus the live (unexpired) holds. Expired holds are dropped when one may be due. */
  available(callerId: string, now = Date.now()): number {
    const own = this.holdsByCaller.get(callerId);
    if (own && own.nextExpiry <= now) {
      own.nextExpiry = Infinity;
      for (const requestId of own.ids) {
        const hold = this.holds.get(requestId) as Hold;
        if (hold.expiresAt <= now) this.release(requestId);
        else if (hold.expiresAt < own.nextExpiry) own.nextExpiry = hold.expiresAt;
      }
    }
    return (this.balances.get(callerId) ?? 0) - (own?.held ?? 0);
  }

  /** Sum of live holds of a caller. */
  held(callerId: string): number { return this.getBalance(callerId) - this.available(callerId); }

  /** The request log, oldest first (a copy). */
  getLog(): RequestLogEntry[] { return lastOf(this.log, this.maxRecords); }

  /** Every review kept, resolved or not (a copy). */
  getReviews(): ReviewRecord[] { return this.reviewBook.all(); }

  listReviews(query: ReviewQuery = {}): Page<ReviewRecord> { return this.reviewBook.list(query); }

  resolveReview(decision: ResolveReview): { applied: boolean; review: ReviewRecord } {
    return this.reviewBook.resolve(decision, (callerId, requestId, amount) => {
      this.balances.set(callerId, (this.balances.get(callerId) ?? 0) - amount);
      this.record(callerId, requestId, -amount, 'review', null);
    });
  }

  /** The last maxRecords ledger rows (a copy); with the caller's dropped rows (see getAccount) they sum to its balance. */
  getLedger(): LedgerRow[] { return lastOf(this.ledger, this.maxRecords); }

  appendAudit(entry: Omit<AuditEntry, 'id' | 'at'>): AuditEntry {
    const kept: AuditEntry = { id: String(++this.auditSeq), at: Date.now(), ...entry };
    keepBounded(this.audit, kept, this.maxRecords);
    return kept;
  }

  listAudit(query: AuditQuery = {}): Page<AuditEntry> { return auditPage(lastOf(this.audit, this.maxRecords), query); }

  listLedger(query: ReadQuery = {}): Page<LedgerEntry> { return ledgerPage(lastOf(this.ledger, this.maxRecords), query); }

  listRequests(query: RequestQuery = {}): Page<RequestLogEntry> { return requestPage(lastOf(this.log, this.maxRecords), query); }

  spend(query: ReadQuery & { from: number; to: number }): Page<SpendRow> { return spendOf(lastOf(this.log, this.maxRecords), query); }

  listAccounts(query: AccountQuery = {}): Page<AccountRow> { return accountsPage(this.balances, (id) => this.held(id), query); }
  requestSeries(query: SeriesQuery): SeriesPoint[] { return seriesOf(lastOf(this.log, this.maxRecords), query); }

  putBudget(scope: string, limits: BudgetLimits): { before: Budget | undefined; after: Budget } { return this.budgets.put(scope, limits); }
  getBudget(scope: string): Budget | undefined { return this.budgets.get(scope); }
  listBudgets(query: { limit?: number; after?: string } = {}): Page<Budget> { return this.budgets.list(query); }
  deleteBudget(scope: string): Budget | undefined { return this.budgets.delete(scope); }
  setOrganization(callerId: string, orgId: string | null): { before: string | null; after: string | null } { return this.budgets.setOrganization(callerId, orgId, this.balances.has(callerId)); }
  getOrganization(callerId: string): string | null { return this.budgets.organization(callerId); }
  budgetUsage(query: UsageQuery): Page<BudgetUsage> { return this.budgets.usage(query); }

  /** The charge of a settled request (its details are in the log); undefined until it is settled. */
  getCharge(requestId: string): number | undefined { return this.settled.get(requestId); }
}
