/** Writes SSE frames to the client: headers with the first events, backpressure honoured. */
import type { Response } from 'express';

/** Anything with a `type`, sent as the frame's `event:` name. */
export interface TypedEvent {
  type: string;
  [field: string]: unknown;
}

/** A line break: what an `event:` line must not hold (the text after it would be a line of its own). */
const LINE_BREAK = /[\r\n]/;

/** Serialises one event as an SSE frame with its `event:` line (the Anthropic SDKs drop frames without it); a type with a line break is refused (thrown). */
export function frame(event: TypedEvent): string {
  if (LINE_BREAK.test(event.type)) throw new Error(`model-gateway: an event type with a line break cannot be an SSE event line: ${JSON.stringify(event.type).slice(0, 100)}`);
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Serialises a value as an SSE frame with no `event:` line (OpenAI's chunks); `[DONE]` is written as it is. */
export function dataFrame(value: unknown): string {
  return `data: ${value === DONE ? DONE : JSON.stringify(value)}\n\n`;
}

/** The end marker of an OpenAI stream. */
export const DONE = '[DONE]';

/** One client stream. `send` resolves once the frames are written or buffered below the high-water mark. */
export class SseWriter {
  /** Whether the stream ended with its final event (the response is complete). */
  completed = false;

  constructor(private readonly res: Response) {}

  /**
   * Sets the 200 status and stream headers. They go out with the first `send()`, which follows
   * at once (the caller opens the writer only when it holds the first events): one socket write.
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

  /**
   * Writes `text` (whole frames) at once. With `last`, the response ends in the same write.
   * Resolves when the socket buffer is below its high-water mark again (or the client is gone),
   * which is how a slow client slows the upstream read.
   */
  write(text: string, last = false): Promise<void> | undefined {
    if (this.closed) return undefined;
    if (text === '') {
      if (!this.res.headersSent) this.res.flushHeaders();
      return undefined;
    }
    if (last) {
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

  /** Ends the stream with a final frame (an error event), unless it is already over. */
  fail(text: string): void {
    if (!this.closed) this.res.end(text);
  }

  /** Ends the stream (sending the headers first if nothing was written). */
  end(): void {
    if (!this.closed) this.res.end();
  }
}
