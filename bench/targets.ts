/** One server under test, in its own process so its CPU and memory are its own: bare proxy, Express + node-fetch, or the gateway. */
import express from 'express';
import http from 'node:http';
import nodeFetch from 'node-fetch';
import { Pool } from 'pg';
import { anthropicAdapter, cohereAdapter, createGatewayRouter, MemoryStore, openaiChatAdapter, PostgresStore } from '../lib';
import type { GatewayStore, ModelEntry } from '../lib';

const [mode, upstreamPort] = [process.argv[2], Number(process.argv[3])];
const upstream = `http://127.0.0.1:${upstreamPort}`;
export const BENCH_KEY = 'sk-bench-key-0123456789abcdef';
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
  const app = express();
  app.post('/*path', express.json({ limit: '32mb' }), async (req, res) => {
    const up = await nodeFetch(`${upstream}${req.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(req.body), agent });
    res.status(up.status).setHeader('content-type', up.headers.get('content-type') ?? 'application/json');
    if (req.body.stream) up.body.pipe(res);
    else res.end(await up.text());
  });
  return http.createServer(app);
}

/** (d, e) The gateway with the whole pipeline on: auth, validation, limits, reserve, settle, request log. */
async function gateway(store: GatewayStore & { addKey(k: string, c: object): unknown }): Promise<http.Server> {
  await store.addKey(BENCH_KEY, { id: 'bench', balance: 1e15 });
  const price = { input: 300, output: 1500 };
  const models: ModelEntry[] = [
    { id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: upstream }), pricing: price },
    { id: 'hold', capability: 'llm', upstream: anthropicAdapter({ baseURL: upstream }), pricing: price },
    { id: 'gpt', capability: 'llm', upstream: openaiChatAdapter({ baseURL: upstream }), pricing: price },
    { id: 'rerank', capability: 'rerank', upstream: cohereAdapter({ baseURL: upstream }), pricing: { input: 10 } },
  ];
  const app = express();
  app.use(createGatewayRouter({ store, models, limits: { defaults: { rpm: 1e9, tpm: 1e12, concurrency: 1e6 } } }));
  return http.createServer(app);
}

async function main(): Promise<void> {
  let server: http.Server;
  if (mode === 'bare') server = bareProxy();
  else if (mode === 'express') server = expressFetch();
  else if (mode === 'gateway-memory') server = await gateway(new MemoryStore());
  else {
    const pool = new Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', max: 20 });
    const store = new PostgresStore({ pool, schema: process.env.BENCH_SCHEMA ?? 'model_gateway_bench' });
    await store.migrate();
    server = await gateway(store);
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
  process.send?.({ cpu: process.cpuUsage(), rss: process.memoryUsage().rss });
});
void main();
process.on('SIGINT', () => process.exit(0)); // lets --cpu-prof write its profile
