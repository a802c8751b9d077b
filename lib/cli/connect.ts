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
    throw new Error(`store: PostgreSQL could not be reached or migrated: ${reason(err)}; check store.url and that PostgreSQL is running`);
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
    throw new Error(`store: PostgreSQL could not be reached: ${reason(err)}; check store.url and that PostgreSQL is running`);
  }
}

/**
 * Says in one line when Redis is lost after it was reached, and when it is back (ioredis would
 * print a stack for every attempt); a first connect that fails is connectRedis's to report.
 */
export function watchRedis(redis: Redis, print: (line: string) => void): void {
  let reached = false;
  let lost = false;
  redis.on('ready', () => {
    if (lost) print('redis: reconnected');
    reached = true;
    lost = false;
  });
  redis.on('error', (err: Error) => {
    if (!reached || lost) return;
    lost = true;
    print(`redis: connection lost (${err.message}); reconnecting`);
  });
}

/**
 * Connects the limits' Redis client. One that cannot be reached fails the start, unless the limits
 * fail open (`limits.failOpen`): then the instance serves without them, says so, and ioredis keeps
 * reconnecting (a line when it is reached).
 */
export async function connectRedis(redis: Redis | undefined, { failOpen = false, print }: { failOpen?: boolean; print?: (line: string) => void } = {}): Promise<void> {
  if (!redis) return;
  let cause: unknown; // the socket's own error ("connect ECONNREFUSED …"), where connect() says only "Connection is closed."
  const note = (err: unknown): void => { cause ??= err; };
  redis.on('error', note);
  try {
    await redis.connect();
  } catch (err) {
    const why = `Redis could not be reached: ${reason(cause ?? err)}`;
    if (!failOpen) throw new Error(`redis.url: ${why}; check redis.url and that Redis is running`);
    print?.(`redis: ${why}; serving with the limits failing open (limits.failOpen) until it is reached`);
    redis.once('ready', () => print?.('redis: reached; the limits apply again'));
  } finally {
    redis.off('error', note);
  }
}
