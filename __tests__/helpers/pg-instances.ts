/** Several gateway instances on one PostgreSQL schema, in this process: each its own router, PostgresStore and pool, served on its own port. */
import express from 'express';
import type { Pool } from 'pg';
import { createGatewayRouter, PostgresStore, type GatewayOptions, type GatewayRouter } from '../../lib';
import { listen } from './local';
import { pgPool, pgStore } from './services';

export interface PgInstance {
  url: string;
  router: GatewayRouter;
  store: PostgresStore;
}

export interface PgInstances {
  instances: PgInstance[];
  /** A store of its own on the schema, for the test's setup and reads, with its pool. */
  admin: PostgresStore;
  pool: Pool;
  schema: string;
  close(): Promise<void>;
}

type InstanceOptions = Omit<GatewayOptions, 'store'>;

/** `n` instances built from `options` (or each from `options(i)`: a clock of its own); their stores are made here. */
export async function pgInstances(n: number, options: InstanceOptions | ((i: number) => InstanceOptions), keyCacheMs?: number): Promise<PgInstances> {
  const made = await pgStore();
  const running: Array<PgInstance & { pool: Pool; close(): Promise<void> }> = [];
  for (let i = 0; i < n; i++) {
    const pool = await pgPool();
    const store = new PostgresStore({ pool, schema: made.schema, sweepIntervalMs: 0, ...(keyCacheMs === undefined ? {} : { keyCacheMs }) });
    const router = createGatewayRouter({ ...(typeof options === 'function' ? options(i) : options), store });
    const server = await listen(express().use(router));
    running.push({ url: server.url, router, store, pool, close: server.close });
  }
  return {
    instances: running, admin: made.store, pool: made.pool, schema: made.schema,
    async close() {
      for (const i of running) {
        await i.close();
        await i.router.close();
        await i.store.close();
        await i.pool.end();
      }
      await made.drop();
    },
  };
}

/** Reserve calls (reserve_scoped) of any instance now waiting for a row lock. */
export async function waitingReserves(pool: Pool): Promise<number> {
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%reserve_scoped%'`);
  return Number(rows[0]?.n ?? 0);
}
