/** PostgresStore's key lookups: cached per instance for `keyCacheMs`, the misses of a tick in one SELECT, "last used" in one UPDATE per batch. */
import type { Caller } from '../../types';
import { Batcher } from './batcher';
import { callerOfRow } from './keys';

const KEY_CACHE_SIZE = 10_000;

type Query = (name: 'findCallers' | 'touchKeys', values: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;

/**
 * A key change (revocation, new grants) reaches this instance within `cacheMs`: that is the
 * bound, and 0 looks every request up. `last_used_at` is written at most once per key per
 * `cacheMs` per instance (on a cache miss), and the writes of a tick go as one statement.
 */
export class PgCallers {
  private readonly cache = new Map<string, { caller: Caller; until: number }>();
  private readonly lookups: Batcher<string, Record<string, unknown> | undefined>;
  private readonly touches: Batcher<string, void>;

  constructor(query: Query, private readonly cacheMs: number, onError: (err: unknown) => void) {
    this.lookups = new Batcher(async (hashes) => {
      const rows = (await query('findCallers', [[...new Set(hashes)]])).rows;
      const byHash = new Map(rows.map((r) => [r.key_hash as string, r]));
      return hashes.map((h) => byHash.get(h));
    }, { inFlight: 4 });
    this.touches = new Batcher<string, void>(async (hashes) => {
      await query('touchKeys', [[...new Set(hashes)]]);
      return hashes.map(() => undefined);
    });
    this.touch = (hash) => {
      const write = this.touches.add(hash).catch(onError);
      this.writing.add(write);
      void write.finally(() => this.writing.delete(write));
    };
  }

  private readonly touch: (hash: string) => void;
  /** Last-use writes asked for and not yet written: what close() waits for. */
  private readonly writing = new Set<Promise<void>>();

  /** Resolves once every last-use write asked for so far is written (or its failure reported). */
  async written(): Promise<void> {
    await Promise.all(this.writing);
  }

  async find(keyHash: string): Promise<Caller | undefined> {
    const cached = this.cache.get(keyHash);
    if (cached && cached.until > Date.now()) return cached.caller;
    const row = await this.lookups.add(keyHash);
    const caller: Caller | undefined = row && callerOfRow(row);
    if (row) this.touch(keyHash); // the time of use: a failure is only reported
    // Only keys that exist are cached, and at most KEY_CACHE_SIZE of them: random keys sent by an
    // attacker must not grow this map.
    if (caller && this.cacheMs > 0) {
      if (this.cache.size >= KEY_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(keyHash, { caller, until: Date.now() + this.cacheMs });
    }
    return caller;
  }

  /** How many keys are cached. */
  get size(): number { return this.cache.size; }

  /** Forgets one cached key, or all of them. */
  forget(keyHash?: string): void {
    if (keyHash === undefined) this.cache.clear();
    else this.cache.delete(keyHash);
  }
}
