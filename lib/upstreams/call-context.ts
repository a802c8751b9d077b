/** The context of one upstream call: its abort signal, usage recorder and attempt log. */
import type { UpstreamAttempt, UpstreamCallContext, UsageRecorder } from './types';

/** Where a call's attempts go: the request's context (its log entry's `attempts` and `upstream`). */
export interface AttemptLog {
  readonly attempts: UpstreamAttempt[];
  upstream?: string | undefined;
}

/** A function run once when a call aborts. */
export type AbortListener = () => void;

/**
 * What the proxies hand to an adapter. Its AbortSignal is made only when an adapter reads
 * `signal` (a host's adapter, a host's fetch); the built-in HTTP client listens through
 * onCallAbort(), which needs none: one EventTarget fewer per request.
 */
export class CallContext implements UpstreamCallContext {
  private controller: AbortController | undefined;
  private listeners: AbortListener[] = [];
  private isAborted = false;

  /** Set by the proxy when the call is over (its promise settled): a late close no longer aborts it. */
  ended = false;

  constructor(
    readonly requestId: string,
    readonly usage: UsageRecorder,
    private readonly log: AttemptLog,
    readonly forwardHeaders?: Readonly<Record<string, string>>,
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
      if (this.isAborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** Whether the call was aborted. */
  get aborted(): boolean {
    return this.isAborted;
  }

  /** Aborts the call: listeners run once, and the signal (if made) aborts. */
  abort(): void {
    if (this.isAborted) return;
    this.isAborted = true;
    for (const listener of this.listeners.splice(0)) listener();
    this.controller?.abort();
  }

  addAbortListener(listener: AbortListener): void {
    this.listeners.push(listener);
  }

  removeAbortListener(listener: AbortListener): void {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }
}

/** Whether a call was aborted (without making a signal for a CallContext). */
export function callAborted(ctx: UpstreamCallContext): boolean {
  return ctx instanceof CallContext ? ctx.aborted : ctx.signal.aborted;
}

/** Runs `listener` once when the call aborts. */
export function onCallAbort(ctx: UpstreamCallContext, listener: AbortListener): void {
  if (ctx instanceof CallContext) ctx.addAbortListener(listener);
  else ctx.signal.addEventListener('abort', listener, { once: true });
}

/** Stops `listener` from running when the call aborts. */
export function offCallAbort(ctx: UpstreamCallContext, listener: AbortListener): void {
  if (ctx instanceof CallContext) ctx.removeAbortListener(listener);
  else ctx.signal.removeEventListener('abort', listener);
}
