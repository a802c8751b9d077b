/** Small local plumbing for tests: an app listening on 127.0.0.1:0, and temporary folders removed after the file's tests. */
import type express from 'express';
import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Listens with `app` on a free port of 127.0.0.1; `close()` ends its connections too. */
export async function listen(app: express.Express): Promise<{ url: string; server: http.Server; close(): Promise<void> }> {
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
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
