/** proxyMessages(): forwards a validated Messages request to the model's adapter, as JSON or SSE. */
import type { NextFunction, RequestHandler, Response } from 'express';
import { answerModel, gatewayContext, type GatewayContext } from '../context';
import type { StreamEvent } from '../messages/events';
import type { MessagesRequest } from '../messages/request';
import { messagesCallFor, startCall } from './run-call';
import type { MessagesAdapter, UpstreamCallContext } from '../upstreams/types';
import { messagesFrames, PING, type ForwardedFrame } from '../formats/anthropic';
import { forwardingStreamOf } from '../upstreams/forwarding';
import { sendJson } from '../wire/send-json';
import { checkKeepAliveMs } from '../wire/keep-alive';
import { errorFrame } from '../wire/error-wire';
import { streamAnswer, type StreamFormat } from '../wire/stream-answer';
import { textOnlyMessage, textOnlyStream } from '../upstreams/text-only';

async function answerJson(adapter: MessagesAdapter, request: MessagesRequest, call: UpstreamCallContext, ctx: GatewayContext, res: Response, v1: boolean): Promise<void> {
  const message = await adapter.create(request, call);
  sendJson(res, { ...(v1 ? textOnlyMessage(message, adapter.name) : message), model: answerModel(ctx) });
}

/** Anthropic's event grammar, with the public model name in `message_start`; forwarded frames go as they are; `ping` keeps it alive. */
function anthropicFormat(model: string): StreamFormat<StreamEvent | ForwardedFrame> {
  return { framesOf: messagesFrames(model), errorFrame: (code, message) => errorFrame('anthropic', code, message), keepAlive: PING };
}

/** Options of proxyMessages(). */
export interface ProxyMessagesOptions {
  /** Longest silence on a stream before a `ping` event, in ms. Default: 15000. */
  keepAliveMs?: number;
}

/**
 * Needs `resolveModel({capability: 'llm'})` before it. Errors before the first byte go to
 * `next` (and so out as JSON with the mapped status); after it, as an `error` event. A stream
 * silent for `keepAliveMs` gets a `ping` event. A client that goes away aborts the upstream call at once.
 */
export function proxyMessages(options: ProxyMessagesOptions = {}): RequestHandler {
  const keepAliveMs = checkKeepAliveMs(options.keepAliveMs, 'proxyMessages');
  return function proxyMessagesMiddleware(req, res, next: NextFunction) {
    const ctx = gatewayContext(res);
    const resolved = messagesCallFor(ctx, req, next);
    if (!resolved) return;
    const { adapter, request, agent } = resolved;
    // The built-in Anthropic adapter itself (not a wrapper) forwards content frames unparsed.
    const forwarding = forwardingStreamOf(adapter);
    startCall(ctx, res, next, adapter.name, async (call) => {
      if (!ctx.stream) return answerJson(adapter, request, call, ctx, res, agent === undefined);
      // An agent-ready model's content frames pass through in runs; a V1 model's filter reads each one's head.
      const source = forwarding ? forwarding(request, call, agent !== undefined) : adapter.stream(request, call);
      // A V1 model's answer is text only; an agent-ready one passes through as the upstream wrote it.
      return streamAnswer(agent ? source : textOnlyStream(source, adapter.name), ctx, res, anthropicFormat(answerModel(ctx)), keepAliveMs);
    }, agent);
  };
}
