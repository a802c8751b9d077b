/** MemoryStore's keys: records by digest, found for authentication, listed and updated by operators. */
import type { Caller } from '../../types';
import { callerOf, checkPatch, keyIdOf, type KeyPatch, type KeyPath, type KeyRecord, type NewKey } from '../keys';
import { pageOf } from './reads';
import type { Page } from '../reads';

export class MemoryKeys {
  private readonly byHash = new Map<string, KeyRecord>();
  private readonly byId = new Map<string, KeyRecord>();
  private readonly order: KeyRecord[] = [];

  /** Creates a key, or updates the caller and grants of an existing one (provisioning re-run at start-up). */
  create(key: NewKey): KeyRecord {
    const known = this.byHash.get(key.keyHash);
    const record: KeyRecord = {
      keyId: keyIdOf(key.keyHash), prefix: key.prefix, callerId: key.callerId, models: key.models ? [...key.models] : null,
      limits: key.limits ?? null, metadata: key.metadata ?? known?.metadata ?? null, status: known?.status ?? 'active',
      createdAt: known?.createdAt ?? Date.now(), lastUsedAt: known?.lastUsedAt ?? null, expiresAt: key.expiresAt ?? known?.expiresAt ?? null,
      budget: key.budget === undefined ? known?.budget ?? null : key.budget, parentKeyId: key.parentKeyId ?? known?.parentKeyId ?? null,
      runKeys: key.runKeys === undefined ? known?.runKeys ?? null : key.runKeys,
    };
    if (known) Object.assign(known, record);
    else {
      this.byHash.set(key.keyHash, record);
      this.byId.set(record.keyId, record);
      this.order.push(record);
    }
    return { ...(known ?? record) };
  }

  /** The caller of a presented key's digest, with the time it was used; `pathOf` gives its account's budgets. */
  find(keyHash: string, pathOf: (callerId: string) => KeyPath): Caller | undefined {
    const record = this.byHash.get(keyHash);
    if (!record) return undefined;
    const now = Date.now();
    record.lastUsedAt = now;
    const parent = record.parentKeyId === null ? undefined : this.byId.get(record.parentKeyId);
    return callerOf(record, now, { ...pathOf(record.callerId), parent });
  }

  get(keyId: string): KeyRecord | undefined {
    const record = this.byId.get(keyId);
    return record && { ...record };
  }

  list(query: { callerId?: string; limit?: number; after?: string }): Page<KeyRecord> {
    // Keys made in the same millisecond keep the order they were made in (as PostgreSQL's microseconds do).
    const page = pageOf(this.order.entries(), query, {
      keep: ([, r]) => query.callerId === undefined || r.callerId === query.callerId, key: ([i, r]) => [r.createdAt, i], shape: ['number', 'number'], order: 'newest',
    });
    return { items: page.items.map(([, r]) => ({ ...r })), next: page.next };
  }

  update(keyId: string, patch: KeyPatch): { before: KeyRecord; after: KeyRecord } | undefined {
    const record = this.byId.get(keyId);
    if (!record) return undefined;
    const before = { ...record };
    checkPatch(before, patch);
    Object.assign(record, patch);
    return { before, after: { ...record } };
  }
}
