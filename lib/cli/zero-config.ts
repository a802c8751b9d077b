/** The config of a start with no file: one provider from its API key, a memory store, and an admin token made now. */
import { randomBytes } from 'node:crypto';
import { ConfigError, type GatewayConfig, type ModelConfig } from './config';

// Prices in cents per million tokens, as the providers list them; cache prices are the providers' defaults (see Pricing).
const ANTHROPIC_MODELS: ModelConfig[] = [
  { id: 'claude-sonnet-4-5', capability: 'llm', upstream: 'anthropic', pricing: { input: 300, output: 1500 } },
  { id: 'claude-haiku-4-5', capability: 'llm', upstream: 'anthropic', pricing: { input: 100, output: 500 } },
  { id: 'claude-opus-4-1', capability: 'llm', upstream: 'anthropic', pricing: { input: 1500, output: 7500 } },
];
const OPENAI_MODELS: ModelConfig[] = [
  { id: 'gpt-4o', capability: 'llm', upstream: 'openai', pricing: { input: 250, output: 1000 } },
  { id: 'gpt-4o-mini', capability: 'llm', upstream: 'openai', pricing: { input: 15, output: 60 } },
];

/** The zero-config start: ANTHROPIC_API_KEY (or OPENAI_API_KEY), optionally *_BASE_URL; fails naming what to set. */
export function zeroConfig(env: NodeJS.ProcessEnv): { config: GatewayConfig; adminToken: string } {
  const adminToken = `mgw-admin-${randomBytes(24).toString('base64url')}`;
  const common = { admin: { tokens: [{ name: 'admin', token: adminToken, access: 'write' as const }] }, metrics: {}, health: {}, server: { port: Number(env.PORT ?? 8787) } };
  if (env.ANTHROPIC_API_KEY) {
    const upstreams = { anthropic: { type: 'anthropic' as const, baseURL: env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com', apiKey: env.ANTHROPIC_API_KEY } };
    return { config: { ...common, upstreams, models: ANTHROPIC_MODELS }, adminToken };
  }
  if (env.OPENAI_API_KEY) {
    const upstreams = { openai: { type: 'openai' as const, baseURL: env.OPENAI_BASE_URL ?? 'https://api.openai.com', apiKey: env.OPENAI_API_KEY } };
    return { config: { ...common, upstreams, models: OPENAI_MODELS }, adminToken };
  }
  throw new ConfigError('no config: pass --config gateway.yaml, or set ANTHROPIC_API_KEY (or OPENAI_API_KEY) for a zero-config start');
}
