/** proxyChatCompletions(): answers a chat-completions request through the model's Messages adapter, in OpenAI's shapes. */
import type { RequestHandler } from 'express';
import { ChatChunks } from '../chat/chunks';
import { completionFromMessage } from '../chat/translate';
import { gatewayContext } from '../context';
import { openaiErrorBody } from '../errors';
import { messagesCallFor, startCall } from '../upstreams/run-call';
import { sendJson } from '../wire/send-json';
import { dataFrame } from '../wire/sse-writer';
import { streamAnswer, type StreamFormat } from '../wire/stream-answer';

/**
 * Needs `validate('chat')` (which turns the body into a Messages body) and
 * `resolveModel({capability: 'llm'})` before it. Any Messages adapter serves: the OpenAI ones
 * speak chat completions upstream, the Anthropic ones are translated both ways. A failure after
 * the first chunk ends the stream with `data: {"error":{…}}`, which the openai SDK raises as an
 * `APIError`.
 */
export function proxyChatCompletions(): RequestHandler {
  return function proxyChatCompletionsMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const resolved = messagesCallFor(ctx, req, next);
    if (!resolved) return;
    const { model, adapter, request } = resolved;
    const id = `chatcmpl-${ctx.requestId}`;
    const created = Math.floor(ctx.startedAt / 1000);
    startCall(ctx, res, next, adapter.name, async (call) => {
      if (!ctx.stream) {
        sendJson(res, completionFromMessage(await adapter.create(request, call), id, model.id, created));
        return;
      }
      const chunks = new ChatChunks(id, model.id, created, ctx.includeUsage);
      const format: StreamFormat = {
        framesOf: (events) => chunks.framesOf(events),
        errorFrame: (code, message) => dataFrame(openaiErrorBody(code, message)),
      };
      await streamAnswer(adapter.stream(request, call), ctx, res, format);
    });
  };
}
