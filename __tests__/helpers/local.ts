/** Small local plumbing for tests: an app listening on 127.0.0.1:0, and temporary folders removed after the file's tests. */
import type express from 'express';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Listens with an app or a server on a free port of 127.0.0.1; `close()` ends its connections (open streams too). */
export async function listen(app: express.Express | http.Server): Promise<{ url: string; server: http.Server; close(): Promise<void> }> {
  const server = app instanceof http.Server ? app : http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Temporary folders for one test file, all removed after its tests. */
export function tempDirs(prefix = 'mgw-test-'): { make(): Promise<string> } {
  const made: string[] = [];
  afterAll(() => Promise.all(made.map((d) => rm(d, { recursive: true, force: true }))));
  return {
    make: async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
  };
}
