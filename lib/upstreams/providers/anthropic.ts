/** Adapter for Anthropic-format upstreams: forwards Messages natively, JSON and SSE. */
import { withoutGatewayThinking } from '../../messages/gateway-thinking';
import type { StreamEvent } from '../../messages/events';
import type { MessageResponse, MessagesRequest } from '../../messages/request';
import { AnthropicFrameReader, forwardable, ForwardedFrame, parseEventData, streamErrorFrom, usageFromAnthropic, type FrameBatch } from '../../formats/anthropic';
import { SseBatchReader } from '../../wire/sse-reader';
import { badUpstreamAnswer } from '../../foundation/answer-errors';
import { parseJson, postJson, readText } from '../http/client';
import { resolveHttp } from '../http/options';
import { guardAdapter, redacted } from '../http/redact';
import { offerForwarding } from '../forwarding';
import type { CountTokensRequest, HttpAdapterOptions, MessagesAdapter, UpstreamCallContext } from '../types';

/** Options of the Anthropic adapter. */
export interface AnthropicAdapterOptions extends HttpAdapterOptions {
  /** `anthropic-version` sent upstream. Default: "2023-06-01". */
  version?: string;
}

/**
 * The request sent: `stream` set, and without the thinking blocks the gateway signed (reasoning of
 * an OpenAI-format upstream, which Anthropic would refuse); the same object when the caller already
 * sent it so (its fields keep their order, a genuine signature its bytes).
 */
const withStream = (request: MessagesRequest, stream: boolean): MessagesRequest => {
  const sent = withoutGatewayThinking(request);
  return sent.stream === stream ? sent : { ...sent, stream };
};

/**
 * Creates a Messages adapter for an Anthropic-format upstream (`POST {baseURL}/v1/messages`).
 * The key is sent as `x-api-key`. Default name: "anthropic".
 */
export function anthropicAdapter(options: AnthropicAdapterOptions): MessagesAdapter {
  const version = options.version ?? '2023-06-01';
  const http = resolveHttp(options, 'anthropic', (key) => ({ 'x-api-key': key, 'anthropic-version': version }), ['version']);
  /** The adapter's headers, with the caller's `anthropic-version` and `anthropic-beta` for an agent-ready model. */
  const headersFor = (ctx: UpstreamCallContext): Readonly<Record<string, string>> =>
    ctx.forwardHeaders ? { ...http.headers, ...ctx.forwardHeaders } : http.headers;

  async function create(request: MessagesRequest, ctx: UpstreamCallContext): Promise<MessageResponse> {
    const open = await postJson(http, '/v1/messages', withStream(request, false), ctx, headersFor(ctx));
    const body = parseJson(await readText(open), http.name);
    const message = body as MessageResponse;
    if (typeof message !== 'object' || message === null || !Array.isArray(message.content) || typeof message.usage !== 'object') {
      throw badUpstreamAnswer(`upstream ${http.name} sent a body that is not a message: ${JSON.stringify(body).slice(0, 2000)}`);
    }
    ctx.usage.report(usageFromAnthropic(message.usage));
    ctx.usage.complete();
    return message;
  }

  /**
   * Yields the events of each upstream read together; errors leave with the key redacted. With
   * `forward`, content events written as JSON.stringify writes them come as their frames, unparsed
   * (with `runs`, each stretch of them as one: for a caller that passes them on unread).
   */
  async function* events(request: MessagesRequest, ctx: UpstreamCallContext, forward: boolean, runs = false): AsyncGenerator<FrameBatch> {
    try {
      const open = await postJson(http, '/v1/messages', withStream(request, true), ctx, headersFor(ctx));
      const type = open.response.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) {
        const text = await readText(open).catch(() => '(unreadable)');
        throw badUpstreamAnswer(`upstream ${http.name} answered a stream with ${type}: ${text.slice(0, 2000)}`);
      }
      let stopped = false;
      const sse = forward ? new AnthropicFrameReader(runs) : new SseBatchReader();
      for await (const chunk of open.chunks()) {
        const batch: FrameBatch = [];
        for (const message of sse.read(chunk) ?? []) {
          if (message instanceof ForwardedFrame) {
            batch.push(message);
            continue;
          }
          const frame = forward ? forwardable(message.event ?? '', message.data) : undefined;
          if (frame) {
            batch.push(frame);
            continue;
          }
          let event: StreamEvent;
          try {
            event = parseEventData(message.data, http.name);
            if (message.event === 'error' || event.type === 'error') throw streamErrorFrom(event, http.name);
          } catch (err) {
            if (batch.length > 0) yield batch; // what came before the failure still reaches the client
            throw err;
          }
          if (event.type === 'message_start') {
            // Only input (and cache) figures count from here: the output figure is a placeholder until message_delta.
            const { output_tokens: _placeholder, ...start } = ((event.message as { usage?: Record<string, unknown> } | undefined)?.usage ?? {});
            ctx.usage.report(usageFromAnthropic(start));
          } else if (event.type === 'message_delta') {
            ctx.usage.report(usageFromAnthropic(event.usage as Record<string, unknown> | undefined));
          } else if (event.type === 'message_stop') {
            stopped = true;
            ctx.usage.complete();
          }
          batch.push(event);
          if (stopped) break; // nothing after message_stop reaches the client
        }
        // The answer is whole: what trails is drained in the background (bounded), not waited for.
        if (stopped) open.drain();
        if (batch.length > 0) yield batch;
        if (stopped) return;
      }
      throw badUpstreamAnswer(`upstream ${http.name} stream ended before message_stop`);
    } catch (err) {
      throw redacted(err, http.redact);
    }
  }

  /** Anthropic's own count (`/v1/messages/count_tokens`): input tokens, never billed. */
  async function countTokens(request: CountTokensRequest, ctx: UpstreamCallContext): Promise<number> {
    const open = await postJson(http, '/v1/messages/count_tokens', withoutGatewayThinking(request), ctx, headersFor(ctx));
    const body = parseJson(await readText(open), http.name) as { input_tokens?: unknown } | null;
    const tokens = body?.input_tokens;
    if (typeof tokens !== 'number' || !Number.isSafeInteger(tokens) || tokens < 0) {
      throw badUpstreamAnswer(`upstream ${http.name} sent no input_tokens: ${JSON.stringify(body).slice(0, 2000)}`);
    }
    return tokens;
  }

  /** Complete event objects, always: what every consumer but the Messages proxy's forwarding gets. */
  const stream = (request: MessagesRequest, ctx: UpstreamCallContext): AsyncIterable<StreamEvent[]> =>
    events(request, ctx, false) as AsyncIterable<StreamEvent[]>;

  const adapter = guardAdapter({ kind: 'messages' as const, name: http.name, format: 'anthropic' as const, endpoint: http.url('/v1/messages'), create, stream, countTokens }, http.redact);
  return offerForwarding(adapter, (request, ctx, runs) => events(request, ctx, true, runs));
}
