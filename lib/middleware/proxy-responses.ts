/** proxyResponses(): answers a Responses request through the model's Messages adapter, as a response object or the Responses event stream. */
import type { RequestHandler } from 'express';
import { gatewayContext } from '../context';
import { ResponseEnvelope, responseFromMessage, responseIdOf, ResponsesStream } from '../formats/openai-responses';
import { messagesCallFor, startCall } from '../upstreams/run-call';
import { textOnlyMessage, textOnlyStream } from '../upstreams/text-only';
import { checkKeepAliveMs } from '../wire/keep-alive';
import { sendJson } from '../wire/send-json';
import { streamAnswer, type StreamFormat } from '../wire/stream-answer';

/** Options of proxyResponses(). */
export interface ProxyResponsesOptions {
  /** Longest silence on a stream before a `response.in_progress` event, in ms. Default: 15000. */
  keepAliveMs?: number;
}

/**
 * Needs `validateResponses()` (which turns the body into a Messages body) and
 * `resolveModel({capability: 'llm'})` before it. Any Messages adapter serves. A stream keeps
 * Responses' grammar (lib/formats/openai-responses/stream.ts); a failure after its first event ends
 * it with `response.failed` (a standard code, the safe text); a silence of `keepAliveMs` gets a
 * `response.in_progress` event with the output so far, a data event (Codex gives up after 300 s
 * without one and does not count SSE comments).
 */
export function proxyResponses(options: ProxyResponsesOptions = {}): RequestHandler {
  const keepAliveMs = checkKeepAliveMs(options.keepAliveMs, 'proxyResponses');
  return function proxyResponsesMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const plan = res.locals.responses;
    if (!plan) return next(new Error('model-gateway: proxyResponses() needs validateResponses() before it.'));
    const resolved = messagesCallFor(ctx, req, next);
    if (!resolved) return;
    const { model, adapter, request, agent } = resolved;
    const envelope = new ResponseEnvelope(plan, responseIdOf(ctx.requestId), model.id, Math.floor(ctx.startedAt / 1000));
    startCall(ctx, res, next, adapter.name, async (call) => {
      // A plain-text (V1) model answers text only, as on the other routes.
      if (!ctx.stream) {
        const message = await adapter.create(request, call);
        sendJson(res, responseFromMessage(agent ? message : textOnlyMessage(message, adapter.name), envelope));
        return;
      }
      const stream = new ResponsesStream(envelope);
      const format: StreamFormat = {
        framesOf: (events) => stream.framesOf(events),
        errorFrame: (code, message) => stream.failed(code, message),
        keepAlive: () => stream.keepAlive(),
      };
      const events = adapter.stream(request, call);
      await streamAnswer(agent ? events : textOnlyStream(events, adapter.name), ctx, res, format, keepAliveMs);
    }, agent);
  };
}
