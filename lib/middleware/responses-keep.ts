/** Keeping a Responses answer: the record written before its final event or JSON body goes out, or why not noted; `store` in the response says which. */
import { atEnd, type GatewayContext } from '../context';
import { apiItemsOf, sealedOutput, type ResponseObject } from '../formats/openai-responses';
import type { StreamEvent, StreamItem } from '../messages/events';
import type { ResolvedResponses } from '../responses-options';
import { responseExpiry, type NewResponse, type NotStoredReason } from '../stores/responses';
import { withTimeout } from '../foundation/timeout';
import { logDetail, type ResponsesState } from './responses-state';

/** Keeps the response of one request (see keep()). */
export class ResponseKeeper {
  /** Each reasoning item's encrypted content by item id, whatever `include` asked: the answer's plan fills it. */
  readonly sealed = new Map<string, string>();

  constructor(
    private readonly ctx: GatewayContext,
    private readonly state: ResponsesState,
    private readonly responses: ResolvedResponses,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Called with the final response object before the client gets it. Stored when storing is on,
   * the request asked (`store` true or left out) and the client is still there: written with its
   * input items (the chain's history, then its own input in the API's item shapes), the output
   * with its encrypted reasoning (for a later chain), the request's instructions and tools, the
   * usage and upstream (and, from a native upstream that stored it too, its reference there); readable on every instance once this resolves. `response.store` is set
   * true only when the store said it was stored; a write that fails or is refused
   * (`too_large`, `conflict`) answers `store: false` and the log's detail says why.
   */
  async keep(response: ResponseObject, upstreamResponseId: string | null = null): Promise<void> {
    const { ctx, state, responses } = this;
    response.store = false;
    const caller = ctx.caller;
    if (ctx.closed || !caller) return; // the client left: a response nobody received is not kept
    const store = responses.store;
    if (!store) return; // storing off: answered store: false, nothing written
    if (state.notStored) return this.note(response.id, caller.id, state.notStored);
    const usage = ctx.usage.snapshot();
    const served = ctx.attempts.filter((a) => a.ok).at(-1)?.upstream ?? ctx.upstream ?? 'unknown';
    const body = state.body;
    const record: NewResponse = {
      id: response.id, callerId: caller.id, requestId: ctx.requestId, model: ctx.model?.id ?? response.model, upstream: served,
      upstreamResponseId, previousResponseId: state.previous?.id ?? null,
      response: { ...response, store: true, output: sealedOutput(response.output, this.sealed) },
      inputItems: [...state.history, ...apiItemsOf(body.input, state.history)],
      instructions: typeof body.instructions === 'string' ? body.instructions : null, tools: body.tools ?? [],
      usage: usage.provenance === 'none' ? null : usage, createdAt: ctx.startedAt, expiresAt: responseExpiry(ctx.startedAt, responses.retentionDays),
    };
    try {
      const result = await withTimeout(store.putResponse(record, { maxBytes: responses.maxBytes }), this.timeoutMs, 'response write');
      if (result.stored) response.store = true;
      else logDetail(ctx, `response not stored (${result.reason})`);
    } catch (err) {
      logDetail(ctx, `response not stored: ${String(err)}`);
    }
  }

  /**
   * Notes why a response was not stored, for the request log; written as the request concludes
   * (never delaying the answer).
   */
  private note(responseId: string, callerId: string, reason: NotStoredReason): void {
    const notes = this.responses.store;
    if (!notes) return;
    const previousResponseId = this.state.previous?.id ?? null;
    atEnd(this.ctx, () => notes.noteResponse({ requestId: this.ctx.requestId, responseId, callerId, stored: false, reason, previousResponseId }));
  }
}

/**
 * The adapter's stream, with `beforeStop` awaited before the event `message_stop` is handed on
 * (the events ahead of it in its batch first): the final event is written only once it resolved.
 */
export async function* keptBeforeStop(source: AsyncIterable<StreamItem>, beforeStop: () => Promise<void>): AsyncGenerator<StreamItem> {
  for await (const item of source) {
    const events = (Array.isArray(item) ? item : [item]) as readonly StreamEvent[];
    const stop = events.findIndex((e) => e.type === 'message_stop');
    if (stop < 0) {
      yield item;
      continue;
    }
    if (stop > 0) yield events.slice(0, stop);
    await beforeStop();
    yield events.slice(stop);
  }
}
