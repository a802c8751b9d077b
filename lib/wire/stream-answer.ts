/** Streams an adapter's events to the client in a wire format (Anthropic events or OpenAI chunks), kept alive through silences. */
import type { Response } from 'express';
import { toGatewayError, type ErrorCode, type UpstreamTerms } from '../foundation/errors';
import type { StreamEvent } from '../messages/events';
import { DEFAULT_KEEP_ALIVE_MS, KeepAlive } from './keep-alive';
import { SseWriter } from './sse-writer';

/** What a stream records of its request (the request context has these fields): first byte, whole answer, its failure. */
export interface StreamRecord {
  readonly startedHr: number;
  ttfbMs?: number;
  answered?: boolean;
  detail?: string;
  invalidAnswer: boolean;
  errorCode?: ErrorCode;
  /** Set here: ends the stream with the format's error frame, for whoever ends it from outside (shutdown). */
  endStream?: (code: ErrorCode, message: string) => void;
}

/** How a stream of `T` (events, or events and forwarded frames) is written: the frames of a batch, the frame that ends it with an error, and the keep-alive frame. */
export interface StreamFormat<T extends { type: string } = StreamEvent> {
  framesOf(events: readonly T[]): string;
  /** The frame that ends the stream with an error: a standard code, the safe text, and the upstream's own terms when the error carries them. */
  errorFrame(code: ErrorCode, message: string, terms?: UpstreamTerms): string;
  /** Written after `keepAliveMs` without a write: Messages' `ping` event, an SSE comment for chat, or (a function) an event made then. */
  keepAlive: string | (() => string);
  /** Whether an event ends the answer. Default: Messages' `message_stop`. */
  isStop?: (event: T) => boolean;
}

const isMessageStop = (event: { type: string }): boolean => event.type === 'message_stop';

/**
 * The first event is awaited before the 200 goes out, so an upstream that fails before streaming
 * gets a proper HTTP error status instead of an error frame, unless it stays silent for
 * `keepAliveMs`: then the 200 goes out with a keep-alive frame (a client or proxy would cut the
 * silence), and a later failure ends the stream with the error frame. After any `keepAliveMs`
 * without a write (a long thinking turn, a slow first token), the keep-alive frame is written. The
 * stream ends after `message_stop` (the answer is whole) or when the client leaves; an upstream
 * failure after the 200 ends it with the format's error frame (standard code, safe text).
 */
export async function streamAnswer<T extends { type: string }>(
  source: AsyncIterable<T | readonly T[]>, ctx: StreamRecord, res: Response, format: StreamFormat<T>, keepAliveMs = DEFAULT_KEEP_ALIVE_MS,
): Promise<void> {
  const events = source[Symbol.asyncIterator]();
  const isStop = format.isStop ?? isMessageStop;
  const writer = new SseWriter(res);
  let opened = false;
  const open = (): void => {
    if (opened) return;
    opened = true;
    writer.open();
  };
  // A client not reading (a write waiting on drain) is no silence: nothing is added to its buffer.
  const idle = new KeepAlive(keepAliveMs, () => {
    if (writer.closed || res.writableNeedDrain) return;
    open();
    void writer.write(typeof format.keepAlive === 'string' ? format.keepAlive : format.keepAlive());
  });
  // Shutdown ends a stream in its own grammar (a Responses stream with `response.failed`, numbered in turn).
  ctx.endStream = (code, message) => {
    if (writer.closed) return;
    ctx.errorCode = code;
    writer.fail(format.errorFrame(code, message));
  };
  try {
    let next = await events.next();
    open();
    ctx.ttfbMs = performance.now() - ctx.startedHr;
    while (!next.done) {
      const items: readonly T[] = Array.isArray(next.value) ? next.value : [next.value as T];
      const stop = items.findIndex(isStop);
      const text = format.framesOf(stop < 0 ? items : items.slice(0, stop + 1));
      const pending = writer.write(text, stop >= 0);
      if (text !== '') idle.wrote(); // events with nothing to say in the format (an upstream's ping) are no write

      ctx.answered = writer.completed;
      if (pending) await pending;
      if (writer.closed) break;
      next = await events.next();
    }
    writer.end();
  } catch (err) {
    if (!opened) throw err; // nothing sent yet: the error handler answers with the error's status
    const error = toGatewayError(err);
    ctx.detail = error.detail ?? error.message;
    if (error.invalidAnswer) ctx.invalidAnswer = true;
    // A client that went away is not an error of the request; anything else ends the stream with one.
    if (!writer.closed) {
      ctx.errorCode = error.code;
      writer.fail(format.errorFrame(error.code, error.message, error.upstreamTerms));
    }
  } finally {
    idle.stop();
    await events.return?.(undefined);
  }
}
