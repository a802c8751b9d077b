/** Runs a process that can reach nothing but one address: a fresh network namespace (plus a PID namespace with its own /proc, so
 * killing it kills all it started) whose own 127.0.0.1:<port> is relayed, through a Unix socket on the shared filesystem, to
 * <port> on the host. */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const RELAY = path.join(__dirname, 'loopback-relay.js');

/** A process running in its own loopback-only namespace. */
export interface LoopbackProcess {
  child: ChildProcess;
  /** Its stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Connections the relay carried to the target (one per TCP connection the process opened to 127.0.0.1:<port>). */
  connections(): number;
  /** Resolves with the exit code (null when killed) once the process is gone and its output read. */
  exited: Promise<number | null>;
  /** SIGKILLs the whole process group (the namespaces die with it). */
  kill(): void;
  /** Stops the relay and removes its socket. */
  close(): Promise<void>;
}

/** The first executable of that name on PATH or in the system binary folders. */
function which(name: string, pathVar: string): string | undefined {
  for (const dir of [...pathVar.split(':'), '/usr/sbin', '/sbin', '/usr/bin', '/bin']) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function required(name: string, pkg: string): string {
  const found = which(name, process.env.PATH ?? '');
  if (found === undefined) throw new Error(`loopback-only runs need \`${name}\` (${pkg}); it is not installed`);
  return found;
}

/** Serves the Unix socket: each connection is piped to target on the host's loopback. */
async function bridge(socketPath: string, target: { host: string; port: number }): Promise<{ server: net.Server; count(): number; close(): Promise<void> }> {
  const open = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((inner) => {
    count += 1;
    const outer = net.connect(target.port, target.host);
    open.add(inner).add(outer);
    const drop = (): void => {
      inner.destroy();
      outer.destroy();
      open.delete(inner);
      open.delete(outer);
    };
    inner.on('error', drop).on('close', drop);
    outer.on('error', drop).on('close', drop);
    inner.pipe(outer).pipe(inner);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
  return {
    server,
    count: () => count,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Starts `command` with stdin closed, in a loopback-only network namespace where 127.0.0.1:<target port> reaches the target
 * (an HTTP server of this test, in process or spawned, on the host's 127.0.0.1). Resolves once the relay listens inside the
 * namespace; rejects (never skips) when namespaces cannot be made here, saying why. */
export async function spawnLoopbackOnly(target: URL, command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Promise<LoopbackProcess> {
  if (target.hostname !== '127.0.0.1' && target.hostname !== 'localhost') throw new Error(`spawnLoopbackOnly: the target must be on loopback, not ${target.host}`);
  const port = Number(target.port);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`spawnLoopbackOnly: the target needs an explicit port (${target.href})`);
  const unshare = required('unshare', 'util-linux');
  const ip = required('ip', 'iproute2');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loopback-'));
  const relay = await bridge(path.join(dir, 'relay.sock'), { host: '127.0.0.1', port });
  // --fork --pid --kill-child: the relay is the PID namespace's init, and dies (taking every descendant) if unshare is killed.
  // --mount-proc: a /proc of that namespace (Codex's own command sandbox hangs without it). Without root, a user namespace
  // (--map-root-user) gives the right to make the others.
  const flags = ['--net', '--pid', '--fork', '--kill-child', '--mount-proc', ...(process.getuid?.() === 0 ? [] : ['--map-root-user'])];
  const child = spawn(unshare, [...flags, process.execPath, RELAY, ip, String(port), path.join(dir, 'relay.sock'), '--', command, ...args], {
    cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], detached: true,
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (c: Buffer) => out.push(c));
  child.stderr?.on('data', (c: Buffer) => err.push(c));
  const stderr = (): string => Buffer.concat(err).toString('utf8');
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const kill = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  const close = async (): Promise<void> => {
    await relay.close();
    await rm(dir, { recursive: true, force: true });
  };
  const ready = await new Promise<boolean>((resolve) => {
    const signal = child.stdio[3] as NodeJS.ReadableStream;
    signal.on('data', () => resolve(true));
    child.once('error', () => resolve(false));
    void exited.then(() => resolve(false));
  });
  if (!ready) {
    kill();
    await exited;
    await close();
    throw new Error(`could not start a loopback-only network namespace (\`unshare ${flags.join(' ')}\` and \`ip link set lo up\`; root or user namespaces are needed): ${stderr().trim()}`);
  }
  return { child, stdout: () => Buffer.concat(out).toString('utf8'), stderr, connections: relay.count, exited, kill, close };
}
