/** Real PostgreSQL and Redis for tests: each test file gets its own schema or key prefix, and cleans up. */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { MemoryStore, migrate, PostgresStore } from '../../lib';

export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A pool on the test database; a missing server is a failure with a clear message, never a skip. */
export async function pgPool(max = 10): Promise<Pool> {
  const pool = new Pool({ connectionString: PG_URL, max });
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end();
    throw new Error(`PostgreSQL is required at ${PG_URL} (set TEST_DATABASE_URL): ${String(err)}. .ci/run starts it.`);
  }
  return pool;
}

/** A fresh schema name for one test file. */
export const uniqueSchema = (): string => `mgw_test_${randomBytes(5).toString('hex')}`;

/** A migrated PostgresStore in its own schema, and a cleanup that drops it. */
export async function pgStore(options: { keyCacheMs?: number; sweepIntervalMs?: number } = {}): Promise<{ store: PostgresStore; pool: Pool; schema: string; drop(): Promise<void> }> {
  const pool = await pgPool();
  const schema = uniqueSchema();
  // Migrated first, so a store that sweeps never sweeps a schema not created yet.
  await migrate(pool, schema);
  let dropping = false;
  // A sweep already running when drop() begins may meet the dropped schema: the teardown's error, not the test's.
  const onError = (err: unknown): void => { if (!dropping) console.error(`PostgresStore: ${String(err)}`); };
  const store = new PostgresStore({ pool, schema, keyCacheMs: 0, sweepIntervalMs: 0, onError, ...options });
  return {
    store, pool, schema,
    drop: async () => {
      dropping = true;
      await store.close();
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };
}

/** A Redis client; a missing server is a failure with a clear message. */
export async function redisClient(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(`Redis is required at ${REDIS_URL} (set TEST_REDIS_URL): ${String(err)}. .ci/run starts it.`);
  }
  return redis;
}

/** Deletes every key under a prefix. */
export async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/** A built-in store to run a suite on, and its cleanup. */
export type MadeStore = { store: MemoryStore | PostgresStore; drop: () => Promise<void> };

/** Both built-in stores, for describe.each: MemoryStore, and a migrated PostgresStore in its own schema. */
export const BOTH_STORES = [
  ['MemoryStore', async (): Promise<MadeStore> => ({ store: new MemoryStore(), drop: async () => undefined })],
  ['PostgresStore', async (): Promise<MadeStore> => { const made = await pgStore(); return { store: made.store, drop: made.drop }; }],
] as const;
