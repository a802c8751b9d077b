/** The counters behind each limit: in this process, or in Redis (shared by every instance). */
import { GatewayConfigError } from '../foundation/config-errors';
import { checkDuration } from '../foundation/duration';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { GATEWAY_DEFAULTS, withDefaults } from '../foundation/defaults';
import { LibraryCounter, type Counter } from './counter';
import { WindowCounter } from './memory-counters';
import { MemorySlots, RedisSlots, type RedisEval, type Slots } from './slots';

/** The three limits a caller has. */
export type LimitKind = 'rpm' | 'tpm' | 'concurrency';

/** Where counters live. */
export interface LimiterBackendOptions {
  /** An ioredis client: counters are shared by every instance using it. Default: in-process memory. */
  redis?: unknown;
  /**
   * Prefix of every counter key. Every limits() with the same prefix shares its counters: in
   * one process for memory, across processes for Redis. Default: "mgw".
   */
  keyPrefix?: string;
  /** Length of the rpm and tpm window, in seconds. Default: 60. */
  windowSec?: number;
  /**
   * Redis only: the lease of a concurrency slot, in ms. A request in flight renews it every
   * quarter lease; a slot whose instance died (or whose give-back failed) frees after it. Default: 60000.
   */
  slotLeaseMs?: number;
}

/** The counters of one backend and prefix. */
export interface LimiterPool {
  /** The rpm or tpm counter of a given limit. */
  window(kind: 'rpm' | 'tpm', limit: number): Counter;
  /** The concurrency slots. */
  readonly slots: Slots;
  /** The slots' lease, in ms. */
  readonly slotLeaseMs: number;
}

type Pools = Map<string, LimiterPool>;
const memoryPools: Pools = new Map();
const redisPools = new WeakMap<object, Pools>();

function isRedis(value: unknown): value is RedisEval {
  return typeof (value as { eval?: unknown } | null)?.eval === 'function';
}

/**
 * The pool for a backend and prefix, created once and shared by every limits() that names them.
 * rpm and tpm count in `windowSec` windows; concurrency counts requests in flight.
 */
export function limiterPool(options: LimiterBackendOptions): LimiterPool {
  const { keyPrefix: prefix, windowSec: window, slotLeaseMs } = withDefaults(GATEWAY_DEFAULTS.limits, options);
  checkDuration(window, 'limits: option "windowSec"', { unit: 'seconds' });
  checkDuration(slotLeaseMs, 'limits: option "slotLeaseMs"', { min: 100 });
  const redis = options.redis;
  if (redis !== undefined && !isRedis(redis)) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'limits: option "redis" must be an ioredis client, e.g. new Redis(url).');
  const byPrefix = redis ? (redisPools.get(redis) ?? new Map<string, LimiterPool>()) : memoryPools;
  if (redis) redisPools.set(redis, byPrefix);
  const known = byPrefix.get(`${prefix}:${slotLeaseMs}`);
  if (known) return known;
  const counters = new Map<string, Counter>();
  const pool: LimiterPool = Object.freeze({
    slotLeaseMs,
    slots: redis ? new RedisSlots(redis, prefix, slotLeaseMs) : new MemorySlots(),
    window(kind: 'rpm' | 'tpm', limit: number): Counter {
      const key = `${kind}:${limit}:${window}`;
      let counter = counters.get(key);
      if (!counter) {
        counter = redis
          ? new LibraryCounter(new RateLimiterRedis({ keyPrefix: `${prefix}:${key}`, points: limit, duration: window, storeClient: redis, rejectIfRedisNotReady: true }))
          : new WindowCounter(limit, window * 1000);
        counters.set(key, counter);
      }
      return counter;
    },
  });
  byPrefix.set(`${prefix}:${slotLeaseMs}`, pool);
  return pool;
}
