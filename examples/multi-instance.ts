/** One gateway instance of several: PostgresStore (keys, balances, log) and Redis limits, configured by environment. */
import express from 'express';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { anthropicAdapter, cohereAdapter, createGatewayRouter, PostgresStore } from '../lib';
import type { ModelEntry } from '../lib';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`multi-instance: set ${name}`);
  return value;
};

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: env('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/test'), max: Number(env('PG_POOL_MAX', '20')) });
  const store = new PostgresStore({ pool, schema: env('GATEWAY_SCHEMA', 'model_gateway'), ...(process.env.SWEEP_INTERVAL_MS ? { sweepIntervalMs: Number(process.env.SWEEP_INTERVAL_MS) } : {}) });
  await store.migrate();
  const redis = new Redis(env('REDIS_URL', 'redis://127.0.0.1:6379'), { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  const anthropic = anthropicAdapter({ baseURL: env('ANTHROPIC_BASE_URL'), apiKey: process.env.ANTHROPIC_API_KEY ?? '' });
  const models: ModelEntry[] = env('LLM_MODELS', 'claude-json,claude-stream').split(',').map((id) => ({ id, capability: 'llm' as const, upstream: anthropic, pricing: { input: 1_000_000, output: 2_000_000 } }));
  if (process.env.COHERE_BASE_URL) {
    const cohere = cohereAdapter({ baseURL: process.env.COHERE_BASE_URL, apiKey: process.env.COHERE_API_KEY ?? '' });
    models.push({ id: env('RERANK_MODEL', 'cohere-tokens'), capability: 'rerank', upstream: cohere, pricing: { input: 1_000_000 } });
  }
  const gateway = createGatewayRouter({
    store, models, holdLeaseMs: Number(env('HOLD_LEASE_MS', '60000')),
    limits: { redis, keyPrefix: env('LIMITS_PREFIX', 'mgw'), windowSec: Number(env('LIMITS_WINDOW_SEC', '60')), slotLeaseMs: Number(env('SLOT_LEASE_MS', '60000')) },
  });
  const app = express();
  app.use(gateway);
  const server = app.listen(Number(env('PORT', '0')), '127.0.0.1', () => {
    const address = server.address();
    console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
  });
  const shutdown = (): void => {
    server.close(() => {
      void gateway.close().then(async () => {
        await store.close(); // its pending "last used" writes, before the pool ends
        redis.disconnect();
        await pool.end();
        process.exit(0);
      });
    });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
