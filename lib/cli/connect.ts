/**
 * Reaching the configured store and Redis: only serve and migrate change the schema; every other
 * command needs it current. A failure here is not the config's (exit code 1).
 */
import type { Redis } from 'ioredis';
import type { ConfiguredStore } from './build';

const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Applies the migrations the schema lacks; returns their versions (undefined for a memory store: nothing to migrate). */
export async function migrateStore({ store }: ConfiguredStore): Promise<number[] | undefined> {
  if (!('migrate' in store)) return undefined;
  try {
    return await store.migrate();
  } catch (err) {
    throw new Error(`store: PostgreSQL could not be reached or migrated: ${reason(err)}`);
  }
}

// SQLSTATEs of a schema never migrated: undefined_table, invalid_schema_name.
const NOT_CREATED = new Set(['42P01', '3F000']);

/** Resolves when the store holds this version's schema; else fails naming `migrate` as the fix. */
export async function requireMigrated({ store }: ConfiguredStore, migrate: string): Promise<void> {
  try {
    await store.ready();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    // ready() names a schema that is behind with no code; a server that cannot be reached has a network code.
    if (code === undefined || NOT_CREATED.has(String(code))) {
      throw new Error(`store: ${reason(err)}. Only serve and migrate change the schema: run \`${migrate}\` first.`);
    }
    throw new Error(`store: PostgreSQL could not be reached: ${reason(err)}`);
  }
}

/** Connects the limits' Redis client. */
export async function connectRedis(redis: Redis | undefined): Promise<void> {
  try {
    await redis?.connect();
  } catch (err) {
    throw new Error(`redis.url: Redis could not be reached: ${reason(err)}`);
  }
}
