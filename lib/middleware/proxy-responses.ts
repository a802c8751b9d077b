/** proxyResponses(): answers a Responses request through the model's Messages adapter, as a response object or the Responses event stream. */
import type { RequestHandler } from 'express';
import { answerModel, gatewayContext } from '../context';
import { ResponseEnvelope, responseFromMessage, responseIdOf, ResponsesStream } from '../formats/openai-responses';
import type { ResolvedResponses } from '../responses-options';
import { DEFAULT_STORE_TIMEOUT_MS } from '../stores/call';
import { checkTimeout } from '../foundation/timeout';
import { nativeResponsesOf } from '../upstreams/native-responses';
import { messagesCallFor, startCall } from './run-call';
import { textOnlyMessage, textOnlyStream } from '../upstreams/text-only';
import { checkKeepAliveMs } from '../wire/keep-alive';
import { sendJsonText } from '../wire/send-json';
import { streamAnswer, type StreamFormat } from '../wire/stream-answer';
import { keptBeforeStop, ResponseKeeper } from './responses-keep';
import { answerNatively } from './responses-native';
import { checkResolvedResponses } from './responses-state';

/** Options of proxyResponses(). */
export interface ProxyResponsesOptions {
  /** Longest silence on a stream before a `response.in_progress` event, in ms. Default: 15000. */
  keepAliveMs?: number;
  /** Stored responses (the resolved `responses` option), with responsesState() before validateResponses(). Default: none (nothing is stored). */
  responses?: ResolvedResponses;
  /** Longest wait for a response to be written, in ms. Default: 5000. */
  storeTimeoutMs?: number;
}

/**
 * Needs `validateResponses()` and `responsesToMessages()` (or a validateResponses() that translates) and
 * `resolveModel({capability: 'llm'})` before it. Any Messages adapter serves; an agent-ready
 * model whose adapter is a native Responses upstream gets the request passed through instead. A stream keeps
 * Responses' grammar (lib/formats/openai-responses/stream.ts); a failure after its first event ends
 * it with `response.failed` (a standard code, the safe text); a silence of `keepAliveMs` gets a
 * `response.in_progress` event with the output so far, a data event (Codex gives up after 300 s
 * without one and does not count SSE comments). With `responses` and responsesState() before
 * it, the response is kept (lib/middleware/responses-keep.ts) before its final event or its JSON
 * body is written, and echoes the `previous_response_id` it chained from.
 */
export function proxyResponses(options: ProxyResponsesOptions = {}): RequestHandler {
  const keepAliveMs = checkKeepAliveMs(options.keepAliveMs, 'proxyResponses');
  const storeTimeoutMs = checkTimeout(options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS, 'proxyResponses: option "storeTimeoutMs"');
  const responses = options.responses === undefined ? undefined : checkResolvedResponses(options.responses, 'proxyResponses');
  return function proxyResponsesMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const validated = res.locals.responses;
    if (!validated) return next(new Error('model-gateway: proxyResponses() needs validateResponses() before it.'));
    const resolved = messagesCallFor(ctx, req, next);
    if (!resolved) return;
    const { adapter, request, agent } = resolved;
    const state = res.locals.responsesState;
    const keeper = state && responses ? new ResponseKeeper(ctx, state, responses, storeTimeoutMs) : undefined;
    const echo = state?.previous ? { ...validated.echo, previous_response_id: state.previous.id } : validated.echo;
    const plan = keeper ? { ...validated, echo, sealed: keeper.sealed } : { ...validated, echo };
    const envelope = new ResponseEnvelope(plan, responseIdOf(ctx.requestId), answerModel(ctx), Math.floor(ctx.startedAt / 1000));
    // An agent-ready model on a native Responses upstream is passed through (lib/middleware/responses-native.ts).
    const native = agent ? nativeResponsesOf(adapter) : undefined;
    if (native && agent) {
      return answerNatively({ ctx, res, next, upstreamName: adapter.name, native, agent, plan, state, keeper, envelope, keepAliveMs });
    }
    startCall(ctx, res, next, adapter.name, async (call) => {
      // A plain-text (V1) model answers text only, as on the other routes.
      if (!ctx.stream) {
        const message = await adapter.create(request, call);
        const response = responseFromMessage(agent ? message : textOnlyMessage(message, adapter.name), envelope);
        await keeper?.keep(response);
        sendJsonText(res, envelope.json(response)); // the echoed fields serialised as one string (ResponseEnvelope.json)
        return;
      }
      const stream = new ResponsesStream(envelope);
      const format: StreamFormat = {
        framesOf: (events) => stream.framesOf(events),
        errorFrame: (code, message, terms) => stream.failed(code, message, terms),
        keepAlive: () => stream.keepAlive(),
      };
      const events = agent ? adapter.stream(request, call) : textOnlyStream(adapter.stream(request, call), adapter.name);
      await streamAnswer(keeper ? keptBeforeStop(events, () => keeper.keep(stream.finish())) : events, ctx, res, format, keepAliveMs);
    }, agent);
  };
}
