/** Shapes written once as JSON Schema (TypeBox builds them; ajv, editors and the OpenAPI document read them as they are), their types derived: limits, billing statuses, capabilities. */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** One of `values`: JSON Schema `enum` (its error names every value), typed as their union. */
export const enumOf = <const V extends readonly (string | number | boolean | null)[]>(values: V, options: object = {}): TUnsafe<V[number]> =>
  Type.Unsafe<V[number]>({ ...options, enum: [...values] });

/** A schema of one `type` that also takes null (`type: ["string", "null"]`): one type error naming both. */
export const orNull = <T extends TSchema & { type: string }>(schema: T): TUnsafe<Static<T> | null> =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });

/** A count per minute or in flight: 0 or more (0 or absent: unlimited). */
const count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }));

/** Per-caller limits (a key's grants, the config's defaults); `undefined` or 0 means unlimited. */
export const limitsSchema = Type.Object({
  rpm: count('Requests per minute'),
  tpm: count('Tokens per minute (estimated at admission, corrected at settle)'),
  concurrency: count('Requests in flight at once'),
}, { additionalProperties: false });

/** Per-caller limits; `undefined` or 0 means unlimited. */
export type LimitSettings = Static<typeof limitsSchema>;

/** How a request ended for billing (`waived`: a review resolved without a further charge). */
export const BILLING_STATUSES = ['billed', 'needs_review', 'not_billed', 'waived'] as const;

/** How a request ended for billing (`waived`: a review resolved without a further charge). */
export type BillingStatus = typeof BILLING_STATUSES[number];

/** A billing status, as the admin API's request log and its filter take it. */
export const billingStatusSchema = enumOf(BILLING_STATUSES);

/** The statuses a request settles with (`waived` comes only from resolving a review). */
export const SETTLE_OUTCOMES = BILLING_STATUSES.filter((s): s is Exclude<BillingStatus, 'waived'> => s !== 'waived');

/** What a model can be used for; each endpoint needs one. */
export const CAPABILITIES = ['llm', 'rerank'] as const;

/** What a model can be used for; each endpoint needs one. */
export type Capability = typeof CAPABILITIES[number];

/** A model's capability, as the config file and the admin API's catalog take it. */
export const capabilitySchema = enumOf(CAPABILITIES);
