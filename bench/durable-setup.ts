/** The durable bench's part inside a server under test (bench/targets.ts): many accounts, and a Redis client for the limits. */
import Redis from 'ioredis';
import type { Pool } from 'pg';
import type { PgClientLike } from '../lib/stores/postgres/migrate';
import type * as lib from '../lib';
import { KEY } from './key';

/** BENCH_ACCOUNTS: how many accounts the load spreads over (keys `${KEY}-${i}`; 1 = the bench key alone). */
export const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1);
export const accountKey = (i: number): string => (ACCOUNTS <= 1 ? KEY : `${KEY}-${i}`);

/** Makes the BENCH_ACCOUNTS keys and their credit (several at a time). */
export async function addAccounts(store: { addKey(k: string, c: object): unknown; credit(c: lib.Credit): unknown }): Promise<void> {
  if (ACCOUNTS <= 1) return;
  for (let i = 0; i < ACCOUNTS; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, ACCOUNTS - i) }, async (_, j) => {
      await store.addKey(accountKey(i + j), { id: `bench-${i + j}` });
      await store.credit({ callerId: `bench-${i + j}`, amount: 1e15, idempotencyKey: `opening-bench-${i + j}` });
    }));
  }
}

/** An ioredis client on BENCH_REDIS_URL. */
export async function redisClient(): Promise<Redis> {
  const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  await redis.ping();
  return redis;
}

/** Transactions this process sent: each statement on the pool, and each COMMIT on a lent client. */
export const sent = { xacts: 0 };

const counted = new WeakSet<object>();

/** The pool, counting what `sent` counts (the store only uses query, connect, on and off). */
export function countingPool(pool: Pool): lib.PgPoolLike {
  return {
    query: ((...args: Parameters<Pool['query']>) => { sent.xacts++; return (pool.query as (...a: unknown[]) => unknown)(...args); }) as lib.PgPoolLike['query'],
    connect: async () => {
      const client = await pool.connect();
      if (!counted.has(client)) {
        counted.add(client); // a pooled client comes back: wrapped once
        const query = client.query.bind(client) as (...a: unknown[]) => unknown;
        Object.assign(client, { query: (...args: unknown[]) => { if (args[0] === 'COMMIT') sent.xacts++; return query(...args); } });
      }
      return client as unknown as PgClientLike;
    },
    on: (event, listener) => pool.on(event, listener),
    off: (event, listener) => pool.off(event, listener),
  };
}
