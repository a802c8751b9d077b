/** `model-gateway serve`: the router, admin API, metrics and health from a config; SIGTERM drains, SIGHUP reloads. */
import express, { type RequestHandler, type Router } from 'express';
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { createAdminRouter } from '../admin/router';
import { DashboardSessions } from '../admin/dashboard/sessions';
import { jsonLogger } from '../observe/logger';
import { createMetrics } from '../observe/metrics';
import { health, type HealthHandlers } from '../observe/health';
import { createGatewayRouter, type GatewayRouter } from '../router';
import { hashKey } from '../stores/hash';
import { prefixOf } from '../stores/keys';
import { VERSION } from '../version';
import { buildModels, openRedis, openStore } from './build';
import { ConfigError, loadConfig, type GatewayConfig } from './config';
import { zeroConfig } from './zero-config';

/** Writes a line for the operator (stdout). */
export type Print = (line: string) => void;

interface Generation {
  router: GatewayRouter;
  admin: Router | undefined;
  checks: HealthHandlers;
}

/** Runs the gateway until a signal; resolves once it listens, with `close()` (what SIGTERM does). */
export async function serve(configFile: string | undefined, env: NodeJS.ProcessEnv, print: Print): Promise<{ close(): Promise<void> }> {
  const zero = configFile === undefined ? zeroConfig(env) : undefined;
  let config: GatewayConfig = zero?.config ?? loadConfig(configFile as string, env);
  const opened = await openStore(config);
  const redis = await openRedis(config).catch(async (err: unknown) => { await opened.close(); throw err; });
  const { store } = opened;
  const metrics = config.metrics || zero ? createMetrics() : undefined;
  const logger = config.logging?.requests === false ? undefined : jsonLogger(print);

  const sessions = new DashboardSessions(); // one for every generation: a reload keeps the dashboard signed in
  const generation = (c: GatewayConfig): Generation => {
    const { models, upstreams } = buildModels(c);
    const router = createGatewayRouter({
      store, models, logger, metrics, ...(c.server?.bodyLimit !== undefined ? { bodyLimit: c.server.bodyLimit } : {}),
      limits: { ...c.limits, ...(redis ? { redis: redis.redis } : {}) },
    });
    const admin = c.admin ? createAdminRouter({ store, models: router.models, upstreams, tokens: c.admin.tokens, dashboard: sessions }) : undefined;
    return { router, admin, checks: health({ store, router, ...(redis ? { redis: redis.redis } : {}) }) };
  };
  let current = generation(config);

  // Every mount reads the current generation, so a reload swaps them all at once.
  const port = config.server?.port ?? 8787;
  const host = config.server?.host ?? '127.0.0.1';
  const apps = new Map<number, express.Express>();
  const appOn = (p: number | undefined): express.Express => {
    const at = p ?? port;
    if (!apps.has(at)) apps.set(at, express());
    return apps.get(at) as express.Express;
  };
  const mounts: string[] = [];
  const via = (pick: (g: Generation) => RequestHandler | undefined): RequestHandler => (req, res, next) => {
    const handler = pick(current);
    if (handler) handler(req, res, next);
    else next();
  };
  if (config.admin) {
    appOn(config.admin.port).use(config.admin.path ?? '/admin', via((g) => g.admin));
    mounts.push(`admin API ${config.admin.path ?? '/admin'}${config.admin.port !== undefined ? ` on :${config.admin.port}` : ''}`);
  }
  if (metrics) {
    appOn(config.metrics?.port).get(config.metrics?.path ?? '/metrics', metrics.handler());
    mounts.push(`metrics ${config.metrics?.path ?? '/metrics'}${config.metrics?.port !== undefined ? ` on :${config.metrics.port}` : ''}`);
  }
  if (config.health || zero) {
    const h = config.health ?? {};
    appOn(h.port).get(h.live ?? '/livez', via((g) => g.checks.live)).get(h.ready ?? '/readyz', via((g) => g.checks.ready));
    mounts.push(`health ${h.live ?? '/livez'} ${h.ready ?? '/readyz'}${h.port !== undefined ? ` on :${h.port}` : ''}`);
  }
  appOn(port).use(via((g) => g.router));

  const servers: Array<{ configured: number; port: number; server: http.Server }> = [];
  for (const [p, app] of apps) {
    const server = await new Promise<http.Server>((resolve, reject) => {
      const s = app.listen(p, host, () => resolve(s)).once('error', reject);
    });
    // Idle keep-alive connections outlive a load balancer's usual 60 s, so the client side always closes first.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    servers.push({ configured: p, port: (server.address() as { port: number }).port, server });
  }
  const publicPort = servers.find((s) => s.configured === port)?.port ?? port;
  const describeModels = (c: GatewayConfig): string => c.models.map((m) => `${m.id} (${m.capability}, ${m.upstream})`).join(', ');
  print(`model-gateway ${VERSION} serving on http://${host}:${publicPort}`);
  print(`  store: ${opened.describe}${redis ? '; limits: redis' : '; limits: in memory'}`);
  print(`  models: ${describeModels(config)}`);
  print(`  mounts: /v1 (public API)${mounts.length ? `, ${mounts.join(', ')}` : ''}`);
  if (servers.length > 1) print(`  ports: ${servers.map((s) => s.port).join(', ')}`);
  if (config.admin) print(`  dashboard: http://${host}:${servers.find((s) => s.configured === (config.admin?.port ?? port))?.port}${config.admin.path ?? '/admin'}/dashboard/ (sign in with an admin token)`);
  if (zero) {
    const caller = `sk-mgw-${randomBytes(24).toString('base64url')}`;
    await store.createKey({ keyHash: hashKey(caller), prefix: prefixOf(caller), callerId: 'first-caller' });
    print(`  admin token (shown once): ${zero.adminToken}`);
    print(`  first caller key (shown once): ${caller}; credit it: curl -X POST http://${host}:${publicPort}/admin/accounts/first-caller/credits -H "authorization: Bearer <admin token>" -H "idempotency-key: first" -H "content-type: application/json" -d '{"amount":1000}'`);
  }

  const reload = (): void => {
    if (!configFile) {
      print('reload: nothing to reload (started without a config file)');
      return;
    }
    try {
      const next = loadConfig(configFile, env);
      if (JSON.stringify([next.store, next.redis, next.server, next.admin?.path, next.admin?.port, next.metrics, next.health]) !== JSON.stringify([config.store, config.redis, config.server, config.admin?.path, config.admin?.port, config.metrics, config.health])) {
        throw new ConfigError('store, redis, server, mounts and ports change only with a restart');
      }
      const old = current;
      current = generation(next);
      config = next;
      void old.router.close({ graceMs: 30_000 });
      print(`reloaded ${configFile}: models ${describeModels(next)}`);
    } catch (err) {
      print(`reload refused, the old config keeps serving: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  process.on('SIGHUP', reload);

  const close = async (): Promise<void> => {
    process.off('SIGHUP', reload);
    for (const { server } of servers) server.close();
    await current.router.close();
    for (const { server } of servers) server.closeAllConnections();
    await redis?.close();
    await opened.close();
  };
  return { close };
}
