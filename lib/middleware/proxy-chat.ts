/** proxyChatCompletions(): answers a chat-completions request through the model's Messages adapter, in OpenAI's shapes. */
import type { RequestHandler } from 'express';
import { answerModel, gatewayContext } from '../context';
import { ChatChunks, completionFromMessage } from '../formats/openai-chat';
import { messagesCallFor, startCall } from './run-call';
import { checkKeepAliveMs } from '../wire/keep-alive';
import { sendJson } from '../wire/send-json';
import { errorFrame } from '../wire/error-wire';
import { streamAnswer, type StreamFormat } from '../wire/stream-answer';
import { textOnlyMessage, textOnlyStream } from '../upstreams/text-only';

/** Chat streams' keep-alive: an SSE comment, which every client skips. */
const KEEP_ALIVE = ': keep-alive\n\n';

/** Options of proxyChatCompletions(). */
export interface ProxyChatOptions {
  /** Longest silence on a stream before a `: keep-alive` comment, in ms. Default: 15000. */
  keepAliveMs?: number;
}

/**
 * Needs `validate('chat')` and `chatToMessages()` (or a validate('chat') that translates) and
 * `resolveModel({capability: 'llm'})` before it. Any Messages adapter serves: the OpenAI ones
 * speak chat completions upstream, the Anthropic ones are translated both ways (tool calls,
 * reasoning, usage: lib/formats/openai-chat). A failure after the first chunk ends the stream with
 * `data: {"error":{…}}`, which the openai SDK raises as an `APIError`. A stream silent for
 * `keepAliveMs` gets a comment line.
 */
export function proxyChatCompletions(options: ProxyChatOptions = {}): RequestHandler {
  const keepAliveMs = checkKeepAliveMs(options.keepAliveMs, 'proxyChatCompletions');
  return function proxyChatCompletionsMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const resolved = messagesCallFor(ctx, req, next);
    if (!resolved) return;
    const { adapter, request, agent } = resolved;
    const id = `chatcmpl-${ctx.requestId}`;
    const created = Math.floor(ctx.startedAt / 1000);
    startCall(ctx, res, next, adapter.name, async (call) => {
      // A V1 model's answer is text only (lib/upstreams/text-only.ts); an agent-ready one keeps every block.
      if (!ctx.stream) {
        const message = await adapter.create(request, call);
        sendJson(res, completionFromMessage(agent ? message : textOnlyMessage(message, adapter.name), id, answerModel(ctx), created));
        return;
      }
      const chunks = new ChatChunks(id, answerModel(ctx), created, ctx.includeUsage);
      const format: StreamFormat = {
        framesOf: (events) => chunks.framesOf(events),
        errorFrame: (code, message) => errorFrame('openai', code, message),
        keepAlive: KEEP_ALIVE,
      };
      const events = adapter.stream(request, call);
      await streamAnswer(agent ? events : textOnlyStream(events, adapter.name), ctx, res, format, keepAliveMs);
    }, agent);
  };
}
