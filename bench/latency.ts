/** Latency at concurrency 1 and resident memory with many open streams, for `npm run bench`. */
import http from 'node:http';
import { HEADERS } from './key';
import { stats, type Load, type Proc } from './measure';

/**
 * Median time (ms) of `n` sequential requests on one keep-alive connection, after `warm` more:
 * until the first body byte (`first byte`) or the end of the response (`end`).
 */
export async function sequentialTime(load: Load, until: 'first byte' | 'end', n: number, warm: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify(load.body);
  const times: number[] = [];
  for (let i = 0; i < n + warm; i++) {
    const ms = await new Promise<number>((resolve, reject) => {
      const t = process.hrtime.bigint();
      const done = (): void => resolve(Number(process.hrtime.bigint() - t) / 1e6);
      const req = http.request({ port: load.proc.port, host: '127.0.0.1', path: load.path, method: 'POST', headers: HEADERS, agent }, (res) => {
        if (until === 'first byte') res.once('data', done);
        else res.on('end', done);
        res.resume();
      });
      req.on('error', reject);
      req.end(body);
    });
    if (i >= warm) times.push(ms);
  }
  agent.destroy();
  return times.sort((a, b) => a - b)[Math.floor(n / 2)] as number;
}

/**
 * Resident memory (KiB) per open stream: after 20 warm-up streams, 1,000 more held open at
 * once (`body` names a model whose upstream stream never ends).
 */
export async function memoryPerOpenStream(proc: Proc, path: string, body: object): Promise<number> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const open: http.ClientRequest[] = [];
  const hold = (n: number): Promise<void[]> => Promise.all(Array.from({ length: n }, () => new Promise<void>((resolve, reject) => {
    const req = http.request({ port: proc.port, host: '127.0.0.1', path, method: 'POST', headers: HEADERS, agent }, (res) => res.once('data', () => resolve()));
    req.on('error', reject);
    req.end(JSON.stringify(body));
    open.push(req);
  })));
  const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
  await hold(20);
  await pause(300);
  const before = await stats(proc, 'memory');
  await hold(1000);
  await pause(500);
  const after = await stats(proc, 'memory');
  for (const req of open) req.destroy();
  agent.destroy();
  await pause(500);
  return (after.rss - before.rss) / 1000 / 1024;
}
