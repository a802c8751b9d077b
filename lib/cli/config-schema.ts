/** The JSON Schema of the standalone gateway's config file, the config's types derived from it (also written to dist/cli/config.schema.json for editors). */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { pricingSchema } from '../billing/figure-schemas';
import { MIN_REASONING_SECRET } from '../formats/openai-responses';
import { RESPONSES_BOUNDS } from '../responses-options';
import { capabilitySchema, enumOf, limitsSchema } from '../schemas/shapes';
import type { Pricing } from '../types';

const { Optional } = Type;
const port = Type.Integer({ minimum: 0, maximum: 65535 });
const path = Type.String({ pattern: '^/' });
const secret = Type.String({ minLength: 1 });
const ms = Type.Integer({ minimum: 1 });
/** An object of these fields, none required and no other. */
const fields = <T extends Record<string, TSchema>>(properties: T) => Type.Object(properties, { additionalProperties: false });
const mount = fields({ path: Optional(path), port: Optional(port) });

const serverSchema = fields({
  host: Optional(Type.String()), port: Optional(port), bodyLimit: Optional(Type.Unsafe<string | number>({ type: ['string', 'integer'] })), drainGraceMs: Optional(Type.Integer({ minimum: 0 })),
  // Express's "trust proxy": off, every proxy, a hop count, or the proxies' addresses / CIDRs / names (loopback…).
  trustProxy: Optional(Type.Unsafe<boolean | number | string[]>({ type: ['boolean', 'integer', 'array'], minimum: 0, items: { type: 'string', minLength: 1 } })),
});

/** One upstream of the config file (`upstreams.<name>`). */
export const upstreamConfigSchema = Type.Object({
  type: enumOf(['anthropic', 'openai', 'openai-responses', 'cohere', 'jina', 'voyage', 'tei', 'failover']),
  baseURL: Optional(Type.String()), apiKey: Optional(secret), name: Optional(Type.String()),
  of: Optional(Type.Array(Type.String(), { minItems: 1 })),
  maxTokensField: Optional(enumOf(['max_tokens', 'max_completion_tokens'])), apiVersion: Optional(enumOf(['v1', 'v2'])),
  timeouts: Optional(fields({ connectMs: Optional(ms), firstByteMs: Optional(ms), idleMs: Optional(ms) })),
  maxSockets: Optional(Type.Integer({ minimum: 1, description: "Most connections open to this upstream at once (Node's http client then); default: no cap" })),
}, { additionalProperties: false });

/** One member of a model's failover group (`models[i].failover[j]`): an upstream by name, the model it is sent, its prices. */
export const memberConfigSchema = Type.Object({
  upstream: Type.String({ description: 'An upstream of `upstreams`, by name' }),
  upstreamModel: Optional(Type.String({ minLength: 1, description: "The model name this member is sent (default: the model's upstreamModel, else its id)" })),
  pricing: Optional(Type.Unsafe<Pricing>({ ...pricingSchema, description: "The prices of the requests this member serves (default: the model's)" })),
}, { additionalProperties: false });

/** One model of the config file (`models[i]`). */
export const modelConfigSchema = Type.Object({
  id: Type.String({ minLength: 1 }), capability: capabilitySchema,
  aliases: Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'More names callers may ask for it by' })),
  patterns: Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Name patterns it answers ("*": any run of characters), after every id and alias, the most specific first' })),
  upstream: Optional(Type.String({ description: 'An upstream of `upstreams`, by name (or give "failover")' })),
  failover: Optional(Type.Array(memberConfigSchema, { minItems: 1, description: 'Instead of "upstream": the members tried in order, each with its own upstream model and prices if it says so' })),
  upstreamModel: Optional(Type.String()),
  pricing: Optional(Type.Unsafe<Pricing>(pricingSchema)),
  free: Optional(Type.Boolean()), temperature: Optional(Type.Boolean()), maxOutputTokens: Optional(Type.Integer({ minimum: 1 })), displayName: Optional(Type.String()), agentReady: Optional(Type.Boolean()),
  clampMaxTokens: Optional(Type.Boolean()), autoCache: Optional(Type.Boolean()),
}, { additionalProperties: false });

const adminSchema = Type.Object({
  path: Optional(path), port: Optional(port), dashboard: Optional(Type.Boolean()), currency: Optional(Type.String({ minLength: 1, maxLength: 40, pattern: '^(?=.*\\S)\\P{Cc}+$' })),
  tokens: Type.Array(Type.Object({ name: Type.String(), token: secret, access: enumOf(['read', 'write']) }, { additionalProperties: false }), { minItems: 1 }),
}, { additionalProperties: false });

export const configSchema = Type.Object({
  server: Optional(serverSchema),
  store: Optional(Type.Object({ type: enumOf(['memory', 'postgres']), url: Optional(Type.String()), schema: Optional(Type.String()), keyCacheMs: Optional(Type.Integer({ minimum: 0 })), requestLogRetentionDays: Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false })),
  redis: Optional(Type.Object({ url: Type.String() }, { additionalProperties: false })),
  limits: Optional(fields({ defaults: Optional(limitsSchema), keyPrefix: Optional(Type.String()), failOpen: Optional(Type.Boolean({ description: 'Redis down: true serves without the limits (a warning and a metric), false (default) refuses with 500' })) })),
  upstreams: Optional(Type.Unsafe<Record<string, UpstreamConfig>>({ type: 'object', additionalProperties: upstreamConfigSchema })),
  models: Type.Array(modelConfigSchema, { minItems: 1 }),
  admin: Optional(adminSchema),
  metrics: Optional(mount),
  // On by default; false turns the checks off.
  health: Optional(Type.Unsafe<boolean | { live?: string; ready?: string; port?: number }>({ type: ['object', 'boolean'], additionalProperties: false, properties: { live: path, ready: path, port }, description: 'On unless false' })),
  logging: Optional(fields({ requests: Optional(Type.Boolean()) })),
  responses: Optional(fields({
    store: Optional(Type.Boolean()),
    retentionDays: Optional(Type.Integer({ minimum: RESPONSES_BOUNDS.retentionDays.min, maximum: RESPONSES_BOUNDS.retentionDays.max })),
    maxBytes: Optional(Type.Integer({ minimum: RESPONSES_BOUNDS.maxBytes.min, maximum: RESPONSES_BOUNDS.maxBytes.max })),
    reasoningSecret: Optional(Type.String({ minLength: MIN_REASONING_SECRET, description: 'Authenticates the reasoning content Responses clients replay: the same on every instance' })),
  })),
}, { $schema: 'http://json-schema.org/draft-07/schema#', $id: 'https://model-gateway.dev/config.schema.json', title: 'model-gateway config', additionalProperties: false });

/** The config file's shape (every field: configSchema). */
export type GatewayConfig = Static<typeof configSchema>;
/** One upstream of the config file. */
export type UpstreamConfig = Static<typeof upstreamConfigSchema>;
/** One model of the config file. */
export type ModelConfig = Static<typeof modelConfigSchema>;

/** A reference an editor meets where the schema wants another type (`port: ${PORT:-8787}`): serve types it (env.ts). */
const reference = { type: 'string', pattern: '\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}' };

/** The schema for editors (dist/cli/config.schema.json): a value that is not text may also be an environment reference. */
export function editorSchema(node: object = configSchema): object {
  const { properties, additionalProperties, items, type } = node as { properties?: Record<string, object>; additionalProperties?: unknown; items?: object; type?: unknown };
  const copy: Record<string, unknown> = { ...node };
  if (properties) copy.properties = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, editorSchema(value)]));
  if (additionalProperties && typeof additionalProperties === 'object') copy.additionalProperties = editorSchema(additionalProperties);
  if (items) copy.items = editorSchema(items);
  const types = Array.isArray(type) ? type : [type];
  return type !== undefined && !types.includes('string') && !types.includes('object') ? { anyOf: [copy, reference] } : copy;
}
