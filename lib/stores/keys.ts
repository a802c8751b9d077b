/** API keys as records an operator manages: created, listed, updated, disabled, rotated, revoked (never deleted). */
import { Type, type Static } from '@sinclair/typebox';
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../foundation/errors';
import { budgetLimitsSchema, runKeyGrantSchema, type BudgetLimits, type RunKeyGrant } from '../schemas/budgets';
import { enumOf, limitsSchema, orNull } from '../schemas/shapes';
import type { Caller, LimitSettings, ScopeBudget } from '../types';
import type { Page } from './reads';
import type { Awaitable } from './types';

/** A key to add (addKey() of MemoryStore and PostgresStore): the caller it authenticates. Provisioning never moves money: use credit(); a key's budget is set with createKey() or updateKey(). */
export type MemoryKey = Pick<Caller, 'id' | 'models' | 'limits' | 'disabled'>;

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
  expiresAt: orNull(Type.Integer({ description: 'After this time (epoch ms) the key no longer works: the old secret of a rotation, a run key\'s end' })),
  budget: Type.Union([budgetLimitsSchema, Type.Null()], { description: 'The key\'s own budget (a run key\'s cap), with its session and subagent templates' }),
  parentKeyId: orNull(Type.String({ description: 'A run key\'s parent: its budgets are on the run key\'s path' })),
  runKeys: Type.Union([runKeyGrantSchema, Type.Null()], { description: 'The run keys this key may mint (POST /v1/keys/run); null: none' }),
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
  budget?: BudgetLimits | null;
  /** Makes it a run key of this key (same caller). */
  parentKeyId?: string | null;
  runKeys?: RunKeyGrant | null;
}

/** The fields an update may change. */
export type KeyPatch = Partial<Pick<KeyRecord, 'models' | 'limits' | 'metadata' | 'status' | 'expiresAt' | 'budget' | 'runKeys'>>;

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

/** What a key's caller is read with besides its record: its parent (a run key's), its account's budget, its organisation and that one's budget. */
export interface KeyPath {
  parent?: KeyRecord | undefined;
  account?: BudgetLimits | null | undefined;
  orgId?: string | null | undefined;
  org?: BudgetLimits | null | undefined;
}

const usableAt = (r: KeyRecord, now: number): boolean => r.status === 'active' && (r.expiresAt === null || r.expiresAt > now);

/**
 * The caller a key authenticates now: refused (disabled) when the key, or a run key's parent, is
 * not active or has expired. Its budgets are those on its path, widest first; a run key's models
 * are its own within its parent's.
 */
export function callerOf(r: KeyRecord, now: number, path: KeyPath = {}): Caller {
  const { parent } = path;
  const usable = usableAt(r, now) && (r.parentKeyId === null || (parent !== undefined && parent.callerId === r.callerId && usableAt(parent, now)));
  const models = r.models && parent?.models ? r.models.filter((m) => parent.models?.includes(m)) : r.models ?? parent?.models ?? null;
  const expiresAt = Math.min(r.expiresAt ?? Infinity, parent?.expiresAt ?? Infinity);
  const budgets: ScopeBudget[] = [];
  if (path.orgId && path.org) budgets.push({ scope: `org:${path.orgId}`, limits: path.org });
  if (path.account) budgets.push({ scope: `account:${r.callerId}`, limits: path.account });
  if (parent?.budget) budgets.push({ scope: `key:${parent.keyId}`, limits: parent.budget });
  if (r.budget) budgets.push({ scope: `${r.parentKeyId === null ? 'key' : 'run'}:${r.keyId}`, limits: r.budget });
  return {
    id: r.callerId, ...(models ? { models } : {}), ...(r.limits ? { limits: r.limits } : {}), disabled: !usable, keyId: r.keyId,
    ...(expiresAt < Infinity ? { expiresAt } : {}), ...(budgets.length > 0 ? { budgets } : {}),
    ...(r.runKeys && r.parentKeyId === null ? { runKeys: r.runKeys } : {}), ...(r.parentKeyId === null ? {} : { parentKeyId: r.parentKeyId }),
  };
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
