/** PostgresStore: the GatewayStore for several instances over one PostgreSQL (pg client). */
import { GatewayConfigError } from '../../foundation/config-errors';
import type { Caller } from '../../types';
import { Batcher } from './batcher';
import { hashKey } from '../hash';
import { checkCredit, checkProvision, noAccountError, replayOf, type Credit, type CreditResult } from '../credit';
import * as reads from './reads';
import * as pgKeys from './keys';
import * as stats from './stats';
import { prefixOf, type KeyAdminStore, type KeyPatch, type KeyRecord, type NewKey } from '../keys';
import { decimal, num } from './reads';
import type { AuditEntry, AuditQuery, AuditStore } from '../audit';
import type { Account, LedgerEntry, LedgerReads, Page, ReadQuery, RequestQuery, SpendRow } from '../reads';
import type { ReviewQuery, ReviewRecord, ReviewStore, ResolveReview } from '../reviews';
import type { AccountQuery, AccountRow, SeriesPoint, SeriesQuery, StatsReads } from '../stats';
import type { MemoryKey } from '../keys';
import { checkSchemaName, migrate, shippedVersions, type PgPoolLike, type PgQueryable, type PgResult } from './migrate';
import { PostgresResponses } from './responses';
import { retrying, settleBatch } from './settle';
import { PgCallers } from './callers';
import { maintainRequestLog, postgresLog } from './log';
import type { RequestLogSink } from '../request-log-sink';
import { statements } from './sql';
import { PostgresCatalogOverrides } from './catalog-overrides';
import { PostgresSessions } from './sessions';
import * as pgBudgets from './budgets';
import type { Budget, BudgetLimits } from '../../schemas/budgets';
import type { BudgetStore, BudgetUsage, UsageQuery } from '../budgets';
import type { GatewayStore, RequestLogEntry, ReserveRequest, ReserveResult, SettleResult, Settlement } from '../types';

/** Options of PostgresStore. */
export interface PostgresStoreOptions {
  /** A `pg` Pool. Required; the store never closes it. */
  pool: PgPoolLike;
  /** Schema holding the tables, so they can sit beside the host's own. Default: "model_gateway". */
  schema?: string;
  /** How long a key lookup is cached in this process, in ms (0 = never). Default: 5000. */
  keyCacheMs?: number;
  /** How often this instance releases holds whose lease ended and deletes expired stored responses, in ms (0 = never). Default: 15000. */
  sweepIntervalMs?: number;
  /** Days of request log kept: the sweeper drops the daily partitions older than that, hourly. Default: kept for ever. */
  requestLogRetentionDays?: number;
  /** Where the request log goes (docs/stores.md, "Request log sink"). Default: the store's `request_log` table. */
  requestLog?: RequestLogSink;
  /**
   * Told of errors the store handles itself: a pooled connection the server ended (restart,
   * failover, `pg_terminate_backend`; the pool opens a new one) and failed sweeps. Never thrown.
   * Default: one line on stderr.
   */
  onError?: (err: unknown) => void;
}

const reportToStderr = (err: unknown): void => console.error(`model-gateway: PostgresStore: ${err instanceof Error ? err.message : String(err)}`);

/**
 * Keys, balances, holds, ledger, settlements, reviews and the request log in PostgreSQL.
 * Reserve is one statement and settle one transaction: atomic across instances, exactly once per
 * request id by primary key. Run `migrate()` once before use (safe from every instance).
 */
export class PostgresStore implements GatewayStore, ReviewStore, LedgerReads, AuditStore, KeyAdminStore, StatsReads, BudgetStore {
  readonly schema: string;
  readonly catalogOverrides: PostgresCatalogOverrides; // runtime catalog edits and dashboard sign-ins, for every instance on the schema
  readonly dashboardSessions: PostgresSessions;
  private readonly pool: PgPoolLike;
  private readonly sql: ReturnType<typeof statements>;
  private readonly keys: PgCallers;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly onError: (err: unknown) => void;
  /** Stored Responses API responses (a ResponseStore, lib/stores/responses.ts), swept with the holds. */
  readonly responses: PostgresResponses;
  private readonly reserves = new Batcher<ReserveRequest, ReserveResult>((list) => this.reserveMany(list));
  private readonly settlements = new Batcher<Settlement, SettleResult>((list) => settleBatch(this.pool, this.schema, list));
  private readonly logs: Batcher<RequestLogEntry, void>;
  private readonly retentionDays: number | undefined;
  private maintained = 0;

  constructor(options: PostgresStoreOptions) {
    if (!options?.pool || typeof options.pool.query !== 'function') {
      throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'PostgresStore: option "pool" must be a pg Pool, e.g. new Pool({ connectionString }).');
    }
    this.pool = options.pool;
    this.schema = checkSchemaName(options.schema ?? 'model_gateway');
    this.sql = statements(this.schema);
    [this.catalogOverrides, this.dashboardSessions] = [new PostgresCatalogOverrides(this.pool, this.schema), new PostgresSessions(this.pool, this.schema)];
    this.onError = options.onError ?? reportToStderr;
    this.keys = new PgCallers((name, values) => this.run(name, values), options.keyCacheMs ?? 5000, this.onError);
    // A pg Pool emits 'error' when an idle connection dies; with no listener that kills the process.
    this.pool.on?.('error', this.onError);
    this.responses = new PostgresResponses(this.pool, this.schema);
    const sink = options.requestLog ?? postgresLog(this.pool, this.schema);
    if (typeof sink?.write !== 'function') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'PostgresStore: option "requestLog" must have write(entries) (a RequestLogSink).');
    this.logs = new Batcher<RequestLogEntry, void>(async (list) => { await sink.write(list); return list.map(() => undefined); });
    const days = options.requestLogRetentionDays;
    if (days !== undefined && (!Number.isSafeInteger(days) || days < 1)) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', 'PostgresStore: option "requestLogRetentionDays" must be a whole number of days, at least 1.');
    this.retentionDays = days;
    const every = options.sweepIntervalMs ?? 15_000;
    if (every > 0) {
      this.sweeper = setInterval(() => {
        void this.sweepExpiredHolds().catch(this.onError);
        void this.responses.sweepExpiredResponses().catch(this.onError);
        if (Date.now() - this.maintained >= 3_600_000) void this.maintainRequestLog().catch(this.onError);
      }, every);
      this.sweeper.unref();
    }
  }

  /** Runs one of the store's statements as a named (prepared) query; names carry the schema, so stores on one pool never collide. */
  private run(name: keyof ReturnType<typeof statements>, values: unknown[], on: PgQueryable = this.pool): Promise<PgResult> {
    return on.query({ name: `mgw_${this.schema}_${name}`, text: this.sql[name], values });
  }

  /** Resolves when the database answers and holds every migration this package ships; rejects naming the missing ones. */
  async ready(): Promise<void> {
    const applied = new Set((await this.pool.query(`SELECT version FROM ${this.schema}.migrations`)).rows.map((r) => Number(r.version)));
    const missing = shippedVersions().filter((v) => !applied.has(v));
    if (missing.length > 0) throw new Error(`PostgresStore: schema "${this.schema}" lacks migration${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: run migrate().`);
  }

  /** Creates or upgrades the tables (see lib/stores/postgres/sql). */
  migrate(): Promise<number[]> { return migrate(this.pool, this.schema); }

  /** The caller of a key digest; cached for `keyCacheMs` (the bound on how late a key change reaches this instance). */
  findCaller(keyHash: string): Promise<Caller | undefined> { return this.keys.find(keyHash); }

  /**
   * Holds `amount` if the available balance covers it. Reserves made in the same tick share one
   * statement (one round trip, one commit); a caller's requests in it are admitted in order.
   */
  reserve(r: ReserveRequest): Promise<ReserveResult> {
    return this.reserves.add(r);
  }

  /** A tick's reserves in one statement; when any is under a budget, in one call of reserve_scoped() (balance and budgets together). */
  private async reserveMany(list: ReserveRequest[]): Promise<ReserveResult[]> {
    const first = new Map<string, number>();
    list.forEach((r, i) => { if (!first.has(r.requestId)) first.set(r.requestId, i); });
    const scoped = list.some((r) => r.scopes !== undefined && r.scopes.length > 0);
    const rows = list.map((r, i) => ({
      i, request_id: r.requestId, caller_id: r.callerId, amount: r.amount, expires_at: r.expiresAt, instance_id: r.instanceId,
      ...(scoped ? { tokens: r.tokens ?? 0, scopes: r.scopes && r.scopes.length > 0 ? r.scopes : null } : {}),
    })).filter((row) => first.get(row.request_id) === row.i);
    const result = await retrying(() => this.run(scoped ? 'reserveScoped' : 'reserveMany', [JSON.stringify(rows)]));
    const byIndex = new Map(result.rows.map((row) => [row.i as number, row]));
    return list.map((r, i): ReserveResult => {
      const row = byIndex.get(i);
      if (row?.ok === true) return { ok: true };
      const refused: ReserveResult = { ok: false, available: row ? Math.max(0, num(row.available)) : 0 };
      // A short balance is named first, as MemoryStore does: the budget is only named when the balance would have held it.
      if (typeof row?.scope === 'string' && refused.available >= r.amount) Object.assign(refused, { scope: row.scope, dimension: row.dimension, left: num(row.remaining) });
      return refused;
    });
  }

  /** Settles exactly once per request id; settlements made in the same tick share one transaction. */
  settle(s: Settlement): Promise<SettleResult> {
    return this.settlements.add(s);
  }

  async renewHolds(instanceId: string, expiresAt: number): Promise<void> {
    await this.run('renewHolds', [instanceId, expiresAt]);
  }

  async release(requestId: string): Promise<void> {
    await this.run('release', [requestId]);
  }

  /** Appends one entry to the log sink; entries appended while a write is under way go together in the next. */
  async appendLog(e: RequestLogEntry): Promise<void> {
    await this.logs.add(e);
  }

  /** Makes the coming days' log partitions and drops those past `requestLogRetentionDays`; returns how many it dropped. */
  async maintainRequestLog(now = Date.now()): Promise<number> {
    this.maintained = Date.now();
    return maintainRequestLog(this.pool, this.schema, this.retentionDays, now);
  }

  /** Releases every expired hold (of any instance); returns how many callers it touched. */
  async sweepExpiredHolds(): Promise<number> {
    return (await this.run('sweep', [])).rowCount ?? 0;
  }

  /** Adds or replaces a key (stored as its digest). Never moves money. */
  async addKey(key: string, caller: MemoryKey): Promise<void> {
    checkProvision(caller, 'PostgresStore');
    await this.run('addKey', [hashKey(key), caller.id, caller.models ?? null, caller.limits ?? null, caller.disabled ?? null, prefixOf(key)]);
    this.keys.forget(hashKey(key));
  }

  /**
   * Credits (or, negative, debits) a caller once per idempotency key, across retries, restarts
   * and instances: the ledger row (unique by key) and the balance in one statement.
   */
  async credit(credit: Credit): Promise<CreditResult> {
    const change = checkCredit(credit, 'PostgresStore');
    for (let n = 0; n < 3; n++) {
      const row = (await this.run('credit', [change.callerId, change.amount, change.idempotencyKey, credit.createAccount === true])).rows[0] as
        { applied: number; known: boolean; caller_id: string | null; amount: unknown } | undefined;
      if (row?.applied === 1) return { ...change, applied: true };
      // Inserted by another transaction: read it (it may have committed after this statement's snapshot).
      if (row?.caller_id) return replayOf(change, { callerId: row.caller_id, amount: num(row.amount), idempotencyKey: change.idempotencyKey });
      if (row?.known === false && credit.createAccount !== true) throw noAccountError(change.callerId);
    }
    throw new Error(`PostgresStore.credit: idempotency key "${change.idempotencyKey}" could not be read back.`);
  }

  listReviews(query: ReviewQuery = {}): Promise<Page<ReviewRecord>> { return reads.listReviews((name, values) => this.run(name, values), query); }

  resolveReview(decision: ResolveReview): Promise<{ applied: boolean; review: ReviewRecord }> { return reads.resolveReview((name, values) => this.run(name, values), decision); }

  createKey(key: NewKey): Promise<KeyRecord> { return pgKeys.createKey(this.pool, this.schema, key); }

  getKey(keyId: string): Promise<KeyRecord | undefined> { return pgKeys.getKey(this.pool, this.schema, keyId); }

  listKeys(query: { callerId?: string; limit?: number; after?: string } = {}): Promise<Page<KeyRecord>> { return pgKeys.listKeys(this.pool, this.schema, query); }

  /** Applies an operator's change; this instance forgets its cached callers, others within `keyCacheMs`. */
  async updateKey(keyId: string, patch: KeyPatch): Promise<{ before: KeyRecord; after: KeyRecord } | undefined> {
    const out = await pgKeys.updateKey(this.pool, this.schema, keyId, patch);
    this.keys.forget();
    return out;
  }

  async appendAudit(entry: Omit<AuditEntry, 'id' | 'at'>): Promise<AuditEntry> {
    const row = (await this.run('appendAudit', [entry.actor, entry.action, entry.target, JSON.stringify(entry.before ?? null), JSON.stringify(entry.after ?? null)])).rows[0];
    return reads.auditOf(row as Record<string, unknown>);
  }

  listAudit(query: AuditQuery = {}): Promise<Page<AuditEntry>> { return reads.listAudit(this.pool, this.schema, query); }

  listLedger(query: ReadQuery = {}): Promise<Page<LedgerEntry>> { return reads.listLedger(this.pool, this.schema, query); }

  listRequests(query: RequestQuery = {}): Promise<Page<RequestLogEntry>> { return reads.listRequests(this.pool, this.schema, query); }

  spend(query: ReadQuery & { from: number; to: number }): Promise<Page<SpendRow>> { return reads.spend(this.pool, this.schema, query); }

  listAccounts(query: AccountQuery = {}): Promise<Page<AccountRow>> { return stats.listAccounts(this.pool, this.schema, query); }
  requestSeries(query: SeriesQuery): Promise<SeriesPoint[]> { return stats.requestSeries(this.pool, this.schema, query); }

  /** Replaces a budget; this instance forgets its cached callers, others within `keyCacheMs`. */
  async putBudget(scope: string, limits: BudgetLimits): Promise<{ before: Budget | undefined; after: Budget }> {
    const out = await pgBudgets.putBudget(this.pool, this.schema, scope, limits);
    this.keys.forget();
    return out;
  }

  getBudget(scope: string): Promise<Budget | undefined> { return pgBudgets.getBudget(this.pool, this.schema, scope); }

  listBudgets(query: { limit?: number; after?: string } = {}): Promise<Page<Budget>> { return pgBudgets.listBudgets(this.pool, this.schema, query); }

  async deleteBudget(scope: string): Promise<Budget | undefined> {
    const out = await pgBudgets.deleteBudget(this.pool, this.schema, scope);
    this.keys.forget();
    return out;
  }

  async setOrganization(callerId: string, orgId: string | null): Promise<{ before: string | null; after: string | null }> {
    const out = await pgBudgets.setOrganization(this.pool, this.schema, callerId, orgId);
    this.keys.forget();
    return out;
  }

  getOrganization(callerId: string): Promise<string | null> { return pgBudgets.getOrganization(this.pool, this.schema, callerId); }

  budgetUsage(query: UsageQuery): Promise<Page<BudgetUsage>> { return pgBudgets.budgetUsage(this.pool, this.schema, query); }

  /** Balance, live holds, the remainder owed below one unit, and the ledger sum (must equal the balance). */
  async getAccount(callerId: string): Promise<Account> {
    const row = (await this.run('balance', [callerId])).rows[0];
    if (!row) throw noAccountError(callerId);
    return { balance: num(row.balance), held: num(row.held), carry: decimal(row.carry), ledger: num(row.ledger) };
  }

  /** Stops the sweeper; resolves once the keys' last-use writes under way are written, then drops its pool listener (the pool is the host's to end). */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    await this.keys.written();
    this.pool.off?.('error', this.onError);
  }
}
