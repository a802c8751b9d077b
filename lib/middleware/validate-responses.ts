/** validateResponses(): checks a Responses body (its schema compiled once) and hands on the Messages body every adapter takes. */
import type { RequestHandler } from 'express';
import { allowed, catalogReader, formatOf, profileOf, type ModelEntry, type ModelsOption } from '../catalog';
import { gatewayContext } from '../context';
import { GatewayError } from '../errors';
import { messagesFromResponses, type ResponsesPlan, type ResponsesRequest } from '../formats/openai-responses';
import { compileSchema, describeError } from '../schemas/ajv';
import { MAX_NESTING, tooDeep } from '../schemas/agent';
import { findRefusedResponses, findUnsupportedResponsesV1, responsesSchema } from '../schemas/responses';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** What proxyResponses() writes the answer by: set by validateResponses(). */
      responses?: ResponsesPlan;
    }
  }
}

/** Options of validateResponses(). */
export interface ValidateResponsesOptions {
  /**
   * The catalog: an agent-ready model takes tools, reasoning, images and files; a V1 model plain
   * text. The model resolveModel() resolved comes first; without it the body's model is looked up here. Required.
   */
  models: ModelsOption;
  /** A token count (`/v1/responses/input_tokens`): only what a count reads is handed on, and no output bound. Default: false. */
  count?: boolean;
}

/**
 * Refuses an invalid body with 400 `invalid_request_error` naming the field (OpenAI's `param`),
 * before anything reaches the upstream: the schema's shape and bounds; `previous_response_id`
 * (responsesState() before it resolves and removes it), `conversation` and `background`; for a V1 model, anything but text. Then
 * translates the body (lib/formats/openai-responses) into a Messages body for the rest of the
 * pipeline, records `stream`, the caller's user tag and what the translation dropped (the log's
 * `detail`), and leaves the answer's plan in `res.locals.responses`. A body naming a model that is
 * unknown or not the caller's (without resolveModel() before it) is handed on untranslated: a
 * resolveModel() after it answers it. Without `max_output_tokens` the bound is the model's default
 * (its `maxOutputTokens`, else DEFAULT_MAX_TOKENS); one over `maxOutputTokens` is refused, or
 * lowered to it where the model says `clampMaxTokens` (noted in the log's detail).
 */
export function validateResponses(options: ValidateResponsesOptions): RequestHandler {
  const catalogNow = catalogReader(options?.models);
  const lookUp = (id: string): Readonly<ModelEntry> | undefined => catalogNow().byId.get(id);
  const count = options.count === true;
  const check = compileSchema<ResponsesRequest>(responsesSchema);
  /** The problem of a body, in words, or undefined. */
  const problem = (body: Record<string, unknown>): string | undefined => {
    const refused = findRefusedResponses(body);
    if (refused) return `${refused.path}: ${refused.message}`;
    if (!check(body)) return check.errors?.[0] ? describeError(check.errors[0]) : 'body: is invalid';
    const deep = tooDeep(body);
    return deep === undefined ? undefined : `${deep}: nested deeper than ${MAX_NESTING} levels`;
  };
  return function validateResponsesMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const body = req.body as Record<string, unknown>;
    const invalid = problem(body);
    if (invalid !== undefined) return next(new GatewayError('invalid_request_error', invalid));
    let request = body as ResponsesRequest;
    const model = ctx.model ?? lookUp(request.model);
    if (!model || model.capability !== 'llm' || !allowed(ctx.caller, model.id)) return next();
    const profile = profileOf(model);
    const v1 = profile.contract === 'agent' ? undefined : findUnsupportedResponsesV1(body);
    if (v1) return next(new GatewayError('invalid_request_error', `${v1.path}: ${v1.message}`));
    const bound = model.maxOutputTokens;
    let clamped: string | undefined;
    if (bound !== undefined && typeof request.max_output_tokens === 'number' && request.max_output_tokens > bound) {
      if (!profile.clampMaxTokens) {
        return next(new GatewayError('invalid_request_error', `max_output_tokens: ${request.max_output_tokens} > ${bound}, which is the maximum allowed number of output tokens for ${model.id}`));
      }
      clamped = `max_output_tokens ${request.max_output_tokens} clamped to ${bound} (the model's maxOutputTokens)`;
      request = { ...request, max_output_tokens: bound };
    }
    try {
      const target = { format: formatOf(model), defaultMaxTokens: profile.defaultMaxTokens, ...(bound === undefined ? {} : { maxOutputTokens: bound }) };
      const { request: messages, plan, dropped } = messagesFromResponses(request, target, count);
      if (!count) ctx.stream = request.stream === true;
      const user = request.user ?? request.safety_identifier;
      if (typeof user === 'string') ctx.user = user;
      const notes = [...(clamped ? [clamped] : []), ...(dropped.length > 0 ? [`responses: dropped ${dropped.join(', ')}`] : [])];
      if (notes.length > 0) ctx.detail = notes.join('; ');
      res.locals.responses = { ...plan, request };
      req.body = messages;
    } catch (err) {
      return next(err); // what the content model cannot express, named
    }
    next();
  };
}
