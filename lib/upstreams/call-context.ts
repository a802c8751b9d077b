/** The context of one upstream call: its abort signal, usage recorder and attempt log. */
import type { UpstreamAttempt, UpstreamCallContext, UsageRecorder } from './types';

/** Where a call's attempts go: the request's context (its log entry's `attempts` and `upstream`). */
export interface AttemptLog {
  readonly attempts: UpstreamAttempt[];
  upstream?: string | undefined;
}

/** What the proxies hand to an adapter. */
export class CallContext implements UpstreamCallContext {
  private readonly controller = new AbortController();

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
    return this.controller.signal;
  }

  /** Aborts the call. */
  abort(): void {
    this.controller.abort();
  }
}
