/** The start with no file: one provider from its API key, a memory store, an admin token and a first key made now, and the lines that lead to a first call. */
import { randomBytes } from 'node:crypto';
import { hashKey } from '../stores/hash';
import { newKeySecret, prefixOf } from '../stores/keys';
import type { MemoryStore } from '../stores/memory/store';
import { DEFAULT_PORT } from './apps';
import { ConfigError, type GatewayConfig, type ModelConfig } from './config';

// Prices in cents per million tokens, as the providers list them; cache prices are the providers' defaults (see Pricing).
// Agent-ready: Claude Code and agent SDKs run on them (an Anthropic upstream gets each request as sent, an OpenAI one translated).
const ANTHROPIC_MODELS: ModelConfig[] = [
  { id: 'claude-sonnet-4-5', capability: 'llm', upstream: 'anthropic', pricing: { input: 300, output: 1500 }, agentReady: true },
  { id: 'claude-haiku-4-5', capability: 'llm', upstream: 'anthropic', pricing: { input: 100, output: 500 }, agentReady: true },
  { id: 'claude-opus-4-1', capability: 'llm', upstream: 'anthropic', pricing: { input: 1500, output: 7500 }, agentReady: true },
];
const OPENAI_MODELS: ModelConfig[] = [
  { id: 'gpt-4o', capability: 'llm', upstream: 'openai', pricing: { input: 250, output: 1000 }, agentReady: true },
  { id: 'gpt-4o-mini', capability: 'llm', upstream: 'openai', pricing: { input: 15, output: 60 }, agentReady: true },
];

/** The caller the first key belongs to, and the credit the banner's first command gives it (cents). */
const FIRST_CALLER = 'first-caller';
const FIRST_CREDIT = 1000;

/** A zero-config start: its config, its admin token and the model the banner's call asks. */
export interface ZeroConfig {
  config: GatewayConfig;
  adminToken: string;
  tryModel: string;
}

/** The zero-config start: ANTHROPIC_API_KEY (or OPENAI_API_KEY), optionally *_BASE_URL; fails naming what to set. */
export function zeroConfig(env: NodeJS.ProcessEnv): ZeroConfig {
  const adminToken = `mgw-admin-${randomBytes(24).toString('base64url')}`;
  const port = env.PORT === undefined || env.PORT === '' ? DEFAULT_PORT : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('PORT: must be a port number (0 to 65535); fix PORT or unset it for 8787');
  const common = { admin: { tokens: [{ name: 'admin', token: adminToken, access: 'write' as const }] }, metrics: {}, server: { port } };
  if (env.ANTHROPIC_API_KEY) {
    const upstreams = { anthropic: { type: 'anthropic' as const, baseURL: env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com', apiKey: env.ANTHROPIC_API_KEY } };
    return { config: { ...common, upstreams, models: ANTHROPIC_MODELS }, adminToken, tryModel: 'claude-haiku-4-5' };
  }
  if (env.OPENAI_API_KEY) {
    const upstreams = { openai: { type: 'openai' as const, baseURL: env.OPENAI_BASE_URL ?? 'https://api.openai.com', apiKey: env.OPENAI_API_KEY } };
    return { config: { ...common, upstreams, models: OPENAI_MODELS }, adminToken, tryModel: 'gpt-4o-mini' };
  }
  throw new ConfigError('no config: pass --config gateway.yaml, or set ANTHROPIC_API_KEY (or OPENAI_API_KEY) for a zero-config start');
}

/**
 * Creates the first caller's key (audited; a key carries no money) and returns the banner: shell
 * lines a newcomer pastes as they are. The first credits the caller through the admin API (an
 * audited credit its idempotency key makes safe to repeat), the last asks a model.
 */
export async function welcome(store: MemoryStore, url: string, zero: ZeroConfig): Promise<string[]> {
  const key = newKeySecret();
  const record = await store.createKey({ keyHash: hashKey(key), prefix: prefixOf(key), callerId: FIRST_CALLER });
  await store.appendAudit({ actor: 'zero-config', action: 'key.create', target: `key:${record.keyId}`, before: null, after: record });
  const call = { model: zero.tryModel, max_tokens: 256, messages: [{ role: 'user', content: 'Hello' }] };
  return [
    '',
    'Zero-config start: the admin token and the first key are shown only now. A key carries no money:',
    `the first curl credits ${FIRST_CALLER} ${FIRST_CREDIT} cents ($${(FIRST_CREDIT / 100).toFixed(2)}) through the admin API, an audited credit`,
    'whose idempotency key makes a repeat move no money; the second asks a model. Paste these lines into a shell:',
    '',
    `export MGW_ADMIN_TOKEN=${zero.adminToken}`,
    `export MGW_KEY=${key}`,
    `curl -sS -w '\\n' -X POST ${url}/admin/accounts/${FIRST_CALLER}/credits -H "authorization: Bearer $MGW_ADMIN_TOKEN" -H 'idempotency-key: ${FIRST_CALLER}-opening' -H 'content-type: application/json' -d '${JSON.stringify({ amount: FIRST_CREDIT })}'`,
    `curl -sS -w '\\n' ${url}/v1/messages -H "x-api-key: $MGW_KEY" -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' -d '${JSON.stringify(call)}'`,
    ...(zero.config.models.some((m) => m.agentReady) ? [`# Claude Code on this gateway: ANTHROPIC_BASE_URL=${url} ANTHROPIC_API_KEY=$MGW_KEY claude --model ${zero.tryModel}`] : []),
    '',
  ];
}
