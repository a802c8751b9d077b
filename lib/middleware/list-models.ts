/** listModels(): `GET /v1/models` and `GET /v1/models/:id`, in a body both official SDKs read. */
import { sendJson } from '../wire/send-json';
import type { RequestHandler } from 'express';
import { allowed, catalogReader, modelNotFound, profileOf, type Catalog, type ModelEntry, type ModelsOption } from '../catalog/catalog';
import { MAX_MODEL_NAME } from '../catalog/names';
import { gatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';

/** Options of listModels(). */
export interface ListModelsOptions {
  /** The catalog. Required. */
  models: ModelsOption;
}

/** One model record: the OpenAI and Anthropic item shapes side by side, plus `capability`. */
export interface ModelRecord {
  id: string;
  capability: ModelEntry['capability'];
  object: 'model';
  created: number;
  owned_by: string;
  type: 'model';
  display_name: string;
  created_at: string;
  /** Present (true) on models that take the whole Messages contract (tools, thinking, caching). */
  agent_ready?: true;
}

const DEFAULT_CREATED_AT = '2025-01-01T00:00:00Z';

function record(model: Readonly<ModelEntry>): ModelRecord {
  const createdAt = model.createdAt ?? DEFAULT_CREATED_AT;
  const out: ModelRecord = {
    id: model.id, capability: model.capability, object: 'model', created: Math.floor(Date.parse(createdAt) / 1000),
    owned_by: 'gateway', type: 'model', display_name: model.displayName ?? model.id, created_at: createdAt,
  };
  if (profileOf(model).contract === 'agent') out.agent_ready = true;
  return out;
}

/**
 * Lists the models the caller may use (`?capability=llm|rerank` filters) in one page with
 * `has_more: false`, so neither SDK asks for another: catalog ids only (aliases and patterns are
 * names a request may use, not models). With `:id`, the record of the model that name resolves to, or 404.
 */
export function listModels(options: ListModelsOptions): RequestHandler {
  const catalogNow = catalogReader(options?.models);
  // The records of each catalog, made once (a replaced catalog gets its own).
  const made = new WeakMap<Catalog, Map<string, ModelRecord>>();
  const recordsOf = (catalog: Catalog): Map<string, ModelRecord> => {
    let records = made.get(catalog);
    if (!records) made.set(catalog, (records = new Map(catalog.models.map((m) => [m.id, Object.freeze(record(m))]))));
    return records;
  };
  return function listModelsMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const records = recordsOf(catalogNow());
    const id = (req.params as Record<string, string | undefined>).id;
    if (id !== undefined) {
      // Resolved as a request's model is: an alias or a name a pattern matches answers its model's record.
      const one = records.get(catalogNow().resolve(id)?.id ?? '');
      if (!one || !allowed(ctx.caller, one.id)) next(modelNotFound(id.slice(0, MAX_MODEL_NAME)));
      else sendJson(res, one);
      return;
    }
    const capability = req.query.capability;
    if (capability !== undefined && capability !== 'llm' && capability !== 'rerank') {
      next(new GatewayError('invalid_request_error', 'capability: must be "llm" or "rerank"'));
      return;
    }
    const data = [...records.values()].filter((m) => allowed(ctx.caller, m.id) && (!capability || m.capability === capability));
    sendJson(res, { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
  };
}
