/** A real HTTP server on 127.0.0.1:0 for fake upstreams: records every request it gets. */
import http from 'node:http';
import { listen } from './local';

/** A request the fake received. */
export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** Handles one request; `body` is the parsed JSON (or {}). */
export type FakeHandler = (req: Received, res: http.ServerResponse) => void | Promise<void>;

/** A running fake. */
export interface FakeServer {
  url: string;
  received: Received[];
  /** Epoch ms at which a response was closed before it finished (the gateway went away). */
  aborted: number[];
  readonly calls: number;
  close(): Promise<void>;
}

/** Marker placed in every upstream error: it must never appear in any client output. */
export const SECRET_MARKER = 'UPSTREAM-SECRET-MARKER-7f3a';
/** The gateway's own upstream key in tests: it must never appear in any client output. */
export const UPSTREAM_KEY = 'sk-upstream-SECRET-KEY-91c2';

export async function startFake(handler: FakeHandler): Promise<FakeServer> {
  const received: Received[] = [];
  const aborted: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        body = {};
      }
      const r = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      received.push(r);
      res.on('close', () => {
        if (!res.writableFinished) aborted.push(Date.now());
      });
      Promise.resolve(handler(r, res)).catch((err: unknown) => {
        res.destroy(err as Error);
      });
    });
  });
  const { url, close } = await listen(server);
  return {
    url,
    received,
    aborted,
    get calls() {
      return received.length;
    },
    close,
  };
}

/** Writes one SSE frame. */
export function sse(res: http.ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits that a test ends: a fake holds a response at `wait()` until `open()`, however slow the machine is. */
export function gate(): { wait(): Promise<void>; open(): void } {
  const waiting: Array<() => void> = [];
  return {
    wait: () => new Promise<void>((resolve) => waiting.push(resolve)),
    open: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

/** A fake with responses that wait for the test: `*-gated` streams, and others its behaviours name. */
export type GatedFake = FakeServer & { openGates(): void };

/** Answers with an error status and a body holding the secret marker. */
export function failWith(res: http.ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-upstream-host': `internal.${SECRET_MARKER}`, ...headers });
  res.end(JSON.stringify({ type: 'error', error: { type: 'upstream_detail', message: `${SECRET_MARKER} key ${UPSTREAM_KEY}` } }));
}
