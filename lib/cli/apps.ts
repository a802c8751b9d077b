/** The Express apps the binary listens with, one per port: its mounts, and the standard JSON error for anything else. */
import express, { type Express, type RequestHandler } from 'express';
import { errorHandler } from '../middleware/error-handler';
import { methodNotAllowed, notFound } from '../middleware/not-found';
import type { HealthHandlers } from '../observe/health';
import type { GatewayMetrics } from '../observe/metrics';
import { buildAt, type GatewayConfig } from './config';

/** The public port when the config names none. */
export const DEFAULT_PORT = 8787;

/** The handlers a reload replaces together. */
export interface Mounted {
  router: RequestHandler;
  admin: RequestHandler | undefined;
  checks: HealthHandlers;
}

/** The apps by configured port (the public port's first), and what each mounts, for the summary. */
export interface Apps {
  apps: Map<number, Express>;
  mounts: string[];
}

const READ = ['GET', 'HEAD'];

/**
 * Lays out the mounts of a config. Every mount reads `current()` at each request, so a reload
 * swaps them all at once. Each app ends with notFound() and errorHandler(): an unknown path is a
 * 404 and a known path's wrong method a 405, in the standard shape with a request id.
 */
export function layoutApps(config: GatewayConfig, options: { metrics: GatewayMetrics | undefined; current: () => Mounted }): Apps {
  const { metrics, current } = options;
  const port = config.server?.port ?? DEFAULT_PORT;
  const trustProxy = config.server?.trustProxy ?? false;
  const apps = new Map<number, Express>();
  const appOn = (p: number | undefined): Express => {
    const at = p ?? port;
    let app = apps.get(at);
    if (!app) {
      const made = express();
      made.disable('x-powered-by');
      // req.ip (the sign-in limit's key) and req.secure (the session cookie's Secure) read the proxy's headers only when trusted.
      buildAt('server.trustProxy', () => made.set('trust proxy', trustProxy));
      apps.set(at, made);
      app = made;
    }
    return app;
  };
  appOn(port); // the public port's app is the first
  const on = (p: number | undefined): string => (p !== undefined ? ` on :${p}` : '');
  const mounts: string[] = [];
  if (config.admin) {
    const path = config.admin.path ?? '/admin';
    appOn(config.admin.port).use(path, (req, res, next) => {
      const admin = current().admin; // none once a reload removed the admin section
      if (admin) admin(req, res, next);
      else next();
    });
    mounts.push(`admin API ${path}${on(config.admin.port)}`);
  }
  if (metrics) {
    const path = config.metrics?.path ?? '/metrics';
    appOn(config.metrics?.port).route(path).get(metrics.handler()).all(methodNotAllowed(READ));
    mounts.push(`metrics ${path}${on(config.metrics?.port)}`);
  }
  if (config.health !== false) {
    const { live = '/livez', ready = '/readyz', port: at } = config.health === true || config.health === undefined ? {} : config.health;
    const app = appOn(at);
    app.route(live).get((req, res, next) => current().checks.live(req, res, next)).all(methodNotAllowed(READ));
    app.route(ready).get((req, res, next) => current().checks.ready(req, res, next)).all(methodNotAllowed(READ));
    mounts.push(`health ${live} ${ready}${on(at)}`);
  }
  appOn(port).use((req, res, next) => current().router(req, res, next));
  for (const app of apps.values()) app.use(notFound(), errorHandler());
  return { apps, mounts };
}
