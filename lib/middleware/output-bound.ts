/**
 * The output bound of a Messages body, shared by validate() and the chat translation stage: the
 * model whose profile sets it, and the bound itself (default, refusal or clamp).
 */
import { allowed, catalogReader, profileOf, V1_PROFILE, type ModelEntry, type ModelsOption } from '../catalog/catalog';
import type { GatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';

/** Reads the model of a body: resolveModel()'s, else (given `models`) the body's own, one the caller may use. */
export type BodyModel = (ctx: GatewayContext, body: Record<string, unknown>) => Readonly<ModelEntry> | undefined;

/** The model a stage bounds a body by: resolveModel()'s first; without it the catalog's llm entry of the body's model, when `models` is given. */
export function bodyModel(models: ModelsOption | undefined): BodyModel {
  const catalogNow = models === undefined ? undefined : catalogReader(models);
  return (ctx, body) => {
    if (ctx.model || !catalogNow || typeof body.model !== 'string') return ctx.model;
    const found = catalogNow().resolve(body.model);
    return found?.capability === 'llm' && allowed(ctx.caller, found.id) ? found : undefined;
  };
}

/**
 * The output bound of an llm body, once it is valid: a chat body without one gets the model's
 * default (its profile's `defaultMaxTokens`); one over the model's `maxOutputTokens` is refused (the vendor's
 * wording) or, where the model says `clampMaxTokens`, lowered to it and noted in the log's detail,
 * a thinking budget at or over it lowered to one less (what Claude Code itself sends when told
 * the lower bound by CLAUDE_CODE_MAX_OUTPUT_TOKENS).
 */
export function boundOutput(body: { max_tokens?: unknown; thinking?: unknown }, model: Readonly<ModelEntry> | undefined, fillIn: boolean, ctx: GatewayContext): GatewayError | undefined {
  const cap = model?.maxOutputTokens;
  const asked = body.max_tokens;
  if (asked === undefined) {
    if (fillIn) body.max_tokens = (model ? profileOf(model) : V1_PROFILE).defaultMaxTokens;
    return undefined;
  }
  if (cap === undefined || typeof asked !== 'number' || asked <= cap) return undefined;
  if (!profileOf(model as Readonly<ModelEntry>).clampMaxTokens) {
    return new GatewayError('invalid_request_error', `max_tokens: ${asked} > ${cap}, which is the maximum allowed number of output tokens for ${(model as Readonly<ModelEntry>).id}`);
  }
  body.max_tokens = cap;
  ctx.detail = `max_tokens ${asked} clamped to ${cap} (the model's maxOutputTokens)`;
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | null | undefined;
  if (thinking?.type === 'enabled' && typeof thinking.budget_tokens === 'number' && thinking.budget_tokens >= cap) {
    body.thinking = { ...thinking, budget_tokens: cap - 1 };
    ctx.detail += `; thinking.budget_tokens ${thinking.budget_tokens} to ${cap - 1}`;
  }
  return undefined;
}
