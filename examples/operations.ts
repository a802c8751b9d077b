/** An operated gateway: the public router on one port; the admin API, metrics and health on an operator port; one JSON log line per request. */
import express from 'express';
import { Pool } from 'pg';
import { anthropicAdapter, createAdminRouter, createGatewayRouter, createMetrics, health, jsonLogger, localStandIn, MemoryStore, PostgresStore } from '../lib';
import type { ModelEntry } from '../lib';

/** JSON lines on stdout (pino itself works the same way: pass `pino()`). */
const logger = jsonLogger();

async function main(): Promise<void> {
  const pool = process.env.DATABASE_URL ? new Pool({ connectionString: process.env.DATABASE_URL }) : undefined;
  const store = pool ? new PostgresStore({ pool, schema: process.env.GATEWAY_SCHEMA ?? 'model_gateway', onError: (err) => logger.warn({ cause: String(err) }, 'store') }) : new MemoryStore();
  if (store instanceof PostgresStore) await store.migrate();
  if (process.env.GATEWAY_KEY) {
    await store.addKey(process.env.GATEWAY_KEY, { id: 'operator-demo' });
    await store.credit({ callerId: 'operator-demo', amount: 1_000_000, idempotencyKey: 'operator-demo-opening' });
  }
  const upstream = process.env.ANTHROPIC_BASE_URL ? anthropicAdapter({ baseURL: process.env.ANTHROPIC_BASE_URL, apiKey: process.env.ANTHROPIC_API_KEY ?? '' }) : localStandIn();
  const models: ModelEntry[] = [{ id: 'claude', capability: 'llm', upstream, upstreamModel: process.env.UPSTREAM_MODEL, pricing: { input: 300, output: 1500 } }];
  const metrics = createMetrics();
  const router = createGatewayRouter({ store, models, logger, metrics });
  const checks = health({ store, router });

  const publicApp = express().use(router);
  const operatorApp = express().get('/metrics', metrics.handler()).get('/livez', checks.live).get('/readyz', checks.ready);
  const adminToken = process.env.ADMIN_TOKEN;
  if (adminToken) operatorApp.use('/admin', createAdminRouter({ store, models: router.models, tokens: [{ name: 'operator', token: adminToken, access: 'write' }] }));
  const publicServer = publicApp.listen(Number(process.env.PORT ?? 8787), '127.0.0.1', () => {
    const operatorServer = operatorApp.listen(Number(process.env.OPERATOR_PORT ?? 8788), '127.0.0.1', () => {
      const port = (s: typeof publicServer): number => (s.address() as { port: number }).port;
      process.send?.({ port: port(publicServer), operatorPort: port(operatorServer) });
      console.log(JSON.stringify({ level: 'info', msg: 'listening', port: port(publicServer), operatorPort: port(operatorServer), store: pool ? 'postgres' : 'memory' }));
    });
    process.on('SIGTERM', () => {
      publicServer.close();
      // Readiness fails at once (the router drains); the operator port stays up until billing is flushed.
      void router.close().then(async () => {
        operatorServer.close();
        if (store instanceof PostgresStore) await store.close();
        await pool?.end();
        process.exit(0);
      });
    });
  });
}

void main();
