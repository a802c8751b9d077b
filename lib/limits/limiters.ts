/** The counters of each limit kind and size: in this process, or in Redis (rate-limiter-flexible). */
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { LibraryCounter, type Counter } from './counter';
import { SlotCounter, WindowCounter } from './memory-counters';

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
  /** Redis only: seconds a concurrency slot lives if its request never finishes (a crashed instance). Default: 900. */
  concurrencyTtlSec?: number;
}

type Pool = Map<string, Counter>;
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
 * Returns the counter for a kind and a limit, created once per backend and prefix. rpm and tpm
 * count in `windowSec` windows; concurrency counts requests in flight, whose slots are given
 * back when they end (in Redis they also expire after `concurrencyTtlSec`, for a crashed instance).
 */
export function limiterPool(options: LimiterBackendOptions): (kind: LimitKind, points: number) => Counter {
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
    let counter = pool.get(key);
    if (!counter) {
      if (options.redis) {
        const settings = { keyPrefix: `${prefix}:${key}`, points, duration, storeClient: options.redis, rejectIfRedisNotReady: true };
        counter = new LibraryCounter(new RateLimiterRedis(settings));
      } else {
        counter = kind === 'concurrency' ? new SlotCounter(points) : new WindowCounter(points, duration * 1000);
      }
      pool.set(key, counter);
    }
    return counter;
  };
}
