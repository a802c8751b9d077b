/** proxyMessages(): forwards a validated Messages request to the model's adapter, as JSON or SSE. */
import type { NextFunction, RequestHandler, Response } from 'express';
import type { ModelEntry } from '../catalog';
import { gatewayContext, type GatewayContext } from '../context';
import { toGatewayError } from '../errors';
import type { MessagesRequest, StreamEvent } from '../types';
import { modelFor, startCall } from '../upstreams/run-call';
import type { MessagesAdapter, UpstreamCallContext } from '../upstreams/types';
import { sendJson } from '../wire/send-json';
import { frame, SseWriter } from '../wire/sse-writer';

/** The body sent to the adapter: upstream model name, `temperature` only where the model takes it. */
export function upstreamMessagesRequest(body: MessagesRequest, model: Readonly<ModelEntry>): MessagesRequest {
  const { stream: _stream, ...rest } = body;
  const request: MessagesRequest = { ...rest, model: model.upstreamModel ?? model.id };
  if (model.temperature === false) delete request.temperature;
  return request;
}

async function answerJson(adapter: MessagesAdapter, request: MessagesRequest, call: UpstreamCallContext, ctx: GatewayContext, res: Response): Promise<void> {
  const message = await adapter.create(request, call);
  sendJson(res, { ...message, model: (ctx.model as ModelEntry).id });
}

/** The frames of one batch of events; `message_start` carries the public model name. */
function framesOf(items: readonly StreamEvent[], model: string): string {
  let text = '';
  for (const event of items) {
    const message = event.type === 'message_start' ? (event.message as Record<string, unknown> | undefined) : undefined;
    text += frame(message && typeof message === 'object' ? { ...event, message: { ...message, model } } : event);
  }
  return text;
}

async function sendStream(adapter: MessagesAdapter, request: MessagesRequest, call: UpstreamCallContext, ctx: GatewayContext, res: Response): Promise<void> {
  const events = adapter.stream(request, call)[Symbol.asyncIterator]();
  // The first event is awaited before the 200 goes out, so an upstream that fails before
  // streaming gets a proper HTTP error status instead of an error event.
  let next = await events.next();
  const writer = new SseWriter(res);
  writer.open();
  ctx.ttfbMs = performance.now() - ctx.startedHr;
  const publicModel = (ctx.model as ModelEntry).id;
  try {
    while (!next.done) {
      const items: readonly StreamEvent[] = Array.isArray(next.value) ? next.value : [next.value as StreamEvent];
      const stop = items.findIndex((e) => e.type === 'message_stop');
      const pending = writer.write(framesOf(stop < 0 ? items : items.slice(0, stop + 1), publicModel), stop >= 0);
      ctx.answered = writer.completed;
      if (pending) await pending;
      // The answer is whole (message_stop) or the client left: read no further.
      if (writer.closed) break;
      next = await events.next();
    }
    writer.end();
  } catch (err) {
    const error = toGatewayError(err);
    ctx.detail = error.detail ?? error.message;
    // A client that went away is not an error of the request; anything else ends the stream with one.
    if (!writer.closed) {
      ctx.errorCode = error.code;
      writer.fail(frame({ type: 'error', error: { type: error.code, message: error.message } }));
    }
  } finally {
    await events.return?.(undefined);
  }
}

/**
 * Needs `resolveModel({capability: 'llm'})` before it. Errors before the first byte go to
 * `next` (and so out as JSON with the mapped status); after it, as an `error` event. A client
 * that goes away aborts the upstream call at once.
 */
export function proxyMessages(): RequestHandler {
  return function proxyMessagesMiddleware(req, res, next: NextFunction) {
    const ctx = gatewayContext(res);
    const resolved = modelFor(ctx, 'messages', next);
    if (!resolved) return;
    const { model, adapter } = resolved;
    const request = upstreamMessagesRequest(req.body as MessagesRequest, model);
    ctx.usage.boundOutput(request.max_tokens);
    startCall(ctx, res, next, adapter.name, (call) =>
      ctx.stream ? sendStream(adapter, request, call, ctx, res) : answerJson(adapter, request, call, ctx, res));
  };
}
