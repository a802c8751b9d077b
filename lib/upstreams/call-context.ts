/** The context of one upstream call; its AbortSignal is created only when an adapter reads it. */
import { LightSignal } from './fetch-signal';
import type { UpstreamAttempt, UpstreamCallContext, UsageRecorder } from './types';

/**
 * What the proxies hand to an adapter. The built-in adapters learn of an abort through a plain
 * listener list; a real AbortSignal (an EventTarget, costly to build) exists only once someone
 * reads `signal`, and then follows the same abort.
 */
export class CallContext implements UpstreamCallContext {
  private controller: AbortController | undefined;
  private readonly listeners = new LightSignal();

  constructor(
    readonly requestId: string,
    readonly usage: UsageRecorder,
    readonly recordAttempt: (attempt: UpstreamAttempt) => void,
  ) {}

  /** Aborted when the client goes away; pass it to the HTTP call. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** Whether the call was aborted. */
  get aborted(): boolean {
    return this.listeners.aborted;
  }

  /** Aborts the call: listeners run once, and the signal (if made) aborts. */
  abort(): void {
    if (this.aborted) return;
    this.listeners.abort();
    this.controller?.abort();
  }

  /** Runs `listener` once on abort; returns the function that stops listening. */
  onAbort(listener: () => void): () => void {
    return this.listeners.onAbort(listener);
  }
}

/** Whether the call was aborted (without creating a signal for a CallContext). */
export function callAborted(ctx: UpstreamCallContext): boolean {
  return ctx instanceof CallContext ? ctx.aborted : ctx.signal.aborted;
}

/** Runs `listener` once when the call aborts; returns the function that stops listening. */
export function onCallAbort(ctx: UpstreamCallContext, listener: () => void): () => void {
  if (ctx instanceof CallContext) return ctx.onAbort(listener);
  const signal = ctx.signal;
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
