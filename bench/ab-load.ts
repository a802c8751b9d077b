/**
 * One process serving (c) and the gateway of two builds (A, B) side by side, loaded in turn by a
 * raw keep-alive client in the same process: CPU per request of each, in alternating rounds.
 * Args: <rootA> <rootB> <scenario JSON file> <rounds> <requests per round>. Run by bench/ab.ts.
 */
import express from 'express';
import { fork, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pino from 'pino';
import type * as Library from '../lib';
import { benchModels, expressApp, LIMITS } from './apps';
import { HEADERS, KEY } from './key';

interface Scenario { direct: { path: string; body: object }; gateway: { path: string; body: object } }
const [rootA = '', rootB = '', scenarioFile = '', roundsArg = '40', perRound = '1000'] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioFile, 'utf8')) as Scenario;
const CONCURRENCY = 50;

/** `BENCH_OBSERVE=1`: B also gets a pino logger (synchronous, as `pino()` writes, to /dev/null) and Prometheus metrics, so B − A is their cost. */
const OBSERVE = process.env.BENCH_OBSERVE === '1';

function gatewayApp(root: string, upstream: string, observe = false): express.Express {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = require(path.join(root, 'lib')) as typeof Library;
  const store = new lib.MemoryStore();
  store.addKey(KEY, { id: 'bench' });
  store.credit({ callerId: 'bench', amount: 1e15, idempotencyKey: 'opening-bench' });
  const app = express();
  const observed = observe ? { logger: pino(pino.destination({ dest: '/dev/null', sync: true })), metrics: lib.createMetrics() } : {};
  app.use(lib.createGatewayRouter({ store, models: benchModels(lib, upstream), limits: LIMITS, ...observed }));
  return app;
}

const listen = (app: express.Express): Promise<number> => new Promise((resolve) => {
  const server = http.createServer(app);
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
});

async function main(): Promise<void> {
  const upstreamProc = fork(path.join(__dirname, 'upstream.js'));
  // The upstream on CPU 0, this process (servers and client) on the last CPU, when taskset exists.
  spawnSync('taskset', ['-a', '-p', '-c', '0', String(upstreamProc.pid)]);
  const port = await new Promise<number>((resolve) => upstreamProc.once('message', (m: { port: number }) => resolve(m.port)));
  const upstream = `http://127.0.0.1:${port}`;
  const targets: Array<[string, number, { path: string; body: object }]> = [
    ['c', await listen(expressApp(upstream, new http.Agent({ keepAlive: true, maxSockets: 1024 }))), scenario.direct],
    ['A', await listen(gatewayApp(rootA, upstream)), scenario.gateway],
    ['B', await listen(gatewayApp(rootB, upstream, OBSERVE)), scenario.gateway],
  ];
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const one = (p: number, route: string, body: string): Promise<void> => new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: p, path: route, method: 'POST', headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) }, agent }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`port ${p}: status ${res.statusCode}`));
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(body);
  });
  const cpu: Record<string, number[]> = { c: [], A: [], B: [] };
  const n = Number(perRound);
  // Round 0 warms up (the JIT) and is not counted; the order alternates so no target always goes first.
  for (let round = 0; round <= Number(roundsArg); round++) {
    for (const [name, p, load] of round % 2 ? [...targets].reverse() : targets) {
      const body = JSON.stringify(load.body);
      let sent = 0;
      const worker = async (): Promise<void> => { while (sent++ < n) await one(p, load.path, body); };
      const start = process.cpuUsage();
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const used = process.cpuUsage(start);
      if (round > 0) cpu[name]?.push((used.user + used.system) / n);
    }
  }
  upstreamProc.kill();
  // Exit once the figures are sent: the servers would otherwise keep this process, and the bench, alive.
  process.send?.(cpu, () => process.exit(0));
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
