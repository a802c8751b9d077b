/** resolveModel(capability): finds the requested model in the catalog and checks the caller may use it. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestHandler } from 'express';
import { allowed, catalogReader, modelNotFound, type ModelsOption } from '../catalog/catalog';
import { MAX_MODEL_NAME } from '../catalog/names';
import { gatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import type { Capability } from '../types';

/** Options of resolveModel(). */
export interface ResolveModelOptions {
  /** The catalog. Required. */
  models: ModelsOption;
  /** Capability the endpoint needs. Required. */
  capability: Capability;
  /** @deprecated Has no effect: validate() now gives a chat body its default output bound (and never a count_tokens body one). */
  defaultMaxTokens?: boolean;
}

/**
 * Runs before validate(), which checks the body against the resolved model's profile. `model`
 * missing or not a string: 400 naming it. The name resolves in the catalog (its id, an alias, a
 * pattern: `Catalog.resolve`); a name that is not the id is kept as `ctx.requestedModel`, which
 * the answer echoes (the log and the bill name the catalog id). Unknown model, or one the
 * caller's allow-list (catalog ids) does not hold: 404 `not_found_error` saying so and pointing
 * at `GET /v1/models` (a caller never learns of models it may not use), the name asked kept for
 * the log. Wrong capability: 400 naming the capability needed. Reads nothing else of the body.
 */
export function resolveModel(options: ResolveModelOptions): RequestHandler {
  const catalogNow = catalogReader(options?.models);
  const { capability } = options;
  if (capability !== 'llm' && capability !== 'rerank') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'resolveModel: option "capability" must be "llm" or "rerank".');
  return function resolveModelMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const asked = (req.body as { model?: unknown } | null | undefined)?.model;
    if (typeof asked !== 'string') {
      next(new GatewayError('invalid_request_error', asked === undefined ? 'model: Field required' : 'model: must be string'));
      return;
    }
    const model = catalogNow().resolve(asked);
    if (!model || !allowed(ctx.caller, model.id)) {
      ctx.requestedModel = asked.slice(0, MAX_MODEL_NAME);
      next(modelNotFound(ctx.requestedModel));
      return;
    }
    if (model.id !== asked || model.capability !== capability) ctx.requestedModel = asked; // the answer's name; a refusal's, for the log
    if (model.capability !== capability) {
      next(new GatewayError('invalid_request_error', `model: "${asked}" is a ${model.capability} model; this endpoint needs a model with capability "${capability}".`));
      return;
    }
    ctx.model = model;
    next();
  };
}
