/** Rate limiters (rate-limiter-flexible) per kind and size, in memory or in Redis. */
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** The three limits a caller has. */
export type LimitKind = 'rpm' | 'tpm' | 'concurrency';

/** Where counters live. */
export interface LimiterBackendOptions {
  /** An ioredis (or node-redis) client: counters are shared by every instance using it. Default: in-process memory. */
  redis?: unknown;
  /**
   * Prefix of every counter key. Every limits() with the same prefix shares its counters: in
   * one process for memory, across processes for Redis. Default: "mgw".
   */
  keyPrefix?: string;
  /** Length of the rpm and tpm window, in seconds. Default: 60. */
  windowSec?: number;
  /** Seconds a concurrency slot lives if its request never finishes (a crashed instance). Default: 900. */
  concurrencyTtlSec?: number;
}

type Pool = Map<string, RateLimiterAbstract>;
const memoryPools = new Map<string, Pool>();
const redisPools = new WeakMap<object, Map<string, Pool>>();

function poolFor(redis: unknown, prefix: string): Pool {
  const byPrefix = redis ? (redisPools.get(redis as object) ?? new Map<string, Pool>()) : memoryPools;
  if (redis) redisPools.set(redis as object, byPrefix);
  let pool = byPrefix.get(prefix);
  if (!pool) byPrefix.set(prefix, (pool = new Map()));
  return pool;
}

/**
 * Returns the limiter for a kind and a number of points, created once per backend and prefix.
 * rpm and tpm use a `windowSec` window; concurrency a long window whose points are given back
 * when a request ends.
 */
export function limiterPool(options: LimiterBackendOptions): (kind: LimitKind, points: number) => RateLimiterAbstract {
  const prefix = options.keyPrefix ?? 'mgw';
  const ttl = options.concurrencyTtlSec ?? 900;
  const window = options.windowSec ?? 60;
  for (const [name, value] of [['windowSec', window], ['concurrencyTtlSec', ttl]] as const) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`limits: option "${name}" must be a positive integer of seconds.`);
  }
  const pool = poolFor(options.redis, prefix);
  return (kind, points) => {
    const duration = kind === 'concurrency' ? ttl : window;
    const key = `${kind}:${points}:${duration}`;
    let limiter = pool.get(key);
    if (!limiter) {
      const settings = { keyPrefix: `${prefix}:${key}`, points, duration };
      limiter = options.redis
        ? new RateLimiterRedis({ ...settings, storeClient: options.redis, rejectIfRedisNotReady: true })
        : new RateLimiterMemory(settings);
      pool.set(key, limiter);
    }
    return limiter;
  };
}
