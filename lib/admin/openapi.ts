/** The OpenAPI 3.1 document of the admin API, served at GET /openapi.json (schemas are JSON Schema 2020-12): its paths built from the route table, its shared answers here. */
import type { TObject } from '@sinclair/typebox';
import { FIGURE_NAMES } from '../billing/figures';
import { usageSchema } from '../billing/figure-schemas';
import { compileSchema } from '../schemas/ajv';
import { billingStatusSchema } from '../schemas/shapes';
import { budgetLimitsSchema, budgetSchema } from '../schemas/budgets';
import { keyRecordSchema } from '../stores/keys';
import { VERSION } from '../foundation/version';
import { ADMIN_ROUTES } from './routes';
import { modelViewSchema, overrideSchema, ref, responseNoteSchema } from './schemas';
import { paramsOf, type AdminRoute } from './table';

const json = (schema: object, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const errors = { 400: { $ref: '#/components/responses/Error' }, 401: { $ref: '#/components/responses/Error' }, 403: { $ref: '#/components/responses/Error' }, 404: { $ref: '#/components/responses/Error' }, 429: { $ref: '#/components/responses/Error' } };
const nullableInt = { type: ['integer', 'null'] };
const usage = usageSchema;

const schemas = {
  Error: { type: 'object', required: ['type', 'error'], properties: { type: { const: 'error' }, error: { type: 'object', required: ['type', 'message'], properties: { type: { type: 'string' }, message: { type: 'string' } } }, request_id: { type: 'string' } } },
  Key: keyRecordSchema,
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
      billingStatus: billingStatusSchema, startedAt: { type: 'integer' }, durationMs: { type: 'number' }, ttfbMs: { type: ['number', 'null'] },
      upstream: { type: ['string', 'null'] }, detail: { type: ['string', 'null'] }, user: { type: ['string', 'null'] }, attempts: { type: 'array' },
      keyId: { type: 'string' }, sessionId: { type: 'string' }, agentId: { type: 'string' },
      sessionSource: { type: 'string', description: 'Where the session id was read: x-session-id, x-claude-code-session-id, session-id, session_id, prompt_cache_key, safety_identifier or user' },
    },
  },
  /** One request with its Responses API response (its id, stored or why not, what it chained from; null: it made none) and its review (null: never flagged). */
  RequestDetail: {
    allOf: [ref('Request'), {
      type: 'object', required: ['response', 'review'],
      properties: { response: responseNoteSchema, review: { anyOf: [ref('Review'), { type: 'null' }], description: 'Its review when it was flagged (open or resolved), else null' } },
    }],
  },
  Review: {
    type: 'object', required: ['requestId', 'callerId', 'model', 'endpoint', 'charge', 'usage', 'upstream', 'detail', 'attempts', 'at', 'resolution', 'flagged', 'observed'],
    properties: {
      requestId: { type: 'string' }, callerId: { type: 'string' }, model: { type: 'string' }, endpoint: { type: 'string' },
      charge: { type: 'integer', description: 'Whole minor units its settlement charged (the confirmed part only, through the caller\'s carried remainder)' },
      usage, upstream: { type: ['string', 'null'] }, at: { type: 'integer' },
      detail: { type: ['string', 'null'], description: 'Its request-log line\'s private detail: what was not believed or why the stream ended' },
      attempts: { type: 'array', description: 'Its request-log line\'s upstream attempts' },
      flagged: { type: 'string', description: 'Why it was flagged, in words, from its usage provenance' },
      observed: {
        description: 'What its observed usage costs at the model\'s prices now (null: the model is no longer in the catalog)',
        anyOf: [{ type: 'null' }, {
          type: 'object', required: ['cost', 'charge', 'outstanding', 'unpriced'], additionalProperties: false,
          properties: {
            cost: { type: 'string', description: 'Exact cost in minor units (a decimal)' },
            charge: { type: ['integer', 'null'], description: 'The whole minor units of cost, rounded down: a charge never above the exact cost (a resolution carries no remainder); null beyond 2^53 - 1' },
            outstanding: { type: ['integer', 'null'], description: 'charge less what the settlement and any resolution charged, at least 0: the amount that bills it' },
            unpriced: { type: 'array', items: { enum: FIGURE_NAMES }, description: 'Figures observed that the model does not price (not in cost)' },
          },
        }],
      },
      resolution: { anyOf: [{ type: 'null' }, { type: 'object', required: ['action', 'amount', 'by', 'reason', 'at'], properties: { action: { enum: ['charge', 'waive'] }, amount: { type: 'integer' }, by: { type: 'string' }, reason: { type: 'string' }, at: { type: 'integer' } } }] },
    },
  },
  Spend: {
    type: 'object', required: ['callerId', 'model', 'day', 'requests', 'cost', 'charge', ...FIGURE_NAMES],
    properties: { callerId: { type: 'string' }, model: { type: 'string' }, day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, requests: { type: 'integer' }, cost: { type: 'string' }, charge: { type: 'integer' }, ...usage.properties },
  },
  Audit: { type: 'object', required: ['id', 'at', 'actor', 'action', 'target', 'before', 'after'], properties: { id: { type: 'string' }, at: { type: 'integer' }, actor: { type: 'string' }, action: { type: 'string' }, target: { type: 'string' }, before: {}, after: {} } },
  Budget: budgetSchema,
  BudgetUsage: {
    type: 'object', required: ['scope', 'period', 'spent', 'held', 'excess', 'requests', 'requestsHeld', 'tokens', 'tokensHeld'], additionalProperties: false,
    properties: {
      scope: { type: 'string' }, period: { type: 'string', description: 'd:YYYY-MM-DD, w:YYYY-MM-DD (its Monday), m:YYYY-MM or total' },
      spent: { type: 'integer', description: 'Minor units charged, never above the cap' }, held: { type: 'integer' },
      excess: { type: 'integer', description: 'Charged beyond the cap (flagged for review)' }, requests: { type: 'integer' }, requestsHeld: { type: 'integer' },
      tokens: { type: 'integer' }, tokensHeld: { type: 'integer' },
    },
  },
  BudgetPosition: {
    type: 'object', required: ['scope', 'limits', 'period', 'usage', 'left'], additionalProperties: false,
    properties: {
      scope: { type: 'string' }, limits: budgetLimitsSchema, usage: ref('BudgetUsage'), left: { type: ['integer', 'null'], description: 'Minor units left this period (null: no money cap)' },
      period: { type: 'object', required: ['key', 'start', 'end'], properties: { key: { type: 'string' }, start: { type: 'integer' }, end: { type: ['integer', 'null'] } } },
    },
  },
  Membership: { type: 'object', required: ['callerId', 'orgId'], additionalProperties: false, properties: { callerId: { type: 'string' }, orgId: { type: ['string', 'null'] } } },
  /** As PUT /models takes it, with every field shown (null for what is not set). */
  Model: modelViewSchema,
  Override: overrideSchema,
  // Overview reads (lib/admin/stats.ts).
  AccountRow: { type: 'object', required: ['callerId', 'balance', 'held'], additionalProperties: false, properties: { callerId: { type: 'string' }, balance: { type: 'integer' }, held: { type: 'integer' } } },
  SeriesPoint: {
    type: 'object', required: ['at', 'requests', 'errors', 'cost', 'charge'], additionalProperties: false,
    properties: { at: { type: 'integer' }, requests: { type: 'integer' }, errors: { type: 'integer' }, cost: { type: 'string', description: 'exact, in minor units' }, charge: { type: 'integer' } },
  },
};

/** A path parameter: text (the route reads it as it is). */
const pathParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
/** The parameters of an object schema's properties (headers, query). */
const paramsIn = (where: 'header' | 'query', schema: TObject | undefined) =>
  Object.entries(schema?.properties ?? {}).map(([name, param]) => ({ name, in: where, required: (schema?.required ?? []).includes(name), schema: param }));

/** A route's operation: its parameters (path, headers, query), its body (optional when the schema takes {}, what a bodiless request reads as), its answer and the errors. */
function operationOf(row: AdminRoute): object {
  const parameters = [...paramsOf(row.path).map(pathParam), ...paramsIn('header', row.headers), ...paramsIn('query', row.query)];
  return {
    summary: row.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(row.body ? { requestBody: { required: !compileSchema(row.body)({}), content: { 'application/json': { schema: row.body } } } } : {}),
    responses: { [row.status ?? 200]: json(row.answer, row.answerDescription), ...errors },
  };
}

/** The document's paths: one operation per row of the table, and nothing else. */
function pathsOf(rows: readonly AdminRoute[]): Record<string, Record<string, object>> {
  const paths: Record<string, Record<string, object>> = {};
  for (const row of rows) (paths[row.path] ??= {})[row.method] = operationOf(row);
  return paths;
}

/** The document; `servers` is left to the host, which mounts the router where it likes. */
export const adminOpenApi = Object.freeze({
  openapi: '3.1.0',
  info: { title: 'model-gateway admin API', version: VERSION, description: 'Keys, accounts, budgets, the request log, reviews, spend, models, stored responses and the audit trail. Every write is audited.' },
  security: [{ adminToken: [] }],
  paths: pathsOf(ADMIN_ROUTES),
  components: {
    securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'An admin token from createAdminRouter({ tokens }).' } },
    responses: { Error: json(ref('Error'), 'An error in the gateway\'s standard shape') },
    schemas,
  },
});
