/** Retries store writes (settle, log) with backoff so a brief store outage loses nothing while the process lives. */
import { withTimeout } from '../timeout';

/** Options of a DurableWriter. */
export interface DurableWriterOptions {
  /** Delay before the first retry, in ms; doubles up to `maxDelayMs`. Default: 50. */
  baseDelayMs?: number;
  /** Longest delay between retries, in ms. Default: 5000. */
  maxDelayMs?: number;
  /** A write that takes longer than this is treated as failed and tried again (writes are idempotent). Default: 10000. */
  attemptTimeoutMs?: number;
  /** Called on every failed attempt (for the host's own alerting). Default: none. */
  onError?: (err: unknown, attempt: number) => void;
}

/** Calls `write` once: its result, or a rejected promise when it threw. */
function attempt(write: () => unknown): unknown {
  try {
    return write();
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Runs writes until they succeed; `flush()` waits for every pending write. */
export class DurableWriter {
  private readonly pending = new Set<Promise<void>>();
  private readonly base: number;
  private readonly max: number;
  private readonly timeout: number;

  constructor(private readonly options: DurableWriterOptions = {}) {
    this.base = options.baseDelayMs ?? 50;
    this.max = options.maxDelayMs ?? 5000;
    this.timeout = options.attemptTimeoutMs ?? 10_000;
  }

  /** Number of writes not yet done. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Runs `write` now and again after each failure, until it succeeds. Returns undefined when a
   * synchronous write succeeded at once, else a promise of the eventual success.
   */
  run(write: () => unknown): Promise<void> | undefined {
    const first = attempt(write);
    if (!(first instanceof Promise)) return undefined; // a synchronous store that succeeded: no timer, no tracking
    const promise = this.retry(write, first).finally(() => this.pending.delete(promise));
    this.pending.add(promise);
    return promise;
  }

  private async retry(write: () => unknown, first: Promise<unknown>): Promise<void> {
    let out = first;
    for (let n = 1; ; n++) {
      try {
        await withTimeout(out, this.timeout, 'store write');
        return;
      } catch (err) {
        this.options.onError?.(err, n);
        await new Promise((r) => setTimeout(r, Math.min(this.max, this.base * 2 ** (n - 1))));
      }
      out = Promise.resolve(attempt(write));
    }
  }

  /** Counts `work` as pending until it settles, so that flush() waits for it too. */
  track(work: Promise<unknown>): void {
    const promise = work.then(() => undefined, () => undefined).finally(() => this.pending.delete(promise));
    this.pending.add(promise);
  }

  /** Resolves when every write started so far has succeeded. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
