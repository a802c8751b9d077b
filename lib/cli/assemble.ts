/**
 * The whole gateway of a config, built by the library's own factories, whose checks refuse what
 * they cannot serve: serve listens with it, validate stops here. Nothing here listens or reaches
 * the database or Redis.
 */
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { createAdminRouter } from '../admin/router';
import { followerOf } from '../catalog/follow';
import type { AppliedOverride } from '../catalog/overrides';
import { DashboardSessions } from '../admin/dashboard/sessions';
import { jsonBody } from '../middleware/json-body';
import { health } from '../observe/health';
import { jsonLogger } from '../observe/logger';
import { createMetrics } from '../observe/metrics';
import { createGatewayRouter, type GatewayRouter } from '../router';
import { layoutApps, type Mounted } from './apps';
import { buildModels, createRedis, createStore, type ConfiguredStore } from './build';
import { watchRedis } from './connect';
import { buildAt, ConfigError, type GatewayConfig } from './config';
import { upstreamEndpoints } from './summary';

/** One config's routers; a reload builds the next one whole before it swaps. */
interface Generation extends Mounted {
  router: GatewayRouter;
  /** What each upstream calls, by config name (see upstreamEndpoints). */
  endpoints: Record<string, string>;
}

/** A built gateway: what serve needs to connect, listen, reload and drain. */
export interface Gateway {
  store: ConfiguredStore;
  redis: Redis | undefined;
  /** The Express apps by configured port, the public port's first. */
  apps: Map<number, Express>;
  /** What is mounted where (admin API, metrics, health), for the start-up summary. */
  mounts: string[];
  /** The URL each upstream of the serving config calls, by config name, for the summary. */
  endpoints(): Record<string, string>;
  /** Builds `next` and swaps it in (the old routers drain); throws a ConfigError, leaving the old one serving. */
  reload(next: GatewayConfig): void;
  /** Stops accepting (529) and waits for the requests in flight, up to `server.drainGraceMs`. */
  drain(): Promise<void>;
  /** Ends the store and Redis connections. */
  close(): Promise<void>;
  /** The runtime catalog edits the store keeps, as the serving config applies them (read now). */
  catalogOverrides(): Promise<readonly AppliedOverride[]>;
}

/** What a restart alone may change: the store, Redis, the server and where things are mounted. */
const fixedPart = (c: GatewayConfig): string =>
  JSON.stringify([c.store, c.redis, c.server, c.admin?.path, c.admin?.port, c.admin?.dashboard, c.metrics, c.health]);

/** Builds every part of `config`; `print` writes the request log lines. */
export async function assemble(config: GatewayConfig, print: (line: string) => void): Promise<Gateway> {
  const store = await createStore(config);
  const redis = await createRedis(config).catch(async (err: unknown) => { await store.close(); throw err; });
  if (redis) watchRedis(redis, print);
  try {
    const metrics = config.metrics ? createMetrics() : undefined;
    const bodyLimit = config.server?.bodyLimit;
    // One for every generation (a reload keeps the dashboard signed in), kept by the store when it can (PostgresStore: every instance).
    const sessions = new DashboardSessions({ store: store.store });
    const build = (c: GatewayConfig): Generation => {
      const { models, upstreams } = buildModels(c);
      const logger = c.logging?.requests === false ? undefined : jsonLogger(print);
      if (bodyLimit !== undefined) buildAt('server.bodyLimit', () => jsonBody({ limit: bodyLimit }));
      const router = buildAt('limits', () => createGatewayRouter({
        store: store.store, models, logger, metrics, ...(bodyLimit !== undefined ? { bodyLimit } : {}),
        limits: { ...c.limits, ...(redis ? { redis } : {}) }, ...(c.responses ? { responses: c.responses } : {}),
      }));
      const tokens = c.admin?.tokens;
      const dashboard = c.admin?.dashboard === false ? false : sessions;
      const currency = c.admin?.currency === undefined ? {} : { currency: c.admin.currency };
      const admin = tokens ? buildAt('admin.tokens', () => createAdminRouter({ store: store.store, models: router.models, upstreams, tokens, dashboard, ...currency })) : undefined;
      return { router, admin, checks: health({ store: store.store, router, ...(redis ? { redis, redisFailOpen: c.limits?.failOpen === true } : {}) }), endpoints: upstreamEndpoints(c, upstreams) };
    };
    let current = build(config);
    const retiring = new Set<Promise<void>>(); // routers a reload replaced, still finishing their requests
    const fixed = fixedPart(config);
    const grace = (): { graceMs?: number } => (config.server?.drainGraceMs !== undefined ? { graceMs: config.server.drainGraceMs } : {});
    const { apps, mounts } = layoutApps(config, { metrics, current: () => current });
    return {
      store, redis, apps, mounts,
      endpoints: () => current.endpoints,
      reload(next) {
        if (fixedPart(next) !== fixed) throw new ConfigError('store, redis, server, mounts and ports change only with a restart');
        const old = current;
        current = build(next);
        const closing = old.router.close(grace()).finally(() => retiring.delete(closing));
        retiring.add(closing);
      },
      async drain() {
        await Promise.all([current.router.close(grace()), ...retiring]);
      },
      async close() {
        redis?.disconnect();
        await store.close();
      },
      async catalogOverrides() {
        const follower = followerOf(current.router.models);
        await follower?.sync();
        return follower?.overridesNow() ?? [];
      },
    };
  } catch (err) {
    redis?.disconnect();
    await store.close();
    throw err;
  }
}
