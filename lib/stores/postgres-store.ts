/** PostgresStore: the GatewayStore for several instances over one PostgreSQL (pg client). */
import type { Caller, LimitSettings } from '../types';
import { hashKey } from './hash';
import type { MemoryKey } from './memory-store';
import { checkSchemaName, migrate, type PgPoolLike } from './migrate';
import { statements } from './postgres-sql';
import type { GatewayStore, RequestLogEntry, ReserveRequest, ReserveResult, Settlement } from './types';

/** Options of PostgresStore. */
export interface PostgresStoreOptions {
  /** A `pg` Pool. Required; the store never closes it. */
  pool: PgPoolLike;
  /** Schema holding the tables, so they can sit beside the host's own. Default: "model_gateway". */
  schema?: string;
  /** How long a key lookup is cached in this process, in ms (0 = never). Default: 5000. */
  keyCacheMs?: number;
  /** How often this instance releases expired holds, in ms (0 = never). Default: 30000. */
  sweepIntervalMs?: number;
}

const toNumber = (v: unknown): number => (typeof v === 'string' ? Number(v) : (v as number));

/**
 * Keys, balances, holds, ledger, settlements, reviews and the request log in PostgreSQL.
 * Reserve and settle are single statements: atomic across instances, exactly once per
 * request id by primary key. Run `migrate()` once before use (safe from every instance).
 */
export class PostgresStore implements GatewayStore {
  readonly schema: string;
  private readonly pool: PgPoolLike;
  private readonly sql: ReturnType<typeof statements>;
  private readonly keyCacheMs: number;
  private readonly keys = new Map<string, { caller: Caller | undefined; until: number }>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: PostgresStoreOptions) {
    if (!options?.pool || typeof options.pool.query !== 'function') {
      throw new TypeError('PostgresStore: option "pool" must be a pg Pool, e.g. new Pool({ connectionString }).');
    }
    this.pool = options.pool;
    this.schema = checkSchemaName(options.schema ?? 'model_gateway');
    this.sql = statements(this.schema);
    this.keyCacheMs = options.keyCacheMs ?? 5000;
    const every = options.sweepIntervalMs ?? 30_000;
    if (every > 0) {
      this.sweeper = setInterval(() => void this.sweepExpiredHolds().catch(() => undefined), every);
      this.sweeper.unref();
    }
  }

  /** Creates or upgrades the tables (see lib/stores/sql). */
  migrate(): Promise<number[]> {
    return migrate(this.pool, this.schema);
  }

  async findCaller(keyHash: string): Promise<Caller | undefined> {
    const cached = this.keys.get(keyHash);
    if (cached && cached.until > Date.now()) return cached.caller;
    const row = (await this.pool.query(this.sql.findCaller, [keyHash])).rows[0];
    const caller: Caller | undefined = row && {
      id: row.caller_id as string,
      ...(row.models ? { models: row.models as string[] } : {}),
      ...(row.limits ? { limits: row.limits as LimitSettings } : {}),
      disabled: row.disabled === true,
    };
    if (this.keyCacheMs > 0) this.keys.set(keyHash, { caller, until: Date.now() + this.keyCacheMs });
    return caller;
  }

  async reserve(r: ReserveRequest): Promise<ReserveResult> {
    const held = await this.pool.query(this.sql.reserve, [r.callerId, r.requestId, r.amount, r.expiresAt]);
    if (held.rowCount === 1) return { ok: true };
    const row = (await this.pool.query(this.sql.available, [r.callerId])).rows[0];
    return { ok: false, available: row ? toNumber(row.available) : 0 };
  }

  async settle(s: Settlement): Promise<{ applied: boolean }> {
    const { rows } = await this.pool.query(this.sql.settle, [
      s.requestId, s.callerId, s.model, s.endpoint, s.charge, s.billingStatus, JSON.stringify(s.usage), s.usage.searchUnits,
    ]);
    return { applied: rows[0]?.applied === 1 };
  }

  async release(requestId: string): Promise<void> {
    await this.pool.query(this.sql.release, [requestId]);
  }

  async appendLog(e: RequestLogEntry): Promise<void> {
    await this.pool.query(this.sql.appendLog, [
      e.requestId, e.callerId, e.endpoint, e.model, e.stream, e.status, e.errorCode, e.usage && JSON.stringify(e.usage), e.charge,
      e.billingStatus, e.startedAt, e.durationMs, e.ttfbMs, e.upstream, e.detail, e.user,
      e.attempts.length > 0 ? JSON.stringify(e.attempts) : null,
    ]);
  }

  /** Releases every expired hold (of any instance); returns how many callers it touched. */
  async sweepExpiredHolds(): Promise<number> {
    return (await this.pool.query(this.sql.sweep)).rowCount ?? 0;
  }

  /** Adds or replaces a key (stored as its digest) and credits its starting balance. */
  async addKey(key: string, caller: MemoryKey): Promise<void> {
    await this.pool.query(this.sql.addKey, [hashKey(key), caller.id, caller.models ?? null, caller.limits ?? null, caller.disabled ?? false]);
    this.keys.delete(hashKey(key));
    if (caller.balance) await this.credit(caller.id, caller.balance);
  }

  /** Adds money to a caller (a ledger row and the balance, in one statement). */
  async credit(callerId: string, amount: number): Promise<void> {
    if (!Number.isSafeInteger(amount)) throw new TypeError('PostgresStore.credit: amount must be an integer of minor units.');
    await this.pool.query(this.sql.credit, [callerId, amount]);
  }

  /** Balance, live holds and the ledger sum of a caller (balance must equal the ledger sum). */
  async getAccount(callerId: string): Promise<{ balance: number; held: number; ledger: number }> {
    const row = (await this.pool.query(this.sql.balance, [callerId])).rows[0];
    return row ? { balance: toNumber(row.balance), held: toNumber(row.held), ledger: toNumber(row.ledger) } : { balance: 0, held: 0, ledger: 0 };
  }

  /** Stops the sweeper (the pool is the host's to end). */
  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
