/** mintRunKeys(): `POST /v1/keys/run`, a key with the run-key grant mints a short-lived child key for a CI job or an agent run. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestHandler } from 'express';
import { catalogReader, type ModelsOption } from '../catalog/catalog';
import { gatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import { compileSchema, describeError } from '../schemas/ajv';
import { runKeyBodySchema, type RunKeyBody } from '../schemas/budgets';
import type { AuditStore } from '../stores/audit';
import { unknownModel, type KeyAdminStore } from '../stores/keys';
import { mintRunKey } from '../stores/run-keys';
import { sendJson } from '../wire/send-json';

/** Options of mintRunKeys(). */
export interface MintRunKeysOptions {
  /** Where keys are made (both built-in stores); an AuditStore also records each mint. Required. */
  store: KeyAdminStore & Partial<Pick<AuditStore, 'appendAudit'>>;
  /** The catalog a run key's models must be in. Required. */
  models: ModelsOption;
  /** The clock a run key's lifetime starts on, epoch ms. Default: Date.now. */
  clock?: () => number;
}

const checkBody = compileSchema<RunKeyBody>(runKeyBodySchema);

/**
 * Needs authenticate() before it. The caller's key must hold a run-key grant (`runKeys`: the
 * largest cap and lifetime it may give); the run key shares its account, its limits and its
 * budgets (they stay on the run key's path), has its own cap for its whole life and models within
 * the parent's, and ends at its lifetime or with its parent. Answers 201 `{ key, record }`: the
 * secret is shown this once. No grant, or a cap or lifetime beyond it: 403 `permission_error`.
 */
export function mintRunKeys(options: MintRunKeysOptions): RequestHandler {
  const store = options?.store;
  if (!store || typeof store.createKey !== 'function' || typeof store.getKey !== 'function') {
    throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', 'mintRunKeys: option "store" must implement createKey() and getKey() (MemoryStore and PostgresStore do).');
  }
  const catalogNow = catalogReader(options.models);
  const clock = options.clock ?? Date.now;
  return function mintRunKeysMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    Promise.resolve().then(async () => {
      const keyId = ctx.caller?.keyId;
      if (keyId === undefined) throw new GatewayError('permission_error', 'This key may not mint run keys.');
      if (!checkBody(req.body)) throw new GatewayError('invalid_request_error', checkBody.errors?.[0] ? describeError(checkBody.errors[0]) : 'body: is invalid');
      const body = req.body as RunKeyBody;
      const unknown = unknownModel(body.models, catalogNow().byId);
      if (unknown) throw new GatewayError('invalid_request_error', unknown);
      const parent = await store.getKey(keyId);
      if (!parent) throw new GatewayError('permission_error', 'This key may not mint run keys.');
      const minted = await mintRunKey(store, parent, body, clock(), true);
      await store.appendAudit?.({ actor: `key:${parent.keyId}`, action: 'key.mint_run', target: `key:${minted.record.keyId}`, before: null, after: minted.record });
      sendJson(res, minted, 201);
    }).catch(next);
  };
}
