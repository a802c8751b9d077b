/** Runs one upstream call for a proxy middleware: abort on client close, error routing, the call tracked by the request. */
import type { NextFunction, Request, Response } from 'express';
import { profileOf, type ModelEntry } from '../catalog/catalog';
import { upstreamNamesOf } from '../catalog/members';
import { answerModel, onResponseClose, track, type CloseHook, type GatewayContext } from '../context';
import { GatewayError, toGatewayError } from '../foundation/errors';
import { withCacheBreakpoints } from '../messages/cache-breakpoints';
import type { MessagesRequest } from '../messages/request';
import { CallContext } from '../upstreams/call-context';
import type { MessagesAdapter, RerankAdapter, UpstreamCallContext } from '../upstreams/types';

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
 * and has the request track the call (track()), so it concludes only after the call ended.
 */
export function startCall(
  ctx: GatewayContext,
  res: Response,
  next: NextFunction,
  upstreamName: string,
  run: (call: UpstreamCallContext) => Promise<void>,
  agent?: AgentCall,
): void {
  if (ctx.closed || res.destroyed) return; // the client left during admission: no upstream call
  const call = new CallContext(ctx.requestId, ctx.usage, ctx, agent?.forwardHeaders);
  ctx.upstreamCall = call;
  onResponseClose(ctx, abortUnfinished);
  ctx.upstream = upstreamName;
  track(ctx, run(call).then(
    () => {
      call.ended = true;
    },
    (err: unknown) => {
      call.ended = true;
      if (err instanceof GatewayError && err.invalidAnswer) ctx.invalidAnswer = true; // not billed, however it is answered
      if (!res.headersSent && !res.destroyed) {
        next(agent ? inUpstreamWords(err, agent) : err);
        return;
      }
      const error = toGatewayError(err);
      ctx.errorCode ??= call.aborted ? undefined : error.code;
      ctx.detail = error.detail ?? error.message;
      if (!res.writableEnded) res.end();
    },
  ));
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

/**
 * The body sent to a Messages adapter: the upstream model name, `temperature` only where the model
 * takes it. An agent-ready model's body keeps every field as the caller sent it (`stream` included,
 * in its place); a V1 body leaves `stream` to the adapter. A model with automatic caching gets the
 * gateway's cache breakpoints when the caller placed none (withCacheBreakpoints).
 */
export function upstreamMessagesRequest(body: MessagesRequest, model: Readonly<ModelEntry>): MessagesRequest {
  const profile = profileOf(model);
  let request: MessagesRequest;
  if (profile.passThrough) request = { ...body, model: model.upstreamModel ?? model.id };
  else {
    // `stream` is left out by destructuring, not `delete`, which would make the object a slow dictionary.
    const { stream: _stream, ...rest } = body;
    request = { ...rest, model: model.upstreamModel ?? model.id };
  }
  if (model.temperature === false) delete request.temperature;
  return withCacheBreakpoints(request, profile);
}

/** What an agent-ready model's call carries: the caller's version and beta headers, and the names its errors are told in. */
export interface AgentCall {
  forwardHeaders: Readonly<Record<string, string>>;
  /** The model's upstream name (a failover member may send its own: see upstreamNames). */
  upstreamModel: string;
  /** Every name the model's upstreams are sent (failover members' own included), longest first: an upstream's words tell them as `publicModel`. */
  upstreamNames: readonly string[];
  publicModel: string;
}

/** The agent part of a call to `model` (undefined for a V1 model); `publicModel` is the name the answer carries. */
export function agentCallOf(req: Request, model: Readonly<ModelEntry>, publicModel = model.id): AgentCall | undefined {
  const profile = profileOf(model);
  if (profile.contract !== 'agent') return undefined;
  const forwardHeaders: Record<string, string> = {};
  for (const name of profile.forwardHeaders) {
    const value = req.headers[name];
    if (typeof value === 'string') forwardHeaders[name] = value;
    else if (Array.isArray(value)) forwardHeaders[name] = value.join(','); // betas sent in several headers are one list
  }
  return { forwardHeaders, upstreamModel: model.upstreamModel ?? model.id, upstreamNames: upstreamNamesOf(model), publicModel };
}

/**
 * An agent-ready model's failure before its answer began: an upstream's own words about the
 * caller's request keep their type and wording (its upstream model name told as the public one);
 * anything else stays the safe text.
 */
function inUpstreamWords(err: unknown, agent: AgentCall): unknown {
  if (!(err instanceof GatewayError) || err.upstreamMessage === undefined) return err;
  // One pass, longest name first: a name inside the public one is not replaced again.
  const names = new RegExp(agent.upstreamNames.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const message = err.upstreamMessage.replace(names, () => agent.publicModel);
  // Still the upstream's words: an OpenAI-shaped answer must not read a field name (`param`) out of them.
  return new GatewayError(err.code, message, { detail: err.detail, cause: err, upstreamMessage: message, upstreamTerms: err.upstreamTerms });
}

/** A Messages call's model, adapter, upstream request (its output bound recorded) and agent part, or undefined once `next` has the error. */
export function messagesCallFor(ctx: GatewayContext, req: Request, next: NextFunction): { model: Readonly<ModelEntry>; adapter: MessagesAdapter; request: MessagesRequest; agent: AgentCall | undefined } | undefined {
  const resolved = modelFor(ctx, 'messages', next);
  if (!resolved) return undefined;
  const request = upstreamMessagesRequest(req.body as MessagesRequest, resolved.model);
  ctx.usage.boundOutput(request.max_tokens);
  return { ...resolved, request, agent: agentCallOf(req, resolved.model, answerModel(ctx)) };
}
