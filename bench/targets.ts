/** One server under test, in its own process so its CPU and memory are its own: bare proxy, Express + node-fetch, the gateway, or part of it. */
import express from 'express';
import pino from 'pino';
import http from 'node:http';
import { Pool } from 'pg';
import * as lib from '../lib';
import { benchModels, expressApp, LIMITS, PRICE } from './apps';
import { expressUndiciApp } from './transports';
import {
  anthropicAdapter, authenticate, billingHook, compatVersion, compose, createCatalog, createGatewayRouter, errorHandler, gracefulShutdown,
  jsonBody, limits, MemoryStore, PostgresStore, proxyMessages, requestId, reserve, resolveModel, validate,
} from '../lib';
import type { GatewayStore } from '../lib';

const [mode, upstreamPort] = [process.argv[2], Number(process.argv[3])];
const upstream = `http://127.0.0.1:${upstreamPort}`;
import { KEY as BENCH_KEY } from './key';
import { addAccounts, countingPool, redisClient, sent } from './durable-setup';
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/** (b) a bare Node http proxy: pipes request and response, nothing parsed. */
function bareProxy(): http.Server {
  return http.createServer((req, res) => {
    const out = http.request(`${upstream}${req.url}`, { method: req.method, headers: req.headers, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
}

/** (c) Express that parses the JSON and forwards it with the gateway's HTTP client (node-fetch 2, keep-alive). */
function expressFetch(): http.Server {
  return http.createServer(expressApp(upstream, agent));
}

/** (d, e) The gateway with the whole pipeline on: auth, validation, limits, reserve, settle, request log. */
async function gateway(store: GatewayStore & { addKey(k: string, c: object): unknown; credit(c: lib.Credit): unknown }, redis?: unknown, client?: 'undici'): Promise<http.Server> {
  await store.addKey(BENCH_KEY, { id: 'bench' });
  await store.credit({ callerId: 'bench', amount: 1e15, idempotencyKey: 'opening-bench' });
  await addAccounts(store); // BENCH_ACCOUNTS (bench/durable.ts)
  const models = benchModels(lib, upstream, client);
  const app = express();
  // BENCH_OBSERVE=1: with a pino logger and Prometheus metrics, as an operated gateway runs (or =logs, =metrics: one of them).
  // pino writes synchronously, as the README's `pino()` does (no line lost in a crash), to /dev/null.
  const observe = process.env.BENCH_OBSERVE ?? '';
  const observed = {
    ...(observe === '1' || observe === 'logs' ? { logger: pino(pino.destination({ dest: '/dev/null', sync: true })) } : {}),
    ...(observe === '1' || observe === 'metrics' ? { metrics: lib.createMetrics() } : {}),
  };
  app.use(createGatewayRouter({ store, models, limits: redis ? { ...LIMITS, redis, keyPrefix: `mgw-${process.env.BENCH_SCHEMA}` } : LIMITS, ...observed }));
  return http.createServer(app);
}

/**
 * The Messages route composed by hand from the exported factories, with the first `level`
 * groups of stages (their names: STAGE_GROUPS in bench/stages.ts), for `BENCH_STAGES=1`.
 */
function stagedGateway(level: number): http.Server {
  const store = new MemoryStore();
  store.addKey(BENCH_KEY, { id: 'bench' });
  store.credit({ callerId: 'bench', amount: 1e15, idempotencyKey: 'opening-bench' });
  const models = createCatalog([{ id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: upstream }), pricing: PRICE }]);
  const on = (group: number): boolean => level > group;
  const handler = compose([
    requestId({ endpoint: 'messages' }),
    ...(on(3) ? [billingHook({ store })] : []),
    ...(on(4) ? [gracefulShutdown()] : []),
    jsonBody(),
    authenticate({ store }),
    ...(on(1) ? [compatVersion(), validate('messages')] : []),
    resolveModel({ models, capability: 'llm' }),
    ...(on(2) ? [limits(LIMITS)] : []),
    ...(on(3) ? [reserve({ store })] : []),
    proxyMessages(),
  ]);
  const app = express();
  if (on(4)) app.use(express.Router().post('/v1/messages', handler));
  else app.post('/v1/messages', handler);
  app.use(errorHandler());
  return http.createServer(app);
}

async function main(): Promise<void> {
  let server: http.Server;
  if (mode === 'bare') server = bareProxy();
  else if (mode === 'express') server = expressFetch();
  else if (mode === 'gateway-memory') server = await gateway(new MemoryStore());
  else if (mode === 'express-undici') server = http.createServer(expressUndiciApp(upstream)); // bench/transports.ts
  else if (mode === 'gateway-undici') server = await gateway(new MemoryStore(), undefined, 'undici');
  else if (mode === 'stages') server = stagedGateway(Number(process.argv[4]));
  else {
    // application_name: bench/durable.ts finds this gateway's backends by it.
    const pool = new Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', max: 20, application_name: process.env.BENCH_SCHEMA ?? 'mgw' });
    const store = new PostgresStore({ pool: countingPool(pool), schema: process.env.BENCH_SCHEMA ?? 'model_gateway_bench' });
    await store.migrate();
    server = await gateway(store, mode === 'gateway-postgres-redis' ? await redisClient() : undefined);
  }
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
}

// 'cpu' reads the CPU counters only; 'memory' first collects garbage (which must not be billed
// to a load run's CPU: a full GC of a big heap would add to the per-request figure).
process.on('message', (m: string) => {
  if (m === 'memory') (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ cpu: process.cpuUsage(), rss: process.memoryUsage().rss, xacts: sent.xacts });
});
void main();
process.on('SIGINT', () => process.exit(0)); // lets --cpu-prof write its profile
