/** Admin routes for keys: create (the secret shown once), list, get, update, disable, enable, rotate, revoke. */
import express, { type Router } from 'express';
import { randomBytes } from 'node:crypto';
import { catalogReader, type ModelsOption } from '../catalog';
import { GatewayError } from '../errors';
import { hashKey } from '../stores/hash';
import { keyIdOf, prefixOf, unknownModel, type KeyPatch, type KeyRecord } from '../stores/keys';
import type { LimitSettings } from '../types';
import { bodyOf, notFoundError, Query, route, timeOf } from './http';
import { audit, type AdminStore } from './store';

const limitsSchema = { type: 'object', additionalProperties: false, properties: { rpm: { type: 'integer', minimum: 0 }, tpm: { type: 'integer', minimum: 0 }, concurrency: { type: 'integer', minimum: 0 } } };
const grants = {
  models: { type: ['array', 'null'], items: { type: 'string', minLength: 1 }, maxItems: 1000 },
  limits: { anyOf: [limitsSchema, { type: 'null' }] },
  metadata: { type: ['object', 'null'], additionalProperties: { type: 'string', maxLength: 1000 }, maxProperties: 50 },
};
type Grants = { models?: string[] | null; limits?: LimitSettings | null; metadata?: Record<string, string> | null };
const createBody = bodyOf<Grants & { callerId: string; secret?: string }>({
  type: 'object', required: ['callerId'], additionalProperties: false,
  properties: { callerId: { type: 'string', minLength: 1, maxLength: 256 }, secret: { type: 'string', minLength: 24, maxLength: 256 }, ...grants },
});
const patchBody = bodyOf<Grants>({ type: 'object', additionalProperties: false, minProperties: 1, properties: grants });
const rotateBody = bodyOf<{ oldKeyExpiresAt?: number | string }>({ type: 'object', additionalProperties: false, properties: { oldKeyExpiresAt: { type: ['integer', 'string'] } } });

/** A new secret: 32 random bytes. */
const newSecret = (): string => `sk-mgw-${randomBytes(32).toString('base64url')}`;

/** The key routes; with a catalog, an allow-list naming a model it does not serve is refused (400). */
export function keyRoutes(store: AdminStore, models?: ModelsOption): Router {
  const router = express.Router();
  const catalog = models === undefined ? undefined : catalogReader(models);
  const checkModels = <T extends Grants>(grants: T): T => {
    const unknown = catalog && unknownModel(grants.models, catalog().byId);
    if (unknown) throw new GatewayError('invalid_request_error', unknown);
    return grants;
  };
  const find = async (keyId: string): Promise<KeyRecord> => (await store.getKey(keyId)) ?? Promise.reject(notFoundError(`keyId: ${keyId}`));
  const create = async (grantsOf: Grants & { callerId: string }, secret: string): Promise<KeyRecord> => {
    const keyHash = hashKey(secret);
    if (await store.getKey(keyIdOf(keyHash))) throw new GatewayError('invalid_request_error', 'secret: is already a key; choose another.');
    return store.createKey({ keyHash, prefix: prefixOf(secret), callerId: grantsOf.callerId, models: grantsOf.models ?? null, limits: grantsOf.limits ?? null, metadata: grantsOf.metadata ?? null });
  };
  const change = async (res: express.Response, keyId: string, action: string, patch: KeyPatch): Promise<KeyRecord> => {
    const out = await store.updateKey(keyId, patch);
    if (!out) throw notFoundError(`keyId: ${keyId}`);
    await audit(store, res, action, `key:${keyId}`, out.before, out.after);
    return out.after;
  };

  router.post('/keys', route(async (req, res) => {
    const body = checkModels(createBody(req.body));
    const secret = body.secret ?? newSecret();
    const record = await create(body, secret);
    await audit(store, res, 'key.create', `key:${record.keyId}`, null, record);
    return { key: secret, record };
  }, 201));
  router.get('/keys', route((req) => {
    const q = new Query(req.query);
    return store.listKeys({ callerId: q.str('callerId'), limit: q.int('limit'), after: q.str('after') });
  }));
  router.get('/keys/:keyId', route((req) => find(String(req.params.keyId))));
  router.patch('/keys/:keyId', route((req, res) => change(res, String(req.params.keyId), 'key.update', checkModels(patchBody(req.body)))));
  for (const [verb, status] of [['disable', 'disabled'], ['enable', 'active'], ['revoke', 'revoked']] as const) {
    router.post(`/keys/:keyId/${verb}`, route((req, res) => change(res, String(req.params.keyId), `key.${verb}`, { status })));
  }
  // A new secret for the same caller and grants; the old one works until `oldKeyExpiresAt` (default: now).
  router.post('/keys/:keyId/rotate', route(async (req, res) => {
    const body = rotateBody(req.body ?? {});
    const oldKeyExpiresAt = body.oldKeyExpiresAt === undefined ? Date.now() : timeOf('oldKeyExpiresAt', body.oldKeyExpiresAt);
    const old = await find(String(req.params.keyId));
    if (old.status !== 'active') throw new GatewayError('invalid_request_error', `keyId: ${old.keyId} is ${old.status}; only an active key is rotated.`);
    const secret = newSecret();
    const record = await create({ callerId: old.callerId, models: old.models, limits: old.limits, metadata: old.metadata }, secret);
    const previous = await change(res, old.keyId, 'key.rotate', { expiresAt: oldKeyExpiresAt });
    await audit(store, res, 'key.create', `key:${record.keyId}`, null, record);
    return { key: secret, record, previous };
  }, 201));
  return router;
}
