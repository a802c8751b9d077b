/** The OpenAPI 3.1 document of the admin API, served at GET /openapi.json (schemas are JSON Schema 2020-12). */
import { FIGURE_NAMES } from '../billing/figures';
import { usageSchema } from '../billing/figure-schemas';
import { VERSION } from '../version';
import { modelSchema, modelsBodySchema, overrideSchema } from './models';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
/** Every list answers one shape: a page of items and the cursor of the next page (null on the last). */
const page = (item: string) => ({ type: 'object', required: ['items', 'next'], additionalProperties: false, properties: { items: { type: 'array', items: ref(item) }, next: { type: ['string', 'null'] } } });
const errors = { 400: { $ref: '#/components/responses/Error' }, 401: { $ref: '#/components/responses/Error' }, 403: { $ref: '#/components/responses/Error' }, 404: { $ref: '#/components/responses/Error' }, 429: { $ref: '#/components/responses/Error' } };
const param = (name: string, where: 'path' | 'query', type: 'string' | 'integer' | 'boolean' = 'string', required = where === 'path') => ({ name, in: where, required, schema: { type } });
const paging = [param('limit', 'query', 'integer'), param('after', 'query')];
/** A time: epoch milliseconds, or ISO 8601 (a date-time with its offset, or a date: its UTC midnight). */
const time = { anyOf: [{ type: 'integer', minimum: 0, description: 'epoch milliseconds' }, { type: 'string', format: 'date-time' }, { type: 'string', format: 'date' }] };
const timeParam = (name: string, required = false) => ({ name, in: 'query', required, schema: time });
const range = [timeParam('from'), timeParam('to')];
const body = (schema: object) => ({ required: true, content: { 'application/json': { schema } } });
const nullableInt = { type: ['integer', 'null'] };
const usage = usageSchema;
const limits = { type: ['object', 'null'], properties: { rpm: { type: 'integer' }, tpm: { type: 'integer' }, concurrency: { type: 'integer' } }, additionalProperties: false };

const schemas = {
  Error: { type: 'object', required: ['type', 'error'], properties: { type: { const: 'error' }, error: { type: 'object', required: ['type', 'message'], properties: { type: { type: 'string' }, message: { type: 'string' } } }, request_id: { type: 'string' } } },
  Key: {
    type: 'object', required: ['keyId', 'prefix', 'callerId', 'models', 'limits', 'metadata', 'status', 'createdAt', 'lastUsedAt', 'expiresAt'], additionalProperties: false,
    properties: {
      keyId: { type: 'string', pattern: '^key_[0-9a-f]{20}$' }, prefix: { type: 'string', maxLength: 10 }, callerId: { type: 'string' },
      models: { type: ['array', 'null'], items: { type: 'string' } }, limits, metadata: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
      status: { enum: ['active', 'disabled', 'revoked'] }, createdAt: { type: 'integer' }, lastUsedAt: nullableInt, expiresAt: nullableInt,
    },
  },
  NewKey: { type: 'object', required: ['key', 'record'], properties: { key: { type: 'string', description: 'The secret: shown this once, never again.' }, record: ref('Key'), previous: ref('Key') } },
  Account: { type: 'object', required: ['balance', 'held', 'carry', 'ledger'], properties: { callerId: { type: 'string' }, balance: { type: 'integer' }, held: { type: 'integer' }, carry: { type: 'string', pattern: '^0(\\.\\d{1,12})?$' }, ledger: { type: 'integer' } } },
  CreditResult: { type: 'object', required: ['applied', 'callerId', 'amount', 'idempotencyKey', 'account'], properties: { applied: { type: 'boolean' }, callerId: { type: 'string' }, amount: { type: 'integer' }, idempotencyKey: { type: 'string' }, account: ref('Account') } },
  LedgerEntry: {
    type: 'object', required: ['id', 'callerId', 'requestId', 'amount', 'kind', 'at', 'usage'],
    properties: { id: { type: 'string' }, callerId: { type: 'string' }, requestId: { type: ['string', 'null'] }, amount: { type: 'integer' }, kind: { enum: ['credit', 'charge', 'review'] }, at: { type: 'integer' }, usage: { anyOf: [usage, { type: 'null' }] } },
  },
  Request: {
    type: 'object', required: ['requestId', 'callerId', 'endpoint', 'model', 'stream', 'status', 'errorCode', 'usage', 'cost', 'charge', 'billingStatus', 'startedAt', 'durationMs', 'ttfbMs', 'upstream', 'detail', 'user', 'attempts'],
    properties: {
      requestId: { type: 'string' }, callerId: { type: ['string', 'null'] }, endpoint: { type: 'string' }, model: { type: ['string', 'null'] }, stream: { type: 'boolean' },
      status: { type: 'integer' }, errorCode: { type: ['string', 'null'] }, usage: { anyOf: [usage, { type: 'null' }] }, cost: { type: 'string' }, charge: { type: 'integer' },
      billingStatus: { enum: ['billed', 'needs_review', 'not_billed', 'waived'] }, startedAt: { type: 'integer' }, durationMs: { type: 'number' }, ttfbMs: { type: ['number', 'null'] },
      upstream: { type: ['string', 'null'] }, detail: { type: ['string', 'null'] }, user: { type: ['string', 'null'] }, attempts: { type: 'array' },
    },
  },
  /** One request with its Responses API response: its id, stored or why not, what it chained from (null: it made none). */
  RequestDetail: {
    allOf: [ref('Request'), {
      type: 'object', required: ['response'],
      properties: {
        response: {
          anyOf: [{ type: 'null' }, {
            type: 'object', required: ['id', 'stored', 'reason', 'previousResponseId'], additionalProperties: false,
            properties: {
              id: { type: 'string' }, stored: { type: 'boolean' }, previousResponseId: { type: ['string', 'null'] },
              reason: { enum: ['too_large', 'conflict', 'not_requested', 'disabled', null], description: 'Why it was not stored (null when stored)' },
            },
          }],
        },
      },
    }],
  },
  Review: {
    type: 'object', required: ['requestId', 'callerId', 'model', 'endpoint', 'charge', 'usage', 'upstream', 'at', 'resolution'],
    properties: {
      requestId: { type: 'string' }, callerId: { type: 'string' }, model: { type: 'string' }, endpoint: { type: 'string' }, charge: { type: 'integer' }, usage, upstream: { type: ['string', 'null'] }, at: { type: 'integer' },
      resolution: { anyOf: [{ type: 'null' }, { type: 'object', required: ['action', 'amount', 'by', 'reason', 'at'], properties: { action: { enum: ['charge', 'waive'] }, amount: { type: 'integer' }, by: { type: 'string' }, reason: { type: 'string' }, at: { type: 'integer' } } }] },
    },
  },
  Spend: {
    type: 'object', required: ['callerId', 'model', 'day', 'requests', 'cost', 'charge', ...FIGURE_NAMES],
    properties: { callerId: { type: 'string' }, model: { type: 'string' }, day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, requests: { type: 'integer' }, cost: { type: 'string' }, charge: { type: 'integer' }, ...usage.properties },
  },
  Audit: { type: 'object', required: ['id', 'at', 'actor', 'action', 'target', 'before', 'after'], properties: { id: { type: 'string' }, at: { type: 'integer' }, actor: { type: 'string' }, action: { type: 'string' }, target: { type: 'string' }, before: {}, after: {} } },
  /** As PUT /models takes it, with every field shown (null for what is not set). */
  Model: { ...modelSchema, required: Object.keys(modelSchema.properties) },
  Override: overrideSchema,
  // Overview reads (lib/admin/stats.ts).
  AccountRow: { type: 'object', required: ['callerId', 'balance', 'held'], additionalProperties: false, properties: { callerId: { type: 'string' }, balance: { type: 'integer' }, held: { type: 'integer' } } },
  SeriesPoint: {
    type: 'object', required: ['at', 'requests', 'errors', 'cost', 'charge'], additionalProperties: false,
    properties: { at: { type: 'integer' }, requests: { type: 'integer' }, errors: { type: 'integer' }, cost: { type: 'string', description: 'exact, in minor units' }, charge: { type: 'integer' } },
  },
};

const grants = { models: { type: ['array', 'null'], items: { type: 'string' } }, limits, metadata: { type: ['object', 'null'], additionalProperties: { type: 'string' } } };
const modelList = { type: 'object', required: ['models'], additionalProperties: false, properties: { models: { type: 'array', items: ref('Model') } } };
const keyAction = (summary: string) => ({ post: { summary, parameters: [param('keyId', 'path')], responses: { 200: json(ref('Key')), ...errors } } });

/** The document; `servers` is left to the host, which mounts the router where it likes. */
export const adminOpenApi = Object.freeze({
  openapi: '3.1.0',
  info: { title: 'model-gateway admin API', version: VERSION, description: 'Keys, accounts, the request log, reviews, spend, models, stored responses and the audit trail. Every write is audited.' },
  security: [{ adminToken: [] }],
  paths: {
    '/keys': {
      post: { summary: 'Create a key (the secret is returned once)', requestBody: body({ type: 'object', required: ['callerId'], properties: { callerId: { type: 'string' }, secret: { type: 'string', minLength: 24 }, ...grants } }), responses: { 201: json(ref('NewKey'), 'Created'), ...errors } },
      get: { summary: 'List keys, newest first', parameters: [param('callerId', 'query'), ...paging], responses: { 200: json(page('Key')), ...errors } },
    },
    '/keys/{keyId}': {
      get: { summary: 'One key', parameters: [param('keyId', 'path')], responses: { 200: json(ref('Key')), ...errors } },
      patch: { summary: 'Update models, limits or metadata', parameters: [param('keyId', 'path')], requestBody: body({ type: 'object', properties: grants }), responses: { 200: json(ref('Key')), ...errors } },
    },
    '/keys/{keyId}/disable': keyAction('Disable a key'),
    '/keys/{keyId}/enable': keyAction('Enable a disabled key'),
    '/keys/{keyId}/revoke': keyAction('Revoke a key for good (its record is kept)'),
    '/keys/{keyId}/rotate': { post: { summary: 'A new secret for the same grants; the old one works until oldKeyExpiresAt', parameters: [param('keyId', 'path')], requestBody: body({ type: 'object', properties: { oldKeyExpiresAt: time } }), responses: { 201: json(ref('NewKey'), 'Created'), ...errors } } },
    '/accounts/{callerId}': { get: { summary: 'Balance, held, carried remainder (404: no account)', parameters: [param('callerId', 'path')], responses: { 200: json(ref('Account')), ...errors } } },
    '/accounts/{callerId}/credits': {
      post: {
        summary: 'Credit (or, negative, debit) once per Idempotency-Key; an unknown caller is a 404 unless createAccount is true',
        parameters: [param('callerId', 'path'), { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } }],
        requestBody: body({ type: 'object', required: ['amount'], properties: { amount: { type: 'integer', description: 'minor units; negative for a debit' }, createAccount: { type: 'boolean', default: false } } }), responses: { 200: json(ref('CreditResult')), ...errors },
      },
    },
    '/accounts/{callerId}/responses': {
      delete: {
        summary: 'Delete every stored Responses API response of an account (audited with the count); an account with none deletes 0',
        parameters: [param('callerId', 'path')],
        responses: { 200: json({ type: 'object', required: ['callerId', 'deleted'], additionalProperties: false, properties: { callerId: { type: 'string' }, deleted: { type: 'integer', minimum: 0 } } }), ...errors },
      },
    },
    '/accounts/{callerId}/ledger': { get: { summary: 'Ledger, newest first', parameters: [param('callerId', 'path'), ...range, ...paging], responses: { 200: json(page('LedgerEntry')), ...errors } } },
    '/requests': {
      get: {
        summary: 'Request log, newest first', responses: { 200: json(page('Request')), ...errors },
        parameters: [param('callerId', 'query'), param('model', 'query'), param('endpoint', 'query'), param('status', 'query', 'integer'), param('billingStatus', 'query'), ...range, ...paging],
      },
    },
    '/requests/{requestId}': { get: { summary: 'One request, with its Responses API response if it made one', parameters: [param('requestId', 'path')], responses: { 200: json(ref('RequestDetail')), ...errors } } },
    '/reviews': { get: { summary: 'Reviews, oldest first (open only by default)', parameters: [param('callerId', 'query'), param('open', 'query', 'boolean'), ...paging], responses: { 200: json(page('Review')), ...errors } } },
    '/reviews/{requestId}/resolve': {
      post: {
        summary: 'Charge or waive a flagged request, once', parameters: [param('requestId', 'path')],
        requestBody: body({ type: 'object', required: ['action', 'reason'], properties: { action: { enum: ['charge', 'waive'] }, amount: { type: 'integer' }, reason: { type: 'string' } } }),
        responses: { 200: json({ type: 'object', required: ['applied', 'review'], properties: { applied: { type: 'boolean' }, review: ref('Review') } }), ...errors },
      },
    },
    '/spend': { get: { summary: 'Spend per caller × model × UTC day, by day, caller, then model', parameters: [timeParam('from', true), timeParam('to', true), param('callerId', 'query'), ...paging], responses: { 200: json(page('Spend')), ...errors } } },
    '/models': {
      get: { summary: 'The catalog as it serves (one page)', responses: { 200: json(page('Model')), ...errors } },
      put: {
        summary: 'Replace the catalog whole and at once (a bad one is refused, the old one keeps serving); upstreams by adapter name; kept by the store as runtime overrides of the configured catalog when it keeps them',
        requestBody: body(modelsBodySchema),
        responses: { 200: json(modelList), ...errors },
      },
    },
    '/models/overrides': { get: { summary: 'The runtime overrides the store keeps, in use or not (one page; none without a store that keeps them)', responses: { 200: json(page('Override')), ...errors } } },
    '/models/{modelId}/override': {
      delete: {
        summary: 'Revert a model to the configuration: its configured fields, a withdrawn model served again, an added one gone', parameters: [param('modelId', 'path')],
        responses: { 200: json({ type: 'object', required: ['reverted', 'model'], properties: { reverted: ref('Override'), model: { anyOf: [ref('Model'), { type: 'null' }] } } }), ...errors },
      },
    },
    '/audit': { get: { summary: 'Audit trail of operator writes, newest first', parameters: [param('target', 'query'), ...paging], responses: { 200: json(page('Audit')), ...errors } } },
    // Overview reads (lib/admin/stats.ts): accounts by balance, the request log per time bucket.
    '/accounts': { get: { summary: 'Accounts, lowest balance first (ties by caller id)', parameters: paging, responses: { 200: json(page('AccountRow')), ...errors } } },
    '/stats/requests': {
      get: {
        summary: 'Requests, errors (an error code or a status of 400 or more) and spend per bucket of [from, to), the first starting at from; every bucket present, at most 1000',
        parameters: [timeParam('from', true), timeParam('to', true), { name: 'bucketMs', in: 'query', required: true, schema: { type: 'integer', minimum: 60000 } }, param('callerId', 'query')],
        responses: {
          200: json({
            type: 'object', required: ['from', 'to', 'bucketMs', 'buckets'],
            properties: { from: { type: 'integer' }, to: { type: 'integer' }, bucketMs: { type: 'integer' }, callerId: { type: 'string' }, buckets: { type: 'array', items: ref('SeriesPoint') } },
          }),
          ...errors,
        },
      },
    },
  },
  components: {
    securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'An admin token from createAdminRouter({ tokens }).' } },
    responses: { Error: json(ref('Error'), 'An error in the gateway\'s standard shape') },
    schemas,
  },
});
