/** The context of one upstream call; its AbortSignal is created only when an adapter reads it. */
import { LightSignal, type AbortListener } from './fetch-signal';
import type { UpstreamAttempt, UpstreamCallContext, UsageRecorder } from './types';

/** Where a call's attempts go: the request's context (its log entry's `attempts` and `upstream`). */
export interface AttemptLog {
  readonly attempts: UpstreamAttempt[];
  upstream?: string | undefined;
}

/**
 * What the proxies hand to an adapter. The built-in adapters learn of an abort through a plain
 * listener list; a real AbortSignal (an EventTarget, costly to build) exists only once someone
 * reads `signal`, and then follows the same abort.
 */
export class CallContext implements UpstreamCallContext {
  private controller: AbortController | undefined;
  private readonly listeners = new LightSignal();

  /** Set by the proxy when the call is over (its promise settled): a late close no longer aborts it. */
  ended = false;

  constructor(
    readonly requestId: string,
    readonly usage: UsageRecorder,
    private readonly log: AttemptLog,
  ) {}

  /** Records one attempt at an upstream (failover()): it becomes the request's current upstream. */
  recordAttempt(attempt: UpstreamAttempt): void {
    this.log.attempts.push(attempt);
    this.log.upstream = attempt.upstream;
  }

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

  /** Runs `listener` once on abort. */
  addAbortListener(listener: AbortListener): void {
    this.listeners.addEventListener('abort', listener);
  }

  /** Stops `listener` from running on abort. */
  removeAbortListener(listener: AbortListener): void {
    this.listeners.removeEventListener('abort', listener);
  }
}

/** Whether the call was aborted (without creating a signal for a CallContext). */
export function callAborted(ctx: UpstreamCallContext): boolean {
  return ctx instanceof CallContext ? ctx.aborted : ctx.signal.aborted;
}

/** Runs `listener` once when the call aborts (a real AbortSignal takes function and handleEvent listeners alike). */
export function onCallAbort(ctx: UpstreamCallContext, listener: AbortListener): void {
  if (ctx instanceof CallContext) ctx.addAbortListener(listener);
  else ctx.signal.addEventListener('abort', listener as Parameters<AbortSignal['addEventListener']>[1], { once: true });
}

/** Stops `listener` from running when the call aborts. */
export function offCallAbort(ctx: UpstreamCallContext, listener: AbortListener): void {
  if (ctx instanceof CallContext) ctx.removeAbortListener(listener);
  else ctx.signal.removeEventListener('abort', listener as Parameters<AbortSignal['removeEventListener']>[1]);
}
