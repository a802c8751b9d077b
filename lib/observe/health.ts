/** Liveness and readiness handlers: the process answers; the store, Redis and the router can serve. Never calls an upstream model. */
import { GatewayConfigError } from '../foundation/config-errors';
import { checkDuration } from '../foundation/duration';
import type { RequestHandler } from 'express';
import { withTimeout } from '../foundation/timeout';
import { VERSION } from '../foundation/version';

/** Options of health(). */
export interface HealthOptions {
  /** A store with `ready()` (PostgresStore: reachable and migrated). Default: not checked. */
  store?: { ready?(): unknown };
  /** The ioredis client of the limits, pinged. Default: not checked. */
  redis?: { ping(): Promise<unknown> };
  /**
   * The limits fail open (`limits.failOpen`): Redis unreachable leaves the instance serving, so
   * its check reports `degraded` and readiness stays 200. Default: false (Redis down: 503).
   */
  redisFailOpen?: boolean;
  /** The router: not ready while it drains on shutdown. Default: not checked. */
  router?: { readonly draining: boolean };
  /** Longest wait for each check, in ms. Default: 2000. */
  timeoutMs?: number;
}

/** The two handlers; mount them where the orchestrator probes (e.g. `/livez`, `/readyz`). */
export interface HealthHandlers {
  live: RequestHandler;
  ready: RequestHandler;
}

type Check = 'ok' | 'unavailable' | 'draining' | 'degraded';

/**
 * `live` answers 200 `{status: "ok", version}` while the process runs. `ready` answers 200 when
 * every configured check passes, else 503 with each check's state (`ok`, `unavailable`,
 * `draining`); a failure's cause is never sent. With `redisFailOpen`, a Redis that fails its ping
 * is `degraded`: readiness stays 200, its status `degraded`.
 */
export function health({ store, redis, router, redisFailOpen = false, timeoutMs = 2000 }: HealthOptions = {}): HealthHandlers {
  checkDuration(timeoutMs, 'health: option "timeoutMs"');
  if (typeof redisFailOpen !== 'boolean') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'health: option "redisFailOpen" must be true or false.');
  if (store !== undefined && typeof store.ready !== 'function') throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', 'health: option "store" must have a ready() method (PostgresStore and MemoryStore do).');
  const probe = async (run: () => unknown, what: string): Promise<Check> => {
    try {
      await withTimeout(Promise.resolve().then(run), timeoutMs, what);
      return 'ok';
    } catch {
      return 'unavailable';
    }
  };
  const live: RequestHandler = function liveHandler(_req, res) {
    res.setHeader('cache-control', 'no-store');
    res.json({ status: 'ok', version: VERSION });
  };
  const ready: RequestHandler = function readyHandler(_req, res, next) {
    const checks: Array<Promise<[string, Check]>> = [];
    if (router) checks.push(Promise.resolve(['router', router.draining ? 'draining' : 'ok']));
    if (store) checks.push(probe(() => store.ready?.(), 'store readiness').then((c) => ['store', c]));
    if (redis) checks.push(probe(() => redis.ping(), 'redis ping').then((c) => ['redis', c === 'unavailable' && redisFailOpen ? 'degraded' : c]));
    Promise.all(checks).then((done) => {
      const ok = done.every(([, c]) => c === 'ok' || c === 'degraded');
      const degraded = done.some(([, c]) => c === 'degraded');
      res.setHeader('cache-control', 'no-store');
      res.status(ok ? 200 : 503).json({ status: ok ? (degraded ? 'degraded' : 'ok') : 'unavailable', version: VERSION, checks: Object.fromEntries(done) });
    }, next);
  };
  return { live, ready };
}
