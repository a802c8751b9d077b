/** Admin routes for keys: create (the secret shown once), list, get, update, disable, enable, rotate, revoke. */
import { Type, type Static } from '@sinclair/typebox';
import type { Response } from 'express';
import { GatewayError } from '../foundation/errors';
import { runKeyGrantSchema } from '../schemas/budgets';
import { limitsSchema } from '../schemas/shapes';
import { limitsInputSchema, limitsOf } from './budgets';
import { hashKey } from '../stores/hash';
import { keyIdOf, newKeySecret, prefixOf, unknownModel, type KeyPatch, type KeyRecord } from '../stores/keys';
import { notFoundError } from './http';
import { page, paging, queryText, ref, timeSchema } from './schemas';
import { audit } from './store';
import { defineRoute, type AdminContext, type AdminRoute } from './table';

const { Optional } = Type;
/** What a key grants: its models (null: every model), limits and metadata. */
const grants = {
  models: Optional(Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string', minLength: 1 }, maxItems: 1000 })),
  limits: Optional(Type.Union([limitsSchema, Type.Null()])),
  metadata: Optional(Type.Unsafe<Record<string, string> | null>({ type: ['object', 'null'], additionalProperties: { type: 'string', maxLength: 1000 }, maxProperties: 50 })),
  budget: Optional(Type.Union([limitsInputSchema, Type.Null()], { description: 'The key\'s own budget, with each session\'s and subagent\'s (docs/budgets.md)' })),
  runKeys: Optional(Type.Union([runKeyGrantSchema, Type.Null()], { description: 'Lets the key mint run keys (POST /v1/keys/run) up to this cap and lifetime' })),
};
const createBody = Type.Object({ callerId: Type.String({ minLength: 1, maxLength: 256 }), secret: Optional(Type.String({ minLength: 24, maxLength: 256 })), ...grants }, { additionalProperties: false });
const patchBody = Type.Object(grants, { additionalProperties: false, minProperties: 1 });
type Grants = Static<typeof patchBody>;
const keyId = (params: Record<string, string>): string => params.keyId ?? '';

/**
 * What a key's grants become: with a catalog given, an allow-list naming a model it does not serve is refused (400), one
 * naming an alias or a pattern's name with the id to name; a budget gets its defaults.
 */
function checkModels<T extends Grants>(ctx: AdminContext, grantsOf: T): Omit<T, 'budget'> & Pick<KeyPatch, 'budget'> {
  const catalog = ctx.models?.();
  const at = catalog ? grantsOf.models?.findIndex((id) => !catalog.byId.has(id)) ?? -1 : -1;
  const name = grantsOf.models?.[at];
  const model = name === undefined ? undefined : catalog?.resolve(name);
  if (model) throw new GatewayError('invalid_request_error', `models.${at}: "${name}" is another name of "${model.id}"; an allow-list names catalog ids (its other names are allowed with it): use "${model.id}"`);
  const unknown = catalog && unknownModel(grantsOf.models, catalog.byId);
  if (unknown) throw new GatewayError('invalid_request_error', unknown);
  const { budget, ...rest } = grantsOf;
  return { ...rest, ...(budget === undefined ? {} : { budget: budget === null ? null : limitsOf(budget, 'budget') }) };
}

const find = async (ctx: AdminContext, id: string): Promise<KeyRecord> => (await ctx.store.getKey(id)) ?? Promise.reject(notFoundError(`keyId: ${id}`));

async function create(ctx: AdminContext, grantsOf: KeyPatch & { callerId: string }, secret: string): Promise<KeyRecord> {
  const keyHash = hashKey(secret);
  if (await ctx.store.getKey(keyIdOf(keyHash))) throw new GatewayError('invalid_request_error', 'secret: is already a key; choose another.');
  return ctx.store.createKey({
    keyHash, prefix: prefixOf(secret), callerId: grantsOf.callerId, models: grantsOf.models ?? null, limits: grantsOf.limits ?? null, metadata: grantsOf.metadata ?? null,
    budget: grantsOf.budget ?? null, runKeys: grantsOf.runKeys ?? null,
  });
}

async function change(ctx: AdminContext, res: Response, id: string, action: string, patch: KeyPatch): Promise<KeyRecord> {
  const out = await ctx.store.updateKey(id, patch);
  if (!out) throw notFoundError(`keyId: ${id}`);
  await audit(ctx.store, res, action, `key:${id}`, out.before, out.after);
  return out.after;
}

const keyAction = (verb: 'disable' | 'enable' | 'revoke', status: KeyRecord['status'], summary: string) => defineRoute({
  method: 'post', path: `/keys/{keyId}/${verb}`, summary, access: 'write', answer: ref('Key'),
  handle: ({ params, res, ctx }) => change(ctx, res, keyId(params), `key.${verb}`, { status }),
});

export const keyRoutes: readonly AdminRoute[] = [
  defineRoute({
    method: 'post', path: '/keys', summary: 'Create a key (the secret is returned once)', access: 'write', body: createBody, status: 201, answer: ref('NewKey'), answerDescription: 'Created',
    async handle({ body, res, ctx }) {
      const checked = checkModels(ctx, body);
      const secret = checked.secret ?? newKeySecret();
      const record = await create(ctx, checked, secret);
      await audit(ctx.store, res, 'key.create', `key:${record.keyId}`, null, record);
      return { key: secret, record };
    },
  }),
  defineRoute({
    method: 'get', path: '/keys', summary: 'List keys, newest first', access: 'read', query: Type.Object({ callerId: Optional(queryText), ...paging }), answer: page('Key'),
    handle: ({ query, ctx }) => ctx.store.listKeys(query),
  }),
  defineRoute({ method: 'get', path: '/keys/{keyId}', summary: 'One key', access: 'read', answer: ref('Key'), handle: ({ params, ctx }) => find(ctx, keyId(params)) }),
  defineRoute({
    method: 'patch', path: '/keys/{keyId}', summary: 'Update models, limits or metadata', access: 'write', body: patchBody, answer: ref('Key'),
    handle: ({ params, body, res, ctx }) => change(ctx, res, keyId(params), 'key.update', checkModels(ctx, body)),
  }),
  keyAction('disable', 'disabled', 'Disable a key'),
  keyAction('enable', 'active', 'Enable a disabled key'),
  keyAction('revoke', 'revoked', 'Revoke a key for good (its record is kept)'),
  // A new secret for the same caller and grants; the old one works until `oldKeyExpiresAt` (default: now).
  defineRoute({
    method: 'post', path: '/keys/{keyId}/rotate', summary: 'A new secret for the same grants; the old one works until oldKeyExpiresAt', access: 'write',
    body: Type.Object({ oldKeyExpiresAt: Optional(timeSchema) }, { additionalProperties: false }), status: 201, answer: ref('NewKey'), answerDescription: 'Created',
    async handle({ params, body, res, ctx }) {
      const oldKeyExpiresAt = body.oldKeyExpiresAt ?? Date.now();
      const old = await find(ctx, keyId(params));
      if (old.status !== 'active') throw new GatewayError('invalid_request_error', `keyId: ${old.keyId} is ${old.status}; only an active key is rotated.`);
      const secret = newKeySecret();
      const record = await create(ctx, { callerId: old.callerId, models: old.models, limits: old.limits, metadata: old.metadata, budget: old.budget, runKeys: old.runKeys }, secret);
      const previous = await change(ctx, res, old.keyId, 'key.rotate', { expiresAt: oldKeyExpiresAt });
      await audit(ctx.store, res, 'key.create', `key:${record.keyId}`, null, record);
      return { key: secret, record, previous };
    },
  }),
];
