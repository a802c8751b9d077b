/** resolveModel(capability): finds the requested model in the catalog and checks the caller may use it. */
import type { RequestHandler } from 'express';
import { allowed, catalogReader, type ModelsOption } from '../catalog';
import { gatewayContext } from '../context';
import { GatewayError } from '../errors';
import type { Capability } from '../types';

/** Output bound of a chat request that names none (capped by the model's `maxOutputTokens`). */
export const DEFAULT_MAX_TOKENS = 4096;

/** Options of resolveModel(). */
export interface ResolveModelOptions {
  /** The catalog. Required. */
  models: ModelsOption;
  /** Capability the endpoint needs. Required. */
  capability: Capability;
  /**
   * Give an llm body that names no `max_tokens` (a chat request) the model's `maxOutputTokens`, at
   * most DEFAULT_MAX_TOKENS. Default: true; count_tokens, which produces no output, sets false.
   */
  defaultMaxTokens?: boolean;
}

/**
 * Unknown model, or one the caller may not use: 404 `not_found_error` (a caller never learns
 * of models it may not use). Wrong capability: 400 naming the capability needed. A
 * `max_tokens` over the model's `maxOutputTokens`: 400.
 */
export function resolveModel(options: ResolveModelOptions): RequestHandler {
  const catalogNow = catalogReader(options?.models);
  const { capability, defaultMaxTokens = true } = options;
  if (capability !== 'llm' && capability !== 'rerank') throw new TypeError('resolveModel: option "capability" must be "llm" or "rerank".');
  return function resolveModelMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const body = req.body as { model?: unknown; max_tokens?: unknown };
    const id = typeof body?.model === 'string' ? body.model : '';
    const model = catalogNow().byId.get(id);
    if (!model || !allowed(ctx.caller, id)) {
      next(new GatewayError('not_found_error', `model: ${id.slice(0, 256)}`));
      return;
    }
    if (model.capability !== capability) {
      next(new GatewayError('invalid_request_error', `model: "${id}" is a ${model.capability} model; this endpoint needs a model with capability "${capability}".`));
      return;
    }
    if (model.maxOutputTokens !== undefined && typeof body.max_tokens === 'number' && body.max_tokens > model.maxOutputTokens) {
      next(new GatewayError('invalid_request_error', `max_tokens: ${body.max_tokens} > ${model.maxOutputTokens}, which is the maximum allowed number of output tokens for ${id}`));
      return;
    }
    // A chat request may leave its output bound out: the model's own, or DEFAULT_MAX_TOKENS.
    if (capability === 'llm' && defaultMaxTokens && body.max_tokens === undefined) body.max_tokens = Math.min(DEFAULT_MAX_TOKENS, model.maxOutputTokens ?? DEFAULT_MAX_TOKENS);
    ctx.model = model;
    next();
  };
}
