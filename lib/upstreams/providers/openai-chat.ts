/** Adapter for OpenAI Chat Completions upstreams (OpenAI, vLLM, DeepSeek, OpenRouter…), translated both ways. */
import { GatewayConfigError } from '../../foundation/config-errors';
import type { GatewayError } from '../../foundation/errors';
import { randomHex } from '../../foundation/random-id';
import type { StreamEvent } from '../../messages/events';
import type { MessageResponse, MessagesRequest } from '../../messages/request';
import { SseBatchReader } from '../../wire/sse-reader';
import { badUpstreamAnswer } from '../../foundation/answer-errors';
import { postJson, readJson, readText } from '../http/client';
import { resolveHttp } from '../http/options';
import { guardAdapter, redacted } from '../http/redact';
import { ChatStreamTranslator, fromChatCompletion, nameRestorer, toChatRequest, type MaxTokensField } from '../../formats/openai-chat';
import type { HttpAdapterOptions, MessagesAdapter, UpstreamCallContext } from '../types';

/** Options of the OpenAI Chat Completions adapter. */
export interface OpenAIChatAdapterOptions extends HttpAdapterOptions {
  /** Field that carries `max_tokens` upstream; o-series and reasoning models want "max_completion_tokens". Default: "max_tokens". */
  maxTokensField?: MaxTokensField;
  /** Path of the endpoint under `baseURL`. Default: "/v1/chat/completions". */
  path?: string;
}

/** A fresh Anthropic-style message id. */
const messageId = (): string => `msg_${randomHex()}`;

/**
 * Creates a Messages adapter for an OpenAI-compatible upstream, translated both ways by
 * lib/formats/openai-chat (tools, images, reasoning, usage with cached tokens; docs/translation.md). The
 * key is sent as `Authorization: Bearer`; streams ask for `stream_options.include_usage`. A request
 * the upstream's format cannot express is refused (400 naming the field) before any call. Default name: "openai".
 */
export function openaiChatAdapter(options: OpenAIChatAdapterOptions): MessagesAdapter {
  const http = resolveHttp(options, 'openai', (key) => ({ authorization: `Bearer ${key}` }), ['maxTokensField', 'path']);
  const field = options.maxTokensField ?? 'max_tokens';
  if (field !== 'max_tokens' && field !== 'max_completion_tokens') {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'openai adapter: option "maxTokensField" must be "max_tokens" or "max_completion_tokens".');
  }
  const path = options.path ?? '/v1/chat/completions';

  async function create(request: MessagesRequest, ctx: UpstreamCallContext): Promise<MessageResponse> {
    const open = await postJson(http, path, toChatRequest(request, field, false), ctx);
    const { message, usage } = fromChatCompletion(await readJson(open, http.name), messageId(), http.name, nameRestorer(request.tools));
    if (usage) {
      ctx.usage.report(usage);
      ctx.usage.complete();
    }
    return message;
  }

  async function* stream(request: MessagesRequest, ctx: UpstreamCallContext): AsyncGenerator<StreamEvent[]> {
    // Errors leave with the key redacted from their detail (see guardAdapter).
    try {
      const body = toChatRequest(request, field, true); // what the upstream cannot express is refused before the call
      const open = await postJson(http, path, body, ctx);
      const type = open.response.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) {
        const text = await readText(open).catch(() => '(unreadable)');
        throw badUpstreamAnswer(`upstream ${http.name} answered a stream with ${type}: ${text.slice(0, 2000)}`);
      }
      const translator = new ChatStreamTranslator(messageId(), request.model, http.name, nameRestorer(request.tools));
      /** Appends the closing events (the usage reported so far is final), or returns the error the answer is. */
      const close = (events: StreamEvent[]): GatewayError | undefined => {
        const failure = translator.end(events);
        if (!failure && translator.usage) ctx.usage.complete();
        return failure;
      };
      let done = false;
      const sse = new SseBatchReader();
      for await (const chunk of open.chunks()) {
        const events: StreamEvent[] = [];
        let failure: GatewayError | undefined;
        for (const message of sse.read(chunk) ?? []) {
          if (message.data.trim() === '[DONE]') {
            done = true;
            failure = close(events); // in the same write as the chunks read with [DONE]
            break;
          }
          const before = translator.usage;
          failure = translator.read(message, events);
          if (failure) break;
          if (translator.usage && translator.usage !== before) ctx.usage.report(translator.usage);
        }
        if (failure) {
          if (events.length > 0) yield events; // what came before the failure still reaches the client
          throw failure;
        }
        if (done) open.drain(); // what follows [DONE] is drained in the background, bounded
        if (events.length > 0) yield events;
        if (done) return;
      }
      if (!translator.finished) throw badUpstreamAnswer(`upstream ${http.name} stream ended before its finish reason`);
      const events: StreamEvent[] = [];
      const failure = close(events);
      if (events.length > 0) yield events;
      if (failure) throw failure;
    } catch (err) {
      throw redacted(err, http.redact);
    }
  }

  return guardAdapter({ kind: 'messages' as const, name: http.name, format: 'openai' as const, endpoint: http.url(path), create, stream }, http.redact);
}
