/** Turns a checked config into the library's parts: the store, Redis, adapters and models; no I/O. */
import { createCatalog, type ModelEntry } from '../catalog/catalog';
import { MemoryStore } from '../stores/memory/store';
import { PostgresStore } from '../stores/postgres/store';
import { failover } from '../upstreams/failover';
import { nodeHttpFetch } from '../upstreams/http/node-http-fetch';
import { anthropicAdapter } from '../upstreams/providers/anthropic';
import { openaiChatAdapter } from '../upstreams/providers/openai-chat';
import { openaiResponsesAdapter } from '../upstreams/providers/openai-responses';
import { cohereAdapter, jinaAdapter, teiAdapter, voyageAdapter } from '../upstreams/providers/rerank-providers';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';
import { wordingOf } from '../foundation/config-errors';
import type { UpstreamMember } from '../upstreams/members';
import { buildAt, ConfigError, configPath, type GatewayConfig, type ModelConfig, type UpstreamConfig } from './config';

type Adapter = MessagesAdapter | RerankAdapter;

/** The store of a config, built but not yet reached: nothing here touches the database. */
export interface ConfiguredStore {
  store: MemoryStore | PostgresStore;
  /** What the start-up summary says of it. */
  describe: string;
  /** Ends the store and its pool. */
  close(): Promise<void>;
}

/** Loads an optional peer dependency, naming the package to install when it is missing. */
async function peer<T>(name: string, at: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw err;
    throw new ConfigError(`${at}: needs the "${name}" package; install it next to model-gateway (npm install ${name})`);
  }
}

/** The config's store: a MemoryStore, or a PostgresStore on a pool that connects at its first query. */
export async function createStore(config: GatewayConfig): Promise<ConfiguredStore> {
  const spec = config.store ?? { type: 'memory' };
  if (spec.type === 'memory') return { store: new MemoryStore(), describe: 'memory (lost on exit)', close: async () => undefined };
  if (!spec.url) throw new ConfigError('store.url: required for a postgres store (e.g. "${DATABASE_URL}")');
  const { Pool } = await peer<typeof import('pg')>('pg', 'store');
  const pool = buildAt('store.url', () => new Pool({ connectionString: spec.url }));
  const store = buildAt('store', () => new PostgresStore({ pool, schema: spec.schema, keyCacheMs: spec.keyCacheMs, requestLogRetentionDays: spec.requestLogRetentionDays }));
  return { store, describe: `postgres, schema ${store.schema}`, close: async () => { await store.close(); await pool.end(); } };
}

/** The ioredis client of a config's `redis`, not yet connected; undefined without one. */
export async function createRedis(config: GatewayConfig): Promise<import('ioredis').Redis | undefined> {
  if (!config.redis) return undefined;
  const { default: Redis } = await peer<typeof import('ioredis')>('ioredis', 'redis');
  const url = config.redis.url;
  return buildAt('redis.url', () => new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 }));
}

function adapterOf(name: string, u: UpstreamConfig, built: Map<string, Adapter>): Adapter {
  const at = `upstreams.${name}`;
  if (u.type === 'failover') {
    const members = (u.of ?? []).map((m) => {
      const member = built.get(m);
      if (!member) throw new ConfigError(`${at}.of: "${m}" is not an upstream defined before it`);
      return member;
    });
    return members.every((m) => m.kind === 'rerank') ? failover(members as RerankAdapter[]) : failover(members as MessagesAdapter[]);
  }
  if (!u.baseURL) throw new ConfigError(`${at}.baseURL: required for a ${u.type} upstream`);
  const http = {
    baseURL: u.baseURL, ...(u.apiKey ? { apiKey: u.apiKey } : {}), ...(u.name ? { name: u.name } : {}), ...(u.timeouts ? { timeouts: u.timeouts } : {}),
    // node-fetch cannot be capped: a capped upstream uses Node's own client, with the same connect bound.
    ...(u.maxSockets ? { fetch: nodeHttpFetch({ maxSockets: u.maxSockets, ...(u.timeouts?.connectMs ? { connectMs: u.timeouts.connectMs } : {}) }) } : {}),
  };
  switch (u.type) {
    case 'anthropic': return anthropicAdapter(http);
    case 'openai': return openaiChatAdapter({ ...http, ...(u.maxTokensField ? { maxTokensField: u.maxTokensField } : {}) });
    case 'openai-responses': return openaiResponsesAdapter(http);
    case 'cohere': return cohereAdapter({ ...http, ...(u.apiVersion ? { apiVersion: u.apiVersion } : {}) });
    case 'jina': return jinaAdapter(http);
    case 'voyage': return voyageAdapter(http);
    default: return teiAdapter(http);
  }
}

/** The adapter of a model: its upstream by name, or a failover group of its members (each with its own upstream model and prices). */
function modelUpstream(m: ModelConfig, i: number, built: ReadonlyMap<string, Adapter>): Adapter {
  const at = `models[${i}]`;
  const named = (name: string, path: string): Adapter => {
    const adapter = built.get(name);
    if (!adapter) throw new ConfigError(`${path}: "${name}" is not in upstreams (defined: ${[...built.keys()].join(', ') || 'none'})`);
    return adapter;
  };
  if ((m.upstream === undefined) === (m.failover === undefined)) {
    throw new ConfigError(`${at}: give "upstream" (an upstream's name) or "failover" (its members: [{ upstream, upstreamModel?, pricing? }, …]), one of the two`);
  }
  if (m.upstream !== undefined) return named(m.upstream, `${at}.upstream`);
  const members = (m.failover ?? []).map((f, j) => ({ ...f, upstream: named(f.upstream, `${at}.failover[${j}].upstream`) }));
  try {
    return members.every((f) => f.upstream.kind === 'rerank') ? failover(members as UpstreamMember<RerankAdapter>[]) : failover(members as UpstreamMember<MessagesAdapter>[]);
  } catch (err) {
    // failover()'s own words, its member numbered as the config's.
    throw new ConfigError(wordingOf(err).replace(/^failover: member (\d+)/, `${at}.failover[$1]`).replace(/^failover: /, `${at}.failover: `));
  }
}

/** The adapters (by config name, in order, so a failover group names those before it) and the models, checked by the catalog. */
export function buildModels(config: GatewayConfig): { models: ModelEntry[]; upstreams: Record<string, Adapter> } {
  const built = new Map<string, Adapter>();
  for (const [name, u] of Object.entries(config.upstreams ?? {})) built.set(name, buildAt(configPath('upstreams', name), () => adapterOf(name, u, built)));
  const models = config.models.map((m, i): ModelEntry => {
    const upstream = modelUpstream(m, i, built);
    const { upstream: _name, failover: _members, ...rest } = m;
    return { ...rest, upstream };
  });
  buildAt('models', () => createCatalog(models)); // the router's own createCatalog(models) finds it checked
  return { models, upstreams: Object.fromEntries(built) };
}
