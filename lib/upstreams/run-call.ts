/** Runs one upstream call for a proxy middleware: abort on client close, error routing, `ctx.work`. */
import type { NextFunction, Response } from 'express';
import type { ModelEntry } from '../catalog';
import { onResponseClose, type CloseHook, type GatewayContext } from '../context';
import { toGatewayError } from '../errors';
import { CallContext } from './call-context';
import type { MessagesRequest } from '../types';
import type { MessagesAdapter, RerankAdapter, UpstreamCallContext } from './types';

/**
 * Whoever cut the response short (client gone, error, shutdown), an unfinished upstream call
 * stops now. A stream that reached the client whole (message_stop) lets its call drain.
 */
const abortUnfinished: CloseHook = (ctx) => {
  const call = ctx.upstreamCall;
  if (call && !call.ended && !ctx.answered) call.abort();
};

/**
 * Runs one upstream call for a request: aborts it when the client goes away, routes a failure
 * before the response started to `next` (the error handler answers it), records a later one,
 * and exposes the call as `ctx.work` while it runs, so billing settles only after it ended.
 */
export function startCall(
  ctx: GatewayContext,
  res: Response,
  next: NextFunction,
  upstreamName: string,
  run: (call: UpstreamCallContext) => Promise<void>,
): void {
  if (ctx.closed || res.destroyed) return; // the client left during admission: no upstream call
  const call = new CallContext(ctx.requestId, ctx.usage, ctx);
  ctx.upstreamCall = call;
  onResponseClose(ctx, abortUnfinished);
  ctx.upstream = upstreamName;
  // ctx.work is cleared when the call ends, so billing can settle at once instead of waiting on it.
  ctx.work = run(call).then(
    () => {
      call.ended = true;
      ctx.work = undefined;
    },
    (err: unknown) => {
      call.ended = true;
      ctx.work = undefined;
      if (!res.headersSent && !res.destroyed) {
        next(err);
        return;
      }
      const error = toGatewayError(err);
      ctx.errorCode ??= call.aborted ? undefined : error.code;
      ctx.detail = error.detail ?? error.message;
      if (!res.writableEnded) res.end();
    },
  );
}

/**
 * The resolved model of a request and its adapter, when the adapter is of `kind`; otherwise a
 * composition error of the host (resolveModel() missing or for the wrong capability) goes to `next`.
 */
export function modelFor<K extends 'messages' | 'rerank'>(
  ctx: GatewayContext,
  kind: K,
  next: NextFunction,
): { model: Readonly<ModelEntry>; adapter: K extends 'messages' ? MessagesAdapter : RerankAdapter } | undefined {
  const model = ctx.model;
  if (model && model.upstream.kind === kind) return { model, adapter: model.upstream as K extends 'messages' ? MessagesAdapter : RerankAdapter };
  const capability = kind === 'messages' ? 'llm' : 'rerank';
  next(new Error(`model-gateway: the ${kind} proxy needs resolveModel({ capability: "${capability}" }) before it.`));
  return undefined;
}

/** The body sent to a Messages adapter: the upstream model name, `temperature` only where the model takes it. */
export function upstreamMessagesRequest(body: MessagesRequest, model: Readonly<ModelEntry>): MessagesRequest {
  const { stream: _stream, ...rest } = body;
  const request: MessagesRequest = { ...rest, model: model.upstreamModel ?? model.id };
  if (model.temperature === false) delete request.temperature;
  return request;
}

/** A Messages call's model, adapter and upstream request (its output bound recorded), or undefined once `next` has the error. */
export function messagesCallFor(ctx: GatewayContext, body: MessagesRequest, next: NextFunction): { model: Readonly<ModelEntry>; adapter: MessagesAdapter; request: MessagesRequest } | undefined {
  const resolved = modelFor(ctx, 'messages', next);
  if (!resolved) return undefined;
  const request = upstreamMessagesRequest(body, resolved.model);
  ctx.usage.boundOutput(request.max_tokens);
  return { ...resolved, request };
}
