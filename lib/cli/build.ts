/** Turns a checked config into the library's parts: the store, Redis, adapters and models. */
import type { ModelEntry } from '../catalog';
import { MemoryStore } from '../stores/memory-store';
import { PostgresStore } from '../stores/postgres-store';
import { failover } from '../upstreams/failover';
import { nodeHttpFetch } from '../upstreams/http/node-http-fetch';
import { anthropicAdapter } from '../upstreams/providers/anthropic';
import { openaiChatAdapter } from '../upstreams/providers/openai-chat';
import { cohereAdapter, jinaAdapter, teiAdapter, voyageAdapter } from '../upstreams/providers/rerank-providers';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';
import { ConfigError, type GatewayConfig, type UpstreamConfig } from './config';

type Adapter = MessagesAdapter | RerankAdapter;

/** A connection the process opened and must close. */
export interface Closable {
  close(): Promise<void>;
}

/** The store of a config (PostgreSQL migrated at once), with what closes it. */
export async function openStore(config: GatewayConfig): Promise<{ store: MemoryStore | PostgresStore; describe: string; close(): Promise<void> }> {
  const spec = config.store ?? { type: 'memory' };
  if (spec.type === 'memory') return { store: new MemoryStore(), describe: 'memory (lost on exit)', close: async () => undefined };
  if (!spec.url) throw new ConfigError('store.url: required for a postgres store (e.g. "${DATABASE_URL}")');
  const { Pool } = await import('pg');
  const pool = new Pool({ connectionString: spec.url });
  const store = new PostgresStore({ pool, schema: spec.schema, keyCacheMs: spec.keyCacheMs });
  try {
    await store.migrate();
  } catch (err) {
    store.close();
    await pool.end();
    throw new ConfigError(`store: PostgreSQL could not be reached or migrated: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { store, describe: `postgres (schema ${spec.schema ?? 'model_gateway'}, migrated)`, close: async () => { store.close(); await pool.end(); } };
}

/** The ioredis client of a config's `redis`, connected; undefined without one. */
export async function openRedis(config: GatewayConfig): Promise<{ redis: import('ioredis').Redis; close(): Promise<void> } | undefined> {
  if (!config.redis) return undefined;
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(config.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new ConfigError(`redis.url: Redis could not be reached: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { redis, close: async () => { await redis.quit(); } };
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
    case 'cohere': return cohereAdapter({ ...http, ...(u.apiVersion ? { apiVersion: u.apiVersion } : {}) });
    case 'jina': return jinaAdapter(http);
    case 'voyage': return voyageAdapter(http);
    default: return teiAdapter(http);
  }
}

/** The adapters (by config name, in order, so a failover group names those before it) and the models. */
export function buildModels(config: GatewayConfig): { models: ModelEntry[]; upstreams: Record<string, Adapter> } {
  const built = new Map<string, Adapter>();
  for (const [name, u] of Object.entries(config.upstreams ?? {})) {
    try {
      built.set(name, adapterOf(name, u, built));
    } catch (err) {
      throw err instanceof ConfigError ? err : new ConfigError(`upstreams.${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const models = config.models.map((m, i): ModelEntry => {
    const upstream = built.get(m.upstream);
    if (!upstream) throw new ConfigError(`models.${i}.upstream: "${m.upstream}" is not in upstreams (defined: ${[...built.keys()].join(', ') || 'none'})`);
    const { upstream: _name, ...rest } = m;
    return { ...rest, upstream };
  });
  return { models, upstreams: Object.fromEntries(built) };
}
