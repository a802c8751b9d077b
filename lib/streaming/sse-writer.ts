/** Writes Anthropic-format SSE frames to the client: headers flushed at once, backpressure honoured. */
import type { Response } from 'express';
import type { ErrorCode } from '../errors';
import type { StreamEvent } from '../types';

/** A non-enumerable symbol: JSON.stringify and object spreads leave it out, so a changed copy is re-serialised. */
const RAW = Symbol('model-gateway.raw');
type WithRaw = StreamEvent & { [RAW]?: string };

/** Marks an event as unchanged from the upstream's `data` text, so it is sent without re-serialising. */
export function withRaw(event: StreamEvent, data: string): StreamEvent {
  Object.defineProperty(event, RAW, { value: data, enumerable: false });
  return event;
}

/** Serialises one event as an SSE frame with its `event:` line (the SDKs drop frames without it). */
export function frame(event: StreamEvent): string {
  return `event: ${event.type}\ndata: ${(event as WithRaw)[RAW] ?? JSON.stringify(event)}\n\n`;
}

/** One client stream. `send` resolves once the frame is written or buffered below the high-water mark. */
export class SseWriter {
  constructor(private readonly res: Response) {}

  /** Sends the 200 status and stream headers immediately. */
  open(): void {
    const res = this.res;
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('connection', 'keep-alive');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
  }

  /** Whether the client is gone. */
  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  private corked = false;

  /**
   * Writes a frame; waits for `drain` when the socket buffer is full (or for the client to go).
   * Frames written in the same tick (the events of one upstream read) leave in one socket write:
   * the response is corked until the tick ends, which delays nothing.
   */
  send(event: StreamEvent): Promise<void> | undefined {
    if (this.closed) return undefined;
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      process.nextTick(() => {
        this.corked = false;
        this.res.uncork();
      });
    }
    if (this.res.write(frame(event))) return undefined;
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

  /** Ends the stream. */
  end(): void {
    if (!this.closed) this.res.end();
  }
}
