/** The JSON Schema of the standalone gateway's config file (also written to dist/cli/config.schema.json for editors). */
import { pricingSchema } from '../billing/figure-schemas';
import { RESPONSES_BOUNDS } from '../responses-options';

const port = { type: 'integer', minimum: 0, maximum: 65535 };
const path = { type: 'string', pattern: '^/' };
const secret = { type: 'string', minLength: 1 };
const mount = { type: 'object', additionalProperties: false, properties: { path, port } };
const ms = { type: 'integer', minimum: 1 };

export const configSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://model-gateway.dev/config.schema.json',
  title: 'model-gateway config',
  type: 'object',
  additionalProperties: false,
  required: ['models'],
  properties: {
    server: {
      type: 'object', additionalProperties: false,
      properties: {
        host: { type: 'string' }, port, bodyLimit: { type: ['string', 'integer'] }, drainGraceMs: { type: 'integer', minimum: 0 },
        // Express's "trust proxy": off, every proxy, a hop count, or the proxies' addresses / CIDRs / names (loopback…).
        trustProxy: { type: ['boolean', 'integer', 'array'], minimum: 0, items: { type: 'string', minLength: 1 } },
      },
    },
    store: {
      type: 'object', additionalProperties: false, required: ['type'],
      properties: { type: { enum: ['memory', 'postgres'] }, url: { type: 'string' }, schema: { type: 'string' }, keyCacheMs: { type: 'integer', minimum: 0 } },
    },
    redis: { type: 'object', additionalProperties: false, required: ['url'], properties: { url: { type: 'string' } } },
    limits: {
      type: 'object', additionalProperties: false,
      properties: {
        defaults: { type: 'object', additionalProperties: false, properties: { rpm: { type: 'integer', minimum: 0 }, tpm: { type: 'integer', minimum: 0 }, concurrency: { type: 'integer', minimum: 0 } } },
        keyPrefix: { type: 'string' },
      },
    },
    upstreams: {
      type: 'object',
      additionalProperties: {
        type: 'object', additionalProperties: false, required: ['type'],
        properties: {
          type: { enum: ['anthropic', 'openai', 'cohere', 'jina', 'voyage', 'tei', 'failover'] },
          baseURL: { type: 'string' }, apiKey: secret, name: { type: 'string' },
          of: { type: 'array', items: { type: 'string' }, minItems: 1 },
          maxTokensField: { enum: ['max_tokens', 'max_completion_tokens'] }, apiVersion: { enum: ['v1', 'v2'] },
          timeouts: { type: 'object', additionalProperties: false, properties: { connectMs: ms, firstByteMs: ms, idleMs: ms } },
          maxSockets: { type: 'integer', minimum: 1 },
        },
      },
    },
    models: {
      type: 'array', minItems: 1,
      items: {
        type: 'object', additionalProperties: false, required: ['id', 'capability', 'upstream'],
        properties: {
          id: { type: 'string', minLength: 1 }, capability: { enum: ['llm', 'rerank'] }, upstream: { type: 'string' }, upstreamModel: { type: 'string' },
          pricing: pricingSchema,
          free: { type: 'boolean' }, temperature: { type: 'boolean' }, maxOutputTokens: { type: 'integer', minimum: 1 }, displayName: { type: 'string' }, agentReady: { type: 'boolean' },
          clampMaxTokens: { type: 'boolean' }, autoCache: { type: 'boolean' },
        },
      },
    },
    admin: {
      type: 'object', additionalProperties: false, required: ['tokens'],
      properties: {
        path, port, dashboard: { type: 'boolean' }, currency: { type: 'string', minLength: 1, maxLength: 40, pattern: '^(?=.*\\S)\\P{Cc}+$' },
        tokens: { type: 'array', minItems: 1, items: { type: 'object', additionalProperties: false, required: ['name', 'token', 'access'], properties: { name: { type: 'string' }, token: secret, access: { enum: ['read', 'write'] } } } },
      },
    },
    metrics: mount,
    // On by default; false turns the checks off.
    health: { type: ['object', 'boolean'], additionalProperties: false, properties: { live: path, ready: path, port } },
    logging: { type: 'object', additionalProperties: false, properties: { requests: { type: 'boolean' } } },
    responses: {
      type: 'object', additionalProperties: false,
      properties: {
        store: { type: 'boolean' },
        retentionDays: { type: 'integer', minimum: RESPONSES_BOUNDS.retentionDays.min, maximum: RESPONSES_BOUNDS.retentionDays.max },
        maxBytes: { type: 'integer', minimum: RESPONSES_BOUNDS.maxBytes.min, maximum: RESPONSES_BOUNDS.maxBytes.max },
      },
    },
  },
} as const;

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
