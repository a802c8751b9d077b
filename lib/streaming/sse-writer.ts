/** Writes Anthropic-format SSE frames to the client: headers flushed at once, backpressure honoured. */
import type { Response } from 'express';
import type { ErrorCode } from '../errors';
import type { StreamEvent } from '../types';

/** Symbol-keyed, so JSON.stringify leaves it out; `patched()` drops it from changed copies. */
const RAW = Symbol('model-gateway.raw');
type WithRaw = StreamEvent & { [RAW]?: string };

/** Marks an event as unchanged from the upstream's `data` text, so it is sent without re-serialising. */
export function withRaw(event: StreamEvent, data: string): StreamEvent {
  (event as WithRaw)[RAW] = data;
  return event;
}

/** A copy of `event` with `changes`, serialised anew when sent (its upstream text no longer applies). */
export function patched(event: StreamEvent, changes: Record<string, unknown>): StreamEvent {
  const copy: WithRaw = { ...event, ...changes };
  delete copy[RAW];
  return copy;
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

  /**
   * Writes the frames of `events` as one chunk (the events of one upstream read), at once: no
   * batching delay. Resolves when the socket buffer is below its high-water mark again (or the
   * client is gone), which is how a slow client slows the upstream read.
   */
  send(events: readonly StreamEvent[]): Promise<void> | undefined {
    if (this.closed || events.length === 0) return undefined;
    let text = '';
    for (const event of events) text += frame(event);
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

  /** Ends the stream. */
  end(): void {
    if (!this.closed) this.res.end();
  }
}
