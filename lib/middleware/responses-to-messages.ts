/** responsesToMessages(): the Responses route's translation stage, a validated Responses body handed on as the Messages body every adapter takes. */
import type { Request, RequestHandler, Response } from 'express';
import { allowed, catalogReader, formatOf, profileOf, type ModelEntry, type ModelsOption } from '../catalog/catalog';
import { gatewayContext, type GatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import { messagesFromResponses, reasoningSeal, type ReasoningSeal, type ResponsesRequest } from '../formats/openai-responses';
import { nativeResponsesOf } from '../upstreams/native-responses';

/** Options of responsesToMessages(). */
export interface ResponsesToMessagesOptions {
  /** The catalog: the model resolveModel() resolved comes first; without it the body's model is looked up here. Required. */
  models: ModelsOption;
  /** A token count (`/v1/responses/input_tokens`): only what a count reads is handed on, and no output bound. Default: false. */
  count?: boolean;
  /**
   * The secret (at least 32 characters, the same on every instance) the reasoning content handed to
   * clients is authenticated with, and replayed content checked by. Default: a random one for this
   * stage (content it issued does not authenticate on another instance, or after a restart).
   */
  reasoningSecret?: string;
}

/** The llm model a Responses body is for, one the caller may use (resolveModel()'s first); undefined hands the body on untranslated. */
export function responsesModel(models: ModelsOption): (ctx: GatewayContext, body: ResponsesRequest) => Readonly<ModelEntry> | undefined {
  const catalogNow = catalogReader(models);
  return (ctx, body) => {
    const model = ctx.model ?? (typeof body.model === 'string' ? catalogNow().resolve(body.model) : undefined);
    return !model || model.capability !== 'llm' || !allowed(ctx.caller, model.id) ? undefined : model;
  };
}

/** A `max_output_tokens` over the model's `maxOutputTokens`: refused, or (where the model says `clampMaxTokens`) the note of its clamp. */
export function responsesBound(request: ResponsesRequest, model: Readonly<ModelEntry>): { refused?: GatewayError; clamped?: string } {
  const bound = model.maxOutputTokens;
  const asked = request.max_output_tokens;
  if (bound === undefined || typeof asked !== 'number' || asked <= bound) return {};
  if (!profileOf(model).clampMaxTokens) {
    return { refused: new GatewayError('invalid_request_error', `max_output_tokens: ${asked} > ${bound}, which is the maximum allowed number of output tokens for ${model.id}`) };
  }
  return { clamped: `max_output_tokens ${asked} clamped to ${bound} (the model's maxOutputTokens)` };
}

/**
 * Translates the Responses body in `req.body` (lib/formats/openai-responses) into a Messages body:
 * its output bound clamped where the model says so, the body as validated kept as the request's
 * `clientBody`, `stream`, the caller's user tag and what the translation dropped (the log's
 * `detail`) recorded, the answer's plan left in `res.locals.responses`. What the result is:
 * undefined, or the error for `next` (what the content model cannot express, named).
 */
export function translateResponses(req: Request, res: Response, ctx: GatewayContext, model: Readonly<ModelEntry>, count: boolean, seal: ReasoningSeal): unknown {
  let request = req.body as ResponsesRequest;
  const { refused, clamped } = responsesBound(request, model);
  if (refused) return refused;
  const bound = model.maxOutputTokens;
  if (clamped !== undefined) request = { ...request, max_output_tokens: bound };
  try {
    const profile = profileOf(model);
    // An agent-ready model on a native Responses upstream is passed through (proxyResponses()): that upstream judges its body.
    const passThrough = profile.contract === 'agent' && model.upstream.kind === 'messages' && nativeResponsesOf(model.upstream) !== undefined;
    const target = { format: formatOf(model), defaultMaxTokens: profile.defaultMaxTokens, passThrough, seal, ...(bound === undefined ? {} : { maxOutputTokens: bound }) };
    const { request: messages, plan, dropped } = messagesFromResponses(request, target, count);
    if (!count) ctx.stream = request.stream === true;
    const user = request.user ?? request.safety_identifier;
    if (typeof user === 'string') ctx.user = user;
    const notes = [...(clamped ? [clamped] : []), ...(dropped.length > 0 ? [`responses: dropped ${dropped.join(', ')}`] : [])];
    if (notes.length > 0) ctx.detail = notes.join('; ');
    res.locals.responses = plan;
    ctx.clientBody = request as unknown as Readonly<Record<string, unknown>>;
    req.body = messages;
  } catch (err) {
    return err; // what the content model cannot express, named
  }
  return undefined;
}

/**
 * Needs `validateResponses({ models, translate: false })` before it (a body validateResponses()
 * already translated, with its default `translate`, is handed on as it is). A body naming a model
 * that is unknown or not the caller's (without resolveModel() before it) is handed on untranslated:
 * a resolveModel() after it answers it. The Responses body stays readable as `gatewayContext(res).clientBody`.
 */
export function responsesToMessages(options: ResponsesToMessagesOptions): RequestHandler {
  const modelOf = responsesModel(options?.models);
  const count = options.count === true;
  const seal = reasoningSeal(options.reasoningSecret, 'responsesToMessages: option "reasoningSecret"');
  return function responsesToMessagesMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    if (ctx.clientBody !== undefined) return next(); // translated already
    const model = modelOf(ctx, req.body as ResponsesRequest);
    next(model ? translateResponses(req, res, ctx, model, count, seal) : undefined);
  };
}
