/** The shapes the admin routes and their OpenAPI document share: references to the document's schemas, a page, query text, times, paging, the catalog's models. */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { pricesSchema, pricingSchema } from '../billing/figure-schemas';
import { capabilitySchema, enumOf, orNull } from '../schemas/shapes';
import type { RequestLogEntry } from '../stores/types';
import type { ReviewView } from './reviews';
import type { Pricing } from '../types';

const { Optional } = Type;

/** A reference to a schema of the document's components (answers the OpenAPI document shows by name). */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Every list answers one shape: a page of items and the cursor of the next page (null on the last). */
export const page = (item: string) => ({ type: 'object', required: ['items', 'next'], additionalProperties: false, properties: { items: { type: 'array', items: ref(item) }, next: { type: ['string', 'null'] } } });

/** A query parameter's text: 1 to 512 characters (lib/admin/inputs.ts reads every parameter so). */
export const queryText = Type.String({ minLength: 1, maxLength: 512 });

/** ISO 8601 as a time takes it: a date, or a date-time with its offset (without one it would be the server's local time). */
export const ISO_8601_PATTERN = '^(\\d{4})-(\\d{2})-(\\d{2})(?:[Tt]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:[Zz]|[+-]\\d{2}:?\\d{2}))?$';

/** Marks the time schema: its text or number is read by timeOf before the schema checks it. */
export const TIME = Symbol('admin time');

/**
 * A time an operator gives (`from`, `to`, `oldKeyExpiresAt`): epoch milliseconds (a number or its
 * digits) or ISO 8601 (a date-time with its offset, or a date: its UTC midnight). Read as epoch ms.
 */
export const timeSchema = Object.assign(Type.Unsafe<number>({
  type: ['integer', 'string'],
  anyOf: [
    { type: 'integer', minimum: 0, description: 'epoch milliseconds' }, { type: 'string', pattern: '^\\d{1,16}$', description: 'epoch milliseconds' },
    { type: 'string', pattern: ISO_8601_PATTERN, description: 'ISO 8601: a date-time with its offset, or a date (its UTC midnight)' },
  ],
}), { [TIME]: true });

/** The paging parameters of every list but the catalog's. */
export const paging = { limit: Optional(Type.Integer()), after: Optional(queryText) };

/** A runtime override as the admin API shows it. */
export const overrideSchema = Type.Object({
  model: Type.String(), kind: enumOf(['edit', 'add', 'remove']), fields: Type.Unsafe<Record<string, unknown>>({ type: 'object', description: 'The values it sets (a whole model for add; none for remove)' }),
  configured: Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], description: 'For an edit in use: the configured value of each field it sets' }),
  actor: Type.String(), at: Type.Integer(), inUse: Type.Boolean(), reason: orNull(Type.String({ description: 'Why it is out of use' })),
}, { additionalProperties: false });

/** One member of a model's failover group as GET /models shows it: what a request it serves is sent and charged. */
export const memberSchema = Type.Object({
  upstream: Type.String({ description: 'The adapter\'s name' }), format: enumOf(['anthropic', 'openai', null]), upstreamModel: Type.String({ description: 'The model name it is sent' }),
  pricing: Type.Unsafe<Pricing | null>({ ...pricingSchema, type: ['object', 'null'], description: 'Its own prices as set; null: the model\'s' }),
  prices: Type.Unsafe<Record<string, string | null> | null>({ ...pricesSchema, type: ['object', 'null'], description: 'Every price in effect for the requests it serves, defaults by its format applied (null for one with no default not set); null for a free model' }),
}, { additionalProperties: false });

/** One model as PUT /models takes it (the OpenAPI document's Model and the PUT body derive from it). */
export const modelSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 256 }), capability: capabilitySchema, upstream: Type.String({ minLength: 1, description: 'An adapter by its name' }),
  aliases: Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 100, description: 'More names callers may ask for it by' })),
  patterns: Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 100, description: 'Name patterns it answers ("*": any run of characters), tried after every id and alias, the most specific first' })),
  upstreamModel: Optional(Type.String({ minLength: 1 })), free: Optional(Type.Boolean()), temperature: Optional(Type.Boolean()), maxOutputTokens: Optional(orNull(Type.Integer({ minimum: 1 }))),
  displayName: Optional(orNull(Type.String())), createdAt: Optional(orNull(Type.String())), agentReady: Optional(Type.Boolean()),
  clampMaxTokens: Optional(Type.Boolean()), autoCache: Optional(Type.Boolean()),
  pricing: Optional(Type.Unsafe<Pricing | null>({ ...pricingSchema, type: ['object', 'null'] })),
  prices: Optional(Type.Unsafe<Record<string, string | null> | null>({ ...pricesSchema, description: 'Read-only: every price in effect, defaults applied (null for one with no default not set: that usage is flagged for review), when every request of the model is charged them; null when they depend on the failover member that serves (see members) or the model has none (ignored by PUT)' })),
  members: Optional(Type.Union([Type.Array(memberSchema), Type.Null()], { description: 'Read-only: a failover group\'s members, each with the model it is sent and the prices in effect for the requests it serves; null for a single upstream (ignored by PUT)' })),
  override: Optional(Type.Union([overrideSchema, Type.Null()], { description: 'Read-only: the runtime override this model serves with, null when it is as configured (ignored by PUT)' })),
}, { additionalProperties: false });

/** A model as PUT /models takes it. */
export type ModelInput = Static<typeof modelSchema>;

/** A model as GET /models shows it: every field (null for what is not set). */
export const modelViewSchema = Type.Required(modelSchema);

/** A model as GET /models shows it (the dashboard reads it so). */
export type ModelView = Static<typeof modelViewSchema>;

/** A runtime override as GET /models/overrides shows it. */
export type OverrideView = Static<typeof overrideSchema>;

/** The body of PUT /models: what GET /models shows is accepted back as it is. */
export const modelsBodySchema = Type.Object({ models: Type.Array(modelSchema, { minItems: 1, maxItems: 10_000 }) }, { additionalProperties: false });

/** A request's Responses API response: its id, stored or why not, what it chained from (null: it made none). */
export const responseNoteSchema = Type.Union([Type.Null(), Type.Object({
  id: Type.String(), stored: Type.Boolean(),
  reason: enumOf(['too_large', 'conflict', 'not_requested', 'disabled', null], { description: 'Why it was not stored (null when stored)' }),
  previousResponseId: orNull(Type.String()),
}, { additionalProperties: false })]);

/** One request as GET /requests/{requestId} shows it: its log entry, with its Responses API response if it made one, and its review if it was flagged. */
export type RequestDetail = RequestLogEntry & { response: Static<typeof responseNoteSchema>; review: ReviewView | null };
