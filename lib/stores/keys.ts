/** API keys as records an operator manages: created, listed, updated, disabled, rotated, revoked (never deleted). */
import { Type, type Static } from '@sinclair/typebox';
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors';
import { enumOf, limitsSchema, orNull } from '../schemas/shapes';
import type { Caller, LimitSettings } from '../types';
import type { Page } from './reads';
import type { Awaitable } from './types';

/** A key to add (addKey() of MemoryStore and PostgresStore): the caller it authenticates. Provisioning never moves money: use credit(). */
export type MemoryKey = Caller;

/** A key's states: `revoked` is final; `disabled` can be enabled again. */
export const KEY_STATUSES = ['active', 'disabled', 'revoked'] as const;

/** A key's state: `revoked` is final; `disabled` can be enabled again. */
export type KeyStatus = typeof KEY_STATUSES[number];

/** What a store keeps of a key: never the secret, only its digest (the id derives from it) and a display prefix; the admin API shows it as it is. */
export const keyRecordSchema = Type.Object({
  keyId: Type.String({ pattern: '^key_[0-9a-f]{20}$' }),
  prefix: Type.String({ maxLength: 10, description: 'The first characters of the secret, to recognise it (e.g. "sk-live-ab")' }),
  callerId: Type.String(),
  models: orNull(Type.Array(Type.String())),
  limits: Type.Union([limitsSchema, Type.Null()]),
  metadata: Type.Unsafe<Record<string, string> | null>({ type: ['object', 'null'], additionalProperties: { type: 'string' } }),
  status: enumOf(KEY_STATUSES),
  createdAt: Type.Integer({ description: 'Epoch ms' }),
  lastUsedAt: orNull(Type.Integer()),
  expiresAt: orNull(Type.Integer({ description: 'After this time (epoch ms) the key no longer works: the old secret of a rotation' })),
}, { additionalProperties: false });

/** What a store keeps of a key: never the secret, only its digest (the id derives from it) and a display prefix. */
export type KeyRecord = Static<typeof keyRecordSchema>;

/** A new key: its digest and prefix (the secret itself never reaches a store). */
export interface NewKey {
  keyHash: string;
  prefix: string;
  callerId: string;
  models?: readonly string[] | null;
  limits?: LimitSettings | null;
  metadata?: Record<string, string> | null;
  expiresAt?: number | null;
}

/** The fields an update may change. */
export type KeyPatch = Partial<Pick<KeyRecord, 'models' | 'limits' | 'metadata' | 'status' | 'expiresAt'>>;

/** Key management (both built-in stores). */
export interface KeyAdminStore {
  createKey(key: NewKey): Awaitable<KeyRecord>;
  getKey(keyId: string): Awaitable<KeyRecord | undefined>;
  listKeys(query?: { callerId?: string; limit?: number; after?: string }): Awaitable<Page<KeyRecord>>;
  /** Applies `patch`; returns the record before and after, or undefined for an unknown key. A revoked key changes no more. */
  updateKey(keyId: string, patch: KeyPatch): Awaitable<{ before: KeyRecord; after: KeyRecord } | undefined>;
}

/** The public id of a key: derived from its digest, so it names the key without revealing it. */
export const keyIdOf = (keyHash: string): string => `key_${keyHash.slice(0, 20)}`;

/** A new key's secret, the one format every way of making a key uses: `sk-mgw-` and 32 random bytes (base64url). */
export const newKeySecret = (): string => `sk-mgw-${randomBytes(32).toString('base64url')}`;

/** The display prefix of a secret: its first 10 characters at most (never more than a third of it). */
export const prefixOf = (secret: string): string => secret.slice(0, Math.min(10, Math.floor(secret.length / 3)));

/** The caller a key authenticates now: refused (disabled) when the key is not active or has expired. */
export function callerOf(r: KeyRecord, now: number): Caller {
  const usable = r.status === 'active' && (r.expiresAt === null || r.expiresAt > now);
  return { id: r.callerId, ...(r.models ? { models: r.models } : {}), ...(r.limits ? { limits: r.limits } : {}), disabled: !usable };
}

/** A revoked key refuses every change: revocation is final (history is kept). */
export function checkPatch(before: KeyRecord, patch: KeyPatch): void {
  if (before.status === 'revoked') throw new GatewayError('invalid_request_error', `keyId: ${before.keyId} is revoked; create a new key instead.`);
}

/**
 * The refusal of an allow-list naming a model that is not served, naming the first such model and
 * what is known (up to 20 ids); undefined when every model is known.
 */
export function unknownModel(models: readonly string[] | null | undefined, known: ReadonlySet<string> | ReadonlyMap<string, unknown>): string | undefined {
  const i = models?.findIndex((id) => !known.has(id)) ?? -1;
  if (!models || i < 0) return undefined;
  const ids = [...known.keys()];
  return `models.${i}: "${models[i]}" is not in the catalog (known: ${ids.slice(0, 20).join(', ') || 'none'}${ids.length > 20 ? ', …' : ''})`;
}
