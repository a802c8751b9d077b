/** chatToMessages(): the chat route's translation stage, a validated chat body handed on as the Messages body every adapter takes. */
import type { Request, RequestHandler } from 'express';
import type { ModelEntry, ModelsOption } from '../catalog/catalog';
import { gatewayContext, type GatewayContext } from '../context';
import { messagesFromChat, type ChatRequest } from '../formats/openai-chat';
import { bodyModel, boundOutput } from './output-bound';

/** Options of chatToMessages(). */
export interface ChatToMessagesOptions {
  /** The catalog, read only when resolveModel() did not run before (as validate()'s `models`). Default: none. */
  models?: ModelsOption;
}

/**
 * Translates the chat body in `req.body` (lib/formats/openai-chat) into a Messages body, keeping
 * the chat body as the request's `clientBody`, then bounds its output as validate() bounds a
 * Messages body (a missing bound gets the model's default). What the result is: undefined, or the
 * error for `next` (what Messages cannot express, named; a bound over the model's maximum).
 */
export function translateChat(req: Request, ctx: GatewayContext, model: Readonly<ModelEntry> | undefined): unknown {
  const body = req.body as Record<string, unknown>;
  try {
    req.body = messagesFromChat(body as unknown as ChatRequest);
  } catch (err) {
    return err; // what Messages cannot express (a data URL that is not base64, arguments that are not JSON), named
  }
  ctx.clientBody = body;
  return boundOutput(req.body as { max_tokens?: unknown }, model, true, ctx);
}

/**
 * Needs `validate('chat', { translate: false })` before it (a body validate() already translated,
 * with its default `translate`, is handed on as it is). The rest of the pipeline and every
 * adapter then see Messages; the chat body stays readable as `gatewayContext(res).clientBody`.
 */
export function chatToMessages(options: ChatToMessagesOptions = {}): RequestHandler {
  const modelOf = bodyModel(options.models);
  return function chatToMessagesMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    if (ctx.clientBody !== undefined) return next(); // translated already
    const failed = translateChat(req, ctx, modelOf(ctx, req.body as Record<string, unknown>));
    next(failed);
  };
}
