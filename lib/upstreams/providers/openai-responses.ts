/**
 * Adapter for OpenAI Responses upstreams (`POST {baseURL}/v1/responses`: OpenAI and compatible
 * servers). The Messages and chat routes reach it translated (lib/formats/openai-responses); the
 * Responses route passes through to it (lib/upstreams/native-responses.ts): the client's body,
 * every event back. What it issues (response ids, encrypted reasoning) is bound to its identity,
 * its endpoint and key, and goes back to it only.
 */
import { createHash } from 'node:crypto';
import { badUpstreamAnswer } from '../../foundation/answer-errors';
import { GatewayError } from '../../foundation/errors';
import { randomHex } from '../../foundation/random-id';
import type { StreamEvent } from '../../messages/events';
import type { MessageResponse, MessagesRequest } from '../../messages/request';
import { failureFrom, messageFromResponse, nativeInput, resentHistory, ResponsesUpstreamStream, TERMINAL_EVENTS, toResponsesRequest, usageFromResponses } from '../../formats/openai-responses';
import { SseBatchReader } from '../../wire/sse-reader';
import { parseJson, postJson, readText, type OpenResponse } from '../http/client';
import { resolveHttp } from '../http/options';
import { guardAdapter, redacted } from '../http/redact';
import { offerNativeResponses, type NativeCall, type NativeUpstreamEvent } from '../native-responses';
import type { HttpAdapterOptions, MessagesAdapter, UpstreamCallContext } from '../types';

/** Options of the OpenAI Responses adapter. */
export interface OpenAIResponsesAdapterOptions extends HttpAdapterOptions {
  /** Path of the endpoint under `baseURL`. Default: "/v1/responses". */
  path?: string;
}

type Item = Record<string, unknown>;

/** Whether an upstream error says it does not know the `previous_response_id` it was sent (OpenAI: 400 `previous_response_not_found`; some servers: 404). */
const chainMissing = (err: unknown): boolean =>
  err instanceof GatewayError && (err.code === 'not_found_error' || (err.detail ?? '').includes('previous_response_not_found'));

/** A response's usage reported; marked final for a response that completed or stopped short. */
function report(response: Item | undefined, ctx: UpstreamCallContext): void {
  const usage = usageFromResponses(response?.usage);
  if (usage) ctx.usage.report(usage);
  if (usage && (response?.status === 'completed' || response?.status === 'incomplete')) ctx.usage.complete();
}

/**
 * Creates a Messages adapter for a Responses upstream that also passes the Responses route through.
 * The key is sent as `Authorization: Bearer`. Default name: "openai-responses".
 */
export function openaiResponsesAdapter(options: OpenAIResponsesAdapterOptions): MessagesAdapter {
  const http = resolveHttp(options, 'openai-responses', (key) => ({ authorization: `Bearer ${key}` }), ['path']);
  const path = options.path ?? '/v1/responses';
  const endpoint = http.url(path);
  /** Who issued an id or a reasoning blob: this endpoint with this key (hashed; never the key itself). */
  const origin = createHash('sha256').update(`${endpoint}\n${options.apiKey ?? ''}`).digest('base64url').slice(0, 16);
  const refOf = (id: string): string => `${origin}:${id}`;
  /** The upstream's own id in a stored reference, when this upstream wrote it. */
  const ownId = (ref: string | null | undefined): string | undefined => (ref?.startsWith(`${origin}:`) ? ref.slice(origin.length + 1) : undefined);

  /** Opens an event stream, or throws what the upstream answered instead (`asSent`: the body is the caller's own, see postJson). */
  async function openStream(body: unknown, ctx: UpstreamCallContext, asSent = false): Promise<OpenResponse> {
    const open = await postJson(http, path, body, ctx, http.headers, asSent);
    const type = open.response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return open;
    const text = await readText(open).catch(() => '(unreadable)');
    throw badUpstreamAnswer(`upstream ${http.name} answered a stream with ${type}: ${text.slice(0, 2000)}`);
  }

  /** The parsed events of each read, until a terminal one (included); an `error` event, a failed response or an early end is thrown. */
  async function* events(open: OpenResponse): AsyncGenerator<NativeUpstreamEvent[]> {
    const sse = new SseBatchReader();
    for await (const chunk of open.chunks()) {
      const batch: NativeUpstreamEvent[] = [];
      for (const message of sse.read(chunk) ?? []) {
        if (message.data.trim() === '[DONE]') continue;
        let event: NativeUpstreamEvent;
        try {
          event = parseJson(message.data, http.name) as NativeUpstreamEvent;
          if (typeof event !== 'object' || event === null || typeof event.type !== 'string') throw badUpstreamAnswer(`upstream ${http.name} sent an event with no type: ${message.data.slice(0, 2000)}`);
        } catch (err) {
          if (batch.length > 0) yield batch;
          throw err;
        }
        batch.push(event);
        if (TERMINAL_EVENTS.has(event.type)) {
          open.drain(); // the answer is whole: what trails is drained in the background
          yield batch;
          return;
        }
      }
      if (batch.length > 0) yield batch;
    }
    throw badUpstreamAnswer(`upstream ${http.name} stream ended before its final event`);
  }

  async function create(request: MessagesRequest, ctx: UpstreamCallContext): Promise<MessageResponse> {
    const open = await postJson(http, path, toResponsesRequest(request, origin, false, []), ctx);
    const { message, usage } = messageFromResponse(parseJson(await readText(open), http.name), `msg_${randomHex()}`, origin, http.name);
    if (usage) {
      ctx.usage.report(usage);
      ctx.usage.complete();
    }
    return message;
  }

  async function* stream(request: MessagesRequest, ctx: UpstreamCallContext): AsyncGenerator<StreamEvent[]> {
    try {
      const body = toResponsesRequest(request, origin, true, []); // what the upstream cannot express is refused before the call
      const translator = new ResponsesUpstreamStream(`msg_${randomHex()}`, request.model, origin, http.name);
      for await (const batch of events(await openStream(body, ctx))) {
        const out: StreamEvent[] = [];
        try {
          for (const event of batch) {
            // A failed response's usage is what the upstream confirmed it used: billed as on the pass-through path.
            if (event.type === 'response.failed') report(event.response as Item | undefined, ctx);
            translator.read(event, out);
          }
        } catch (err) {
          if (out.length > 0) yield out; // what came before the failure still reaches the client
          throw err;
        }
        if (translator.finished && translator.usage) {
          ctx.usage.report(translator.usage);
          ctx.usage.complete();
        }
        if (out.length > 0) yield out;
      }
    } catch (err) {
      throw redacted(err, http.redact);
    }
  }

  /**
   * The body of a pass-through call: the client's input without another family's reasoning; a
   * chain sent as this upstream's own `previous_response_id` when `useRef` and it stored the
   * response, else as the stored history in front of the input (its reasoning left out).
   */
  function bodyOf(call: NativeCall, input: unknown, useRef: boolean, why?: string): Item {
    const chain = call.chain;
    if (!chain) return { ...call.body, input };
    const id = ownId(chain.upstreamRef);
    if (id !== undefined && useRef) {
      call.outcome.chained = `as ${http.name}'s previous_response_id`;
      return { ...call.body, input, previous_response_id: id };
    }
    call.outcome.chained = `history resent (${why ?? (chain.upstreamRef ? 'another upstream stored it' : 'no upstream stored it')})`;
    const own = typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : (input as unknown[]);
    return { ...call.body, input: [...resentHistory(chain.history, call.outcome.dropped), ...own] };
  }

  /**
   * Sends a pass-through call; a chain the upstream no longer knows is resent with its history,
   * once. `asSent` tells the opener whether the body is the caller's as sent (nothing left out, no
   * history in front): only then does a refusal's `param` name the caller's own field.
   */
  async function send(call: NativeCall, ctx: UpstreamCallContext, opener: (body: unknown, ctx: UpstreamCallContext, asSent: boolean) => Promise<OpenResponse>): Promise<OpenResponse> {
    const input = nativeInput(call.body.input, call.outcome.dropped);
    const asSent = (): boolean => call.outcome.dropped.length === 0 && call.outcome.chained?.startsWith('history') !== true;
    try {
      const body = bodyOf(call, input, true);
      return await opener(body, ctx, asSent());
    } catch (err) {
      if (call.outcome.chained?.startsWith('as ') !== true || !chainMissing(err)) throw err;
      const body = bodyOf(call, input, false, `${http.name} no longer had it`);
      return opener(body, ctx, asSent());
    }
  }

  const native = {
    async create(call: NativeCall, ctx: UpstreamCallContext): Promise<Item> {
      try {
        const body = parseJson(await readText(await send(call, ctx, (b, c, asSent) => postJson(http, path, b, c, http.headers, asSent))), http.name) as Item | null;
        if (typeof body !== 'object' || body === null || !Array.isArray(body.output)) throw badUpstreamAnswer(`upstream ${http.name} sent a body that is not a response: ${JSON.stringify(body).slice(0, 2000)}`);
        if (body.status === 'failed') throw failureFrom(body.error, http.name);
        report(body, ctx);
        if (body.store === true && typeof body.id === 'string') call.outcome.upstreamRef = refOf(body.id);
        return body;
      } catch (err) {
        throw redacted(err, http.redact);
      }
    },
    async *stream(call: NativeCall, ctx: UpstreamCallContext): AsyncGenerator<NativeUpstreamEvent[]> {
      try {
        for await (const batch of events(await send(call, ctx, openStream))) {
          const end = batch.findIndex((e) => TERMINAL_EVENTS.has(e.type) || e.type === 'error');
          const last = batch[end];
          if (last === undefined) {
            yield batch;
            continue;
          }
          const response = last.response as Item | undefined;
          report(response, ctx);
          if (last.type === 'error' || last.type === 'response.failed') {
            if (end > 0) yield batch.slice(0, end);
            throw failureFrom(last.type === 'error' ? last : response?.error, http.name);
          }
          if (response?.store === true && typeof response.id === 'string') call.outcome.upstreamRef = refOf(response.id);
          yield batch;
        }
      } catch (err) {
        throw redacted(err, http.redact);
      }
    },
  };

  const adapter = guardAdapter({ kind: 'messages' as const, name: http.name, format: 'openai' as const, endpoint, create, stream }, http.redact);
  return offerNativeResponses(adapter, native);
}
