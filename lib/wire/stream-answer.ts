/** Streams an adapter's events to the client in a wire format (Anthropic events or OpenAI chunks). */
import type { Response } from 'express';
import type { GatewayContext } from '../context';
import { toGatewayError, type ErrorCode } from '../errors';
import type { StreamEvent } from '../types';
import { SseWriter } from './sse-writer';

/** How a stream of `T` (events, or events and forwarded frames) is written: the frames of a batch, and the frame that ends it with an error. */
export interface StreamFormat<T extends { type: string } = StreamEvent> {
  framesOf(events: readonly T[]): string;
  errorFrame(code: ErrorCode, message: string): string;
}

/**
 * The first event is awaited before the 200 goes out, so an upstream that fails before streaming
 * gets a proper HTTP error status instead of an error frame. The stream ends after `message_stop`
 * (the answer is whole) or when the client leaves; an upstream failure after the first event ends
 * it with the format's error frame (standard code, safe text).
 */
export async function streamAnswer<T extends { type: string }>(
  source: AsyncIterable<T | readonly T[]>, ctx: GatewayContext, res: Response, format: StreamFormat<T>,
): Promise<void> {
  const events = source[Symbol.asyncIterator]();
  let next = await events.next();
  const writer = new SseWriter(res);
  writer.open();
  ctx.ttfbMs = performance.now() - ctx.startedHr;
  try {
    while (!next.done) {
      const items: readonly T[] = Array.isArray(next.value) ? next.value : [next.value as T];
      const stop = items.findIndex((e) => e.type === 'message_stop');
      const pending = writer.write(format.framesOf(stop < 0 ? items : items.slice(0, stop + 1)), stop >= 0);
      ctx.answered = writer.completed;
      if (pending) await pending;
      if (writer.closed) break;
      next = await events.next();
    }
    writer.end();
  } catch (err) {
    const error = toGatewayError(err);
    ctx.detail = error.detail ?? error.message;
    // A client that went away is not an error of the request; anything else ends the stream with one.
    if (!writer.closed) {
      ctx.errorCode = error.code;
      writer.fail(format.errorFrame(error.code, error.message));
    }
  } finally {
    await events.return?.(undefined);
  }
}
