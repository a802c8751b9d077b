/** Concurrency slots: one per request in flight, given back when it ends; in Redis, a lease that lapses if it is not. */
import { LeaseKeeper } from '../foundation/leases';
import { ADMITTED, type Taken } from './counter';

/** A request's slot: whose, which request holds it, and whether that request is over. */
export interface Slot {
  readonly key: string;
  readonly id: string;
  /** Whether the request is over (a slot never given back stops being renewed then). */
  readonly over: () => boolean;
}

/** Requests in flight per key, each holding its own slot. */
export interface Slots {
  /** Takes a slot for request `slot.id` when fewer than `limit` are held. */
  take(slot: Slot, limit: number): Taken | Promise<Taken>;
  /** Gives the slot back (idempotent). */
  give(slot: Slot): unknown;
}

/** A concurrency refusal: a slot frees when a request ends, so retry soon. */
const FULL: Taken = Object.freeze({ ok: false, retryMs: 1000 });

/**
 * Slots in this process. No slot can outlive its process, so none needs a lease: every slot
 * taken is given back by billingHook() when its request ends.
 */
export class MemorySlots implements Slots {
  private readonly held = new Map<string, Set<string>>();

  take(slot: Slot, limit: number): Taken {
    let ids = this.held.get(slot.key);
    if (ids?.has(slot.id)) return ADMITTED;
    if ((ids?.size ?? 0) >= limit) return FULL;
    if (!ids) this.held.set(slot.key, (ids = new Set()));
    ids.add(slot.id);
    return ADMITTED;
  }

  give(slot: Slot): void {
    const ids = this.held.get(slot.key);
    if (!ids?.delete(slot.id)) return;
    if (ids.size === 0) this.held.delete(slot.key);
  }

  /** Slots held under `key` (for tests and diagnosis). */
  count(key: string): number {
    return this.held.get(key)?.size ?? 0;
  }
}

/** The part of an ioredis client the slots use. */
export interface RedisEval {
  eval(script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
  /** ioredis's connection state ("ready" when connected). */
  readonly status?: string;
}

// Server time, so every instance agrees on when a lease ends.
const NOW = `local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)`;

/** KEYS[1] the caller's set; ARGV limit, request id, lease ms. Lapsed members are dropped first. */
const TAKE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[2]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** KEYS[1] the caller's set; ARGV lease ms, then the request ids still held (XX: a given-back slot is not re-added). */
const RENEW = `${NOW}
local expiry = now + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', expiry, ARGV[i]) end
if redis.call('ZCARD', KEYS[1]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0`;

/** Attempts at giving a slot back before its lease is left to lapse. */
const GIVE_ATTEMPTS = 3;
const GIVE_BACKOFF_MS = 200;

/**
 * Slots in Redis, shared by every instance: one sorted set per key, a member per request scored
 * with its lease's end. A member whose lease lapsed (its instance died, or its give-back failed)
 * stops counting; the set's own expiry is pushed back with every take and renewal, so it never
 * ends while a member lives. The count is a set's size: it cannot go negative. The slots this
 * instance holds are renewed every quarter lease until given back or their request is over.
 */
export class RedisSlots implements Slots {
  private readonly leases: LeaseKeeper<Slot>;

  constructor(private readonly redis: RedisEval, private readonly prefix: string, private readonly leaseMs: number) {
    this.leases = new LeaseKeeper<Slot>(leaseMs, (held) => this.renew(held), (slot) => slot.over());
  }

  private keyOf(key: string): string {
    return `${this.prefix}:slots:${key}`;
  }

  async take(slot: Slot, limit: number): Promise<Taken> {
    // A client that lost its connection would queue the call until it reconnects: an admission fails at once instead (as rpm and tpm do).
    if (this.redis.status !== undefined && this.redis.status !== 'ready') throw new Error(`Redis is not ready (${this.redis.status})`);
    const ok = await this.redis.eval(TAKE, 1, this.keyOf(slot.key), limit, slot.id, this.leaseMs);
    if (Number(ok) !== 1) return FULL;
    this.leases.track(`${slot.key}\u0000${slot.id}`, slot);
    return ADMITTED;
  }

  /** Tried a few times (a connection blip); if it still fails, the lease lapses within leaseMs. */
  async give(slot: Slot): Promise<void> {
    this.leases.release(`${slot.key}\u0000${slot.id}`);
    for (let n = 1; ; n++) {
      try {
        await this.redis.eval('return redis.call(\'ZREM\', KEYS[1], ARGV[1])', 1, this.keyOf(slot.key), slot.id);
        return;
      } catch (err) {
        if (n >= GIVE_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, GIVE_BACKOFF_MS * n));
      }
    }
  }

  /** Extends the leases of `slots` by one lease from now (the server's clock); given-back ones stay gone. */
  private async renew(slots: readonly Slot[]): Promise<void> {
    const byKey = new Map<string, string[]>();
    for (const slot of slots) {
      const ids = byKey.get(slot.key);
      if (ids) ids.push(slot.id);
      else byKey.set(slot.key, [slot.id]);
    }
    await Promise.all([...byKey].map(([key, ids]) => this.redis.eval(RENEW, 1, this.keyOf(key), this.leaseMs, ...ids)));
  }
}
