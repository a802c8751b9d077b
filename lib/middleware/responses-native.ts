/**
 * The Responses route's pass-through to a native Responses upstream (openaiResponsesAdapter, or
 * failover() of such): the client's body but the model goes up, the upstream's answer comes back
 * (lib/formats/openai-responses/native.ts says what the gateway rewrites). A chain goes as the
 * upstream's own id when that upstream stored it, else as the stored history; the log says which.
 */
import type { NextFunction, Response } from 'express';
import type { GatewayContext } from '../context';
import { NativeStream, TERMINAL_EVENTS, type NativeEvent, type ResponseEnvelope, type ResponsesPlan, type ResponsesRequest } from '../formats/openai-responses';
import type { NativeCall, NativeResponses, NativeUpstreamEvent } from '../upstreams/native-responses';
import { startCall, type AgentCall } from './run-call';
import { sendJson } from '../wire/send-json';
import { streamAnswer, type StreamFormat } from '../wire/stream-answer';
import type { ResponseKeeper } from './responses-keep';
import { logDetail, type ResponsesState } from './responses-state';

/** What the pass-through of one request needs. */
export interface NativeAnswer {
  ctx: GatewayContext;
  res: Response;
  next: NextFunction;
  upstreamName: string;
  native: NativeResponses;
  agent: AgentCall;
  plan: ResponsesPlan;
  state: ResponsesState | undefined;
  keeper: ResponseKeeper | undefined;
  envelope: ResponseEnvelope;
  keepAliveMs: number | undefined;
}

/**
 * The call's body: the validated body (the request's `clientBody`) with the upstream's model and without
 * `previous_response_id`; a chained request's input is the client's own (the chain goes beside it).
 */
function callOf(a: NativeAnswer): NativeCall {
  const sent = (a.ctx.clientBody as Readonly<ResponsesRequest> | undefined) ?? a.state?.body;
  if (!sent) throw new Error('model-gateway: proxyResponses() needs validateResponses() before it.');
  const { previous_response_id: _chained, ...rest } = sent;
  const previous = a.state?.previous;
  const input = previous ? a.state?.body.input : rest.input;
  const body = { ...rest, input, model: a.agent.upstreamModel };
  return { body, outcome: { dropped: [] }, ...(previous && a.state ? { chain: { upstreamRef: previous.upstreamResponseId, history: a.state.history } } : {}) };
}

/** The request log's note of how the call went up: the chain's way, what was left out. */
function noteOutcome(ctx: GatewayContext, call: NativeCall): void {
  const { chained, dropped } = call.outcome;
  const notes = [...(chained ? [`chain sent ${chained}`] : []), ...(dropped.length > 0 ? [`dropped ${[...new Set(dropped)].join(', ')}`] : [])];
  if (notes.length > 0) logDetail(ctx, notes.join('; '));
}

/** The upstream's events, with `beforeEnd` awaited before a terminal event is handed on (the events ahead of it first). */
async function* keptBeforeEnd(source: AsyncIterable<readonly NativeUpstreamEvent[]>, beforeEnd: (event: NativeEvent) => Promise<void>): AsyncGenerator<readonly NativeEvent[]> {
  for await (const batch of source) {
    const end = batch.findIndex((e) => TERMINAL_EVENTS.has(e.type));
    const last = batch[end];
    if (last === undefined) {
      yield batch;
      continue;
    }
    if (end > 0) yield batch.slice(0, end);
    await beforeEnd(last);
    yield batch.slice(end);
  }
}

/** Answers a Responses request by passing it through to `native` (JSON or a stream, as the client asked). */
export function answerNatively(a: NativeAnswer): void {
  const { ctx, res, keeper } = a;
  let call: NativeCall;
  try {
    call = callOf(a);
  } catch (err) {
    return a.next(err);
  }
  const stream = new NativeStream(a.envelope, a.state?.previous?.id ?? null);
  startCall(ctx, res, a.next, a.upstreamName, async (upstream) => {
    try {
      if (!ctx.stream) {
        const response = stream.answer(await a.native.create(call, upstream));
        await keeper?.keep(response, call.outcome.upstreamRef ?? null);
        sendJson(res, response);
        return;
      }
      const format: StreamFormat<NativeEvent> = {
        framesOf: (events) => stream.framesOf(events),
        errorFrame: (code, message, terms) => stream.failed(code, message, terms),
        keepAlive: () => stream.keepAlive(),
        isStop: (event) => TERMINAL_EVENTS.has(event.type),
      };
      const events = keptBeforeEnd(a.native.stream(call, upstream), async (end) => {
        if (keeper && end.type !== 'response.failed') await keeper.keep(stream.finalOf(end), call.outcome.upstreamRef ?? null);
      });
      await streamAnswer(events, ctx, res, format, a.keepAliveMs);
    } finally {
      noteOutcome(ctx, call);
    }
  }, a.agent);
}
