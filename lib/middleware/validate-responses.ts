/** validateResponses(): checks a Responses body (its schema compiled once); the translation is responsesToMessages()'s stage. */
import type { RequestHandler } from 'express';
import { profileOf, type ModelsOption } from '../catalog/catalog';
import { gatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import { reasoningSeal, type ResponsesPlan, type ResponsesRequest } from '../formats/openai-responses';
import { compileSchema, describeError } from '../schemas/ajv';
import { MAX_NESTING, tooDeep } from '../schemas/agent';
import { findRefusedResponses, findUnsupportedResponsesV1, responsesSchema } from '../schemas/responses';
import { responsesBound, responsesModel, translateResponses } from './responses-to-messages';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** What proxyResponses() writes the answer by: set by responsesToMessages() (or validateResponses() translating). */
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
  /** Translate the body here, as responsesToMessages() does (true), or leave that to a responsesToMessages() after it (false: what the router composes). Default: true. */
  translate?: boolean;
  /** The secret the reasoning content is authenticated with, when this stage translates (see responsesToMessages()). Default: a random one for this stage. */
  reasoningSecret?: string;
}

/**
 * Refuses an invalid body with 400 `invalid_request_error` naming the field (OpenAI's `param`),
 * before anything reaches the upstream: the schema's shape and bounds; `previous_response_id`
 * (responsesState() before it resolves and removes it), `conversation` and `background`; for a V1
 * model, anything but text; a `max_output_tokens` over the model's `maxOutputTokens` unless the
 * model says `clampMaxTokens`. Then translates the body as responsesToMessages() does (which
 * records `stream`, the user tag, the log's detail and the answer's plan), unless `translate: false`
 * leaves that stage to a responsesToMessages() after it. A body naming a model that is unknown or
 * not the caller's (without resolveModel() before it) is handed on unchecked by the model's profile
 * and untranslated: a resolveModel() after it answers it.
 */
export function validateResponses(options: ValidateResponsesOptions): RequestHandler {
  const modelOf = responsesModel(options?.models);
  const count = options.count === true;
  const translate = options.translate !== false;
  const seal = reasoningSeal(options.reasoningSecret, 'validateResponses: option "reasoningSecret"');
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
    const request = body as ResponsesRequest;
    const model = modelOf(ctx, request);
    if (!model) return next();
    const v1 = profileOf(model).contract === 'agent' ? undefined : findUnsupportedResponsesV1(body);
    if (v1) return next(new GatewayError('invalid_request_error', `${v1.path}: ${v1.message}`));
    const { refused } = responsesBound(request, model);
    if (refused) return next(refused);
    next(translate ? translateResponses(req, res, ctx, model, count, seal) : undefined);
  };
}
