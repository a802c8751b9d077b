/** Writes Anthropic-format SSE frames to the client: headers with the first events, backpressure honoured. */
import type { Response } from 'express';
import type { ErrorCode } from '../errors';
import { rawChunk, rawText, startsAt, withRaw } from '../raw-text';
import type { StreamEvent } from '../types';

/** An event known only by its type, sent as the upstream's unparsed `data` text. */
export function rawEvent(type: string, data: string): StreamEvent {
  return withRaw({ type }, data);
}

/** Serialises one event as an SSE frame with its `event:` line (the SDKs drop frames without it). */
export function frame(event: StreamEvent): string {
  return `event: ${event.type}\ndata: ${rawText(event) ?? JSON.stringify(event)}\n\n`;
}

/**
 * `chunk` (whole upstream frames) with its first frame `from` replaced by `to`, or undefined
 * when the chunk does not begin with exactly `from`. Bytes are joined into one Buffer (a copy
 * outside the JS heap), text into one string.
 */
export function withFirstFrame(chunk: Uint8Array | string, from: string, to: string): Uint8Array | string | undefined {
  if (typeof chunk === 'string') return startsAt(chunk, from) ? to + chunk.slice(from.length) : undefined;
  const length = Buffer.byteLength(from);
  if (chunk.length < length || Buffer.from(chunk.buffer, chunk.byteOffset, length).toString() !== from) return undefined;
  return Buffer.concat([Buffer.from(to), chunk.subarray(length)]);
}

/** One client stream. `send` resolves once the frame is written or buffered below the high-water mark. */
export class SseWriter {
  constructor(private readonly res: Response) {}

  /**
   * Sets the 200 status and stream headers. They go out with the first `send()`, which follows
   * at once (the caller opens the writer only when it holds the first events): one socket
   * write instead of two, and no delay. `connection` is Node's to set: it answers keep-alive
   * when the client asked for it, and close when it did not.
   */
  open(): void {
    const res = this.res;
    res.statusCode = 200;
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('x-accel-buffering', 'no');
  }

  /** Whether nothing more can be written: the client is gone or the stream ended. */
  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  /** Whether the stream ended with its `message_stop` (the response is complete). */
  completed = false;

  /**
   * Writes the frames of `events` as one chunk (the events of one upstream read), at once: no
   * batching delay. Resolves when the socket buffer is below its high-water mark again (or the
   * client is gone), which is how a slow client slows the upstream read. A batch ending with
   * `message_stop` ends the response in the same write. A batch marked with its upstream chunk
   * (see SseBatchReader) is written as that chunk: the same events, without building them again.
   */
  send(events: readonly StreamEvent[]): Promise<void> | undefined {
    if (this.closed) return undefined;
    if (events.length === 0) {
      if (!this.res.headersSent) this.res.flushHeaders();
      return undefined;
    }
    let text = rawChunk(events);
    if (text === undefined) {
      text = '';
      for (const event of events) text += frame(event);
    }
    if (events[events.length - 1]?.type === 'message_stop') {
      this.completed = true;
      this.res.end(text);
      return undefined;
    }
    if (this.res.write(text)) return undefined;
    return new Promise((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  /** Sends the standard `error` event with a safe text and ends the stream (no `message_stop`). */
  fail(code: ErrorCode, message: string): void {
    if (this.closed) return;
    this.res.end(frame({ type: 'error', error: { type: code, message } }));
  }

  /** Ends the stream (sending the headers first if nothing was written). */
  end(): void {
    if (!this.closed) this.res.end();
  }
}
