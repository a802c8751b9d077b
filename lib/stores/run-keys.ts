/** Run keys: short-lived child keys with their own cap, lifetime and models, minted by a key with the grant (POST /v1/keys/run) or by an operator. */
import { GatewayError } from '../foundation/errors';
import type { RunKeyBody } from '../schemas/budgets';
import { hashKey } from './hash';
import { newKeySecret, prefixOf, type KeyAdminStore, type KeyRecord } from './keys';

/** A minted run key: the secret (shown once) and its record. */
export interface MintedKey {
  key: string;
  record: KeyRecord;
}

/**
 * Mints a run key of `parent`: same account and limits; its own cap (`run:<keyId>`, for its whole
 * life) below its parent's budgets, which stay on its path; models within its parent's; it ends
 * at `ttlSeconds` from `now`, or with its parent. `byGrant`: the caller minted it with its own
 * key, so the parent's grant bounds the cap and the lifetime (an operator's mint is bounded by the
 * schema only). Refusals are 400 (a bad request) or 403 (no grant, or beyond it).
 */
export async function mintRunKey(store: KeyAdminStore, parent: KeyRecord, body: RunKeyBody, now: number, byGrant: boolean): Promise<MintedKey> {
  if (parent.parentKeyId !== null) throw new GatewayError('permission_error', 'A run key cannot mint run keys.');
  if (parent.status !== 'active' || (parent.expiresAt !== null && parent.expiresAt <= now)) throw new GatewayError('invalid_request_error', `keyId: ${parent.keyId} is ${parent.status === 'active' ? 'expired' : parent.status}; only an active key mints run keys.`);
  if (byGrant) {
    const grant = parent.runKeys;
    if (!grant) throw new GatewayError('permission_error', 'This key may not mint run keys (it has no run-key grant).');
    if (body.amount > grant.maxAmount) throw new GatewayError('permission_error', `amount: at most ${grant.maxAmount} for a run key of this key`);
    if (body.ttlSeconds > grant.maxTtlSeconds) throw new GatewayError('permission_error', `ttlSeconds: at most ${grant.maxTtlSeconds} for a run key of this key`);
  }
  const models = body.models ?? parent.models;
  const outside = models && parent.models ? models.find((m) => !parent.models?.includes(m)) : undefined;
  if (outside !== undefined) throw new GatewayError('invalid_request_error', `models: "${outside}" is not among the parent key's models`);
  const secret = newKeySecret();
  const expiresAt = Math.min(now + body.ttlSeconds * 1000, parent.expiresAt ?? Infinity);
  const record = await store.createKey({
    keyHash: hashKey(secret), prefix: prefixOf(secret), callerId: parent.callerId, models: models ?? null, limits: parent.limits, metadata: body.metadata ?? null,
    expiresAt, parentKeyId: parent.keyId, runKeys: null,
    budget: { amount: body.amount, period: 'total', timeZone: 'UTC', requests: body.requests ?? null, tokens: body.tokens ?? null, perSession: null, perSubagent: null },
  });
  return { key: secret, record };
}
