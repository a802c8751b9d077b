/** migrate(): applies the shipped SQL files in order, once, under an advisory lock (safe from several instances). */
import { GatewayConfigError } from '../../foundation/config-errors';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The part of a pg Pool the store uses. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<PgResult>;
  /** A named query: prepared once per connection, then only bound and executed. */
  query(config: { name: string; text: string; values?: unknown[] }): Promise<PgResult>;
}

/** The part of a pg result the store reads. */
export interface PgResult {
  rows: Array<Record<string, unknown>>;
  rowCount: number | null;
}

/** A client lent by the pool; its 'error' event (the server ended the connection) must have a listener while it is out. */
export type PgClientLike = PgQueryable & {
  release(err?: boolean | Error): void;
  on?(event: 'error', listener: (err: Error) => void): unknown;
  off?(event: 'error', listener: (err: Error) => void): unknown;
};

/** A pg Pool (or anything that lends clients for transactions). */
export interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgClientLike>;
  /** The pool's 'error' event (an idle connection died): PostgresStore listens, so it never kills the process. */
  on?(event: 'error', listener: (err: Error) => void): unknown;
  off?(event: 'error', listener: (err: Error) => void): unknown;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Checks a schema name: lower-case SQL identifier. */
export function checkSchemaName(schema: string): string {
  if (!IDENTIFIER.test(schema)) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `PostgresStore: option "schema" must be a lower-case SQL identifier like "model_gateway" (got ${JSON.stringify(schema)}).`);
  return schema;
}

/** Folder of the shipped SQL files (copied next to the compiled code by the build). */
export const SQL_DIR = path.join(__dirname, 'sql');

/** The shipped SQL files, in order, with their versions. */
function sqlFiles(): Array<{ file: string; version: number }> {
  return readdirSync(SQL_DIR).filter((f) => /^\d+_.+\.sql$/.test(f)).sort().map((file) => ({ file, version: Number(file.split('_')[0]) }));
}

/** The schema versions this package ships, in order (numbers may skip: a schema needs every one, not only the newest). */
export function shippedVersions(): number[] {
  return sqlFiles().map((f) => f.version);
}

/** Applies every SQL file not applied yet to `schema`; returns the versions applied now. */
export async function migrate(pool: PgPoolLike, schema = 'model_gateway'): Promise<number[]> {
  checkSchemaName(schema);
  const files = sqlFiles();
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`model-gateway:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query(`SELECT version FROM ${schema}.migrations`)).rows.map((r) => Number(r.version)));
    for (const { file, version } of files) {
      if (done.has(version)) continue;
      await client.query(readFileSync(path.join(SQL_DIR, file), 'utf8').replaceAll('{{schema}}', schema));
      await client.query(`INSERT INTO ${schema}.migrations (version) VALUES ($1)`, [version]);
      applied.push(version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
