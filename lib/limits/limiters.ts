/** Rate limiters (rate-limiter-flexible) per kind and size, in memory or in Redis. */
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** The three limits a caller has. */
export type LimitKind = 'rpm' | 'tpm' | 'concurrency';

/** Where counters live. */
export interface LimiterBackendOptions {
  /** An ioredis (or node-redis) client: counters are shared by every instance using it. Default: in-process memory. */
  redis?: unknown;
  /** Prefix of every counter key (keeps tests and tenants apart). Default: "mgw". */
  keyPrefix?: string;
  /** Seconds a concurrency slot lives if its request never finishes (a crashed instance). Default: 900. */
  concurrencyTtlSec?: number;
}

/**
 * Returns the limiter for a kind and a number of points, creating it once. rpm and tpm use a
 * 60 s window; concurrency uses a long window whose points are given back when a request ends.
 */
export function limiterPool(options: LimiterBackendOptions): (kind: LimitKind, points: number) => RateLimiterAbstract {
  const prefix = options.keyPrefix ?? 'mgw';
  const ttl = options.concurrencyTtlSec ?? 900;
  const pool = new Map<string, RateLimiterAbstract>();
  return (kind, points) => {
    const key = `${kind}:${points}`;
    let limiter = pool.get(key);
    if (!limiter) {
      const settings = { keyPrefix: `${prefix}:${key}`, points, duration: kind === 'concurrency' ? ttl : 60 };
      limiter = options.redis
        ? new RateLimiterRedis({ ...settings, storeClient: options.redis, rejectIfRedisNotReady: true })
        : new RateLimiterMemory(settings);
      pool.set(key, limiter);
    }
    return limiter;
  };
}
