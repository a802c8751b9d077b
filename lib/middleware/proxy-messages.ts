/** proxyMessages(): forwards a validated Messages request to the model's adapter, as JSON or SSE. */
import { rawChunk, rawText, renamedModel, patched, withRaw, withRawChunk } from '../raw-text';
import { sendJson, sendJsonText } from '../send-json';
import type { NextFunction, RequestHandler, Response } from 'express';
import { gatewayContext, type GatewayContext } from '../context';
import { toGatewayError } from '../errors';
import { frame, SseWriter, withFirstFrame } from '../streaming/sse-writer';
import type { MessagesRequest, ModelEntry, StreamEvent } from '../types';
import type { MessagesAdapter, UpstreamCallContext } from '../upstreams/types';
import { modelFor, startCall } from './upstream-call';

/** The body sent to the adapter: upstream model name, `temperature` only where the model takes it. */
export function upstreamMessagesRequest(body: MessagesRequest, model: Readonly<ModelEntry>): MessagesRequest {
  const { stream: _stream, ...rest } = body;
  const request: MessagesRequest = { ...rest, model: model.upstreamModel ?? model.id };
  if (model.temperature === false) delete request.temperature;
  return request;
}

async function answerJson(adapter: MessagesAdapter, request: MessagesRequest, call: UpstreamCallContext, ctx: GatewayContext, res: Response): Promise<void> {
  const message = await adapter.create(request, call);
  const model = (ctx.model as ModelEntry).id;
  // The upstream's own text, with the public model name, when it can be had without re-serialising.
  const raw = rawText(message);
  const text = raw === undefined || typeof message.model !== 'string' ? undefined : message.model === model ? raw : renamedModel(raw, message.model, model);
  if (text === undefined) sendJson(res, { ...message, model });
  else sendJsonText(res, text);
}

/** A `message_start` event carrying the public model name (its upstream text kept when possible). */
function publicStart(event: StreamEvent, model: string): StreamEvent {
  const message = event.message as { model?: unknown } | undefined;
  if (!message || typeof message !== 'object' || message.model === model) return event;
  const raw = rawText(event);
  const text = raw === undefined || typeof message.model !== 'string' ? undefined : renamedModel(raw, message.model, model);
  const renamed = patched(event, { message: { ...message, model } });
  return text === undefined ? renamed : withRaw(renamed, text);
}

/**
 * The batch with the public model name in its `message_start`: the batch itself (and so its raw
 * chunk) when nothing changes. A raw chunk that begins with that `message_start` stays raw, with
 * the renamed frame in front of the rest of its bytes.
 */
function publicBatch(items: readonly StreamEvent[], model: string): readonly StreamEvent[] {
  for (let i = 0; i < items.length; i++) {
    const event = items[i] as StreamEvent;
    if (event.type !== 'message_start') continue;
    const renamed = publicStart(event, model);
    if (renamed === event) continue;
    const copy = items.slice();
    copy[i] = renamed;
    const chunk = i === 0 ? rawChunk(items) : undefined;
    const raw = chunk === undefined || rawText(event) === undefined ? undefined : withFirstFrame(chunk, frame(event), frame(renamed));
    return raw === undefined ? copy : withRawChunk(copy, raw);
  }
  return items;
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
      const pending = writer.send(publicBatch(items, publicModel));
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
      writer.fail(error.code, error.message);
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
