/** `model-gateway serve`: builds the gateway of a config, migrates, listens; SIGHUP reloads, stop() drains. */
import http from 'node:http';
import type { AppliedOverride } from '../catalog/overrides';
import type { MemoryStore } from '../stores/memory/store';
import { VERSION } from '../foundation/version';
import { DEFAULT_PORT } from './apps';
import { assemble, type Gateway } from './assemble';
import { loadConfig, type GatewayConfig } from './config';
import { connectRedis, migrateStore } from './connect';
import { configWarnings, describeModels, upstreamLines } from './summary';
import { welcome, zeroConfig } from './zero-config';

/** Writes a line for the operator (stdout). */
export type Print = (line: string) => void;

/** The setting that chose a port: PORT for a zero-config start, else the config keys set to it. */
function portSetting(config: GatewayConfig, port: number, zero: boolean): string {
  if (zero) return 'PORT';
  if (port === (config.server?.port ?? DEFAULT_PORT)) return `server.port (\`port: \${PORT:-${DEFAULT_PORT}}\` takes PORT)`;
  const keys = [['admin.port', config.admin?.port], ['metrics.port', config.metrics?.port], ['health.port', typeof config.health === 'object' ? config.health.port : undefined]]
    .filter(([, p]) => p === port).map(([key]) => key);
  return keys.join(' / ');
}

/** Why a port cannot be listened on, and the fix. */
function listenError(err: NodeJS.ErrnoException, host: string, port: number, setting: string): Error {
  const where = `port ${port} on ${host}`;
  if (err.code === 'EADDRINUSE') return new Error(`${where} is in use by another process: stop it, or set another port in ${setting}`);
  if (err.code === 'EACCES') return new Error(`${where} needs privileges this process lacks: set a port above 1023 in ${setting}`);
  if (err.code === 'EADDRNOTAVAIL') return new Error(`${host} is not an address of this machine: fix server.host`);
  return new Error(`cannot listen on ${where}: ${err.message}`);
}

/** Listens with every app; resolves once all listen, with the bound port of each configured one. */
async function listen(gateway: Gateway, host: string, setting: (port: number) => string): Promise<Array<{ configured: number; port: number; server: http.Server }>> {
  const servers: Array<{ configured: number; port: number; server: http.Server }> = [];
  try {
    for (const [configured, app] of gateway.apps) {
      // Node's own server: Express 5's app.listen() calls back on an error too, as if it listened.
      const server = await new Promise<http.Server>((resolve, reject) => {
        const s = http.createServer(app);
        s.once('error', (err) => reject(listenError(err, host, configured, setting(configured))));
        s.listen(configured, host, () => resolve(s));
      });
      // Idle keep-alive connections outlive a load balancer's usual 60 s, so the client side always closes first.
      server.keepAliveTimeout = 65_000;
      server.headersTimeout = 66_000;
      servers.push({ configured, port: (server.address() as { port: number }).port, server });
    }
    return servers;
  } catch (err) {
    for (const { server } of servers) server.close();
    throw err;
  }
}

/** The runtime catalog edits laid over the file (kept by the store), those out of use with why; undefined for none. */
async function describeOverrides(gateway: Gateway): Promise<string | undefined> {
  const all = await gateway.catalogOverrides();
  const named = (o: AppliedOverride): string => `${o.model} (${o.kind}${o.kind === 'edit' ? ` ${Object.keys(o.fields).join(', ')}` : ''} by ${o.actor})`;
  const inUse = all.filter((o) => o.inUse).map(named);
  const out = all.filter((o) => !o.inUse).map((o) => `${o.model}: ${o.reason}`);
  if (all.length === 0) return undefined;
  return `runtime catalog edits over the file: ${inUse.join(', ') || 'none'}${out.length ? `; out of use: ${out.join('; ')}` : ''}`;
}

/**
 * Runs the gateway; resolves once it listens, with `stop()`: new requests get 529 while the
 * listeners stay open (readiness 503, liveness 200) until the requests in flight finish or
 * `server.drainGraceMs` ends, then the ports close and billing is flushed. SIGHUP reloads the
 * file; it is taken from the start, so one sent while the gateway starts reloads once it serves
 * (Node's default for SIGHUP would end the process).
 */
export async function serve(configFile: string | undefined, env: NodeJS.ProcessEnv, print: Print): Promise<{ stop(): Promise<void> }> {
  let reload: (() => void) | undefined;
  let asked = false;
  const hangUp = (): void => {
    if (reload) reload();
    else asked = true;
  };
  process.on('SIGHUP', hangUp);
  try {
    const running = await start(configFile, env, print);
    reload = running.reload;
    if (asked) reload();
    return {
      stop: async () => {
        process.off('SIGHUP', hangUp);
        await running.stop();
      },
    };
  } catch (err) {
    process.off('SIGHUP', hangUp);
    throw err;
  }
}

/** Builds, migrates, listens and prints the summary; `reload` reads the file again. */
async function start(configFile: string | undefined, env: NodeJS.ProcessEnv, print: Print): Promise<{ stop(): Promise<void>; reload(): void }> {
  const zero = configFile === undefined ? zeroConfig(env) : undefined;
  const config = zero?.config ?? loadConfig(configFile as string, env);
  const gateway = await assemble(config, print);
  const host = config.server?.host ?? '127.0.0.1';
  let servers: Awaited<ReturnType<typeof listen>>;
  let applied: number[] | undefined;
  try {
    applied = await migrateStore(gateway.store);
    await connectRedis(gateway.redis, { failOpen: config.limits?.failOpen === true, print });
    servers = await listen(gateway, host, (port) => portSetting(config, port, zero !== undefined));
  } catch (err) {
    await gateway.close();
    throw err;
  }
  const url = `http://${host}:${servers[0]?.port}`;
  const migrated = applied === undefined ? '' : applied.length > 0 ? `, migrations applied now: ${applied.join(', ')}` : ', schema up to date';
  print(`model-gateway ${VERSION} serving on ${url}`);
  print(`  store: ${gateway.store.describe}${migrated}; limits: ${gateway.redis ? 'redis' : 'in memory'}`);
  print(`  models: ${describeModels(config)}`);
  for (const line of upstreamLines(gateway.endpoints())) print(line);
  print(`  mounts: /v1 (public API)${gateway.mounts.length ? `, ${gateway.mounts.join(', ')}` : ''}`);
  if (servers.length > 1) print(`  ports: ${servers.map((s) => s.port).join(', ')}`);
  for (const warning of configWarnings(config)) print(`  ${warning}`);
  const overrides = await describeOverrides(gateway).catch((err: unknown) => `runtime catalog edits could not be read: ${err instanceof Error ? err.message : String(err)}`);
  if (overrides) print(`  ${overrides}`);
  if (config.admin && config.admin.dashboard !== false) print(`  dashboard: http://${host}:${servers.find((s) => s.configured === config.admin?.port)?.port ?? servers[0]?.port}${config.admin.path ?? '/admin'}/dashboard/ (sign in with an admin token)`);
  if (zero) for (const line of await welcome(gateway.store.store as MemoryStore, url, zero)) print(line);

  const reload = (): void => {
    if (!configFile) {
      print('reload: nothing to reload (started without a config file)');
      return;
    }
    try {
      const next = loadConfig(configFile, env);
      gateway.reload(next);
      print(`reloaded ${configFile}: models ${describeModels(next)}`);
      describeOverrides(gateway).then((line) => line && print(`  ${line}`), (err: unknown) => print(`  runtime catalog edits could not be read: ${err instanceof Error ? err.message : String(err)}`));
      for (const line of upstreamLines(gateway.endpoints())) print(line);
      for (const warning of configWarnings(next)) print(`  ${warning}`);
    } catch (err) {
      print(`reload refused, the old config keeps serving: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  const stop = async (): Promise<void> => {
    const drained = gateway.drain(); // refuses new requests from here on
    print('draining: new requests get 529, requests in flight finish, billing is flushed; the ports stay open until then');
    await drained;
    for (const { server } of servers) {
      server.close();
      server.closeAllConnections();
    }
    await gateway.close();
  };
  return { stop, reload };
}
