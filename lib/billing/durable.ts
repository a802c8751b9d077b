/** Retries store writes (settle, log) with backoff, so a store outage loses nothing; a write still refused after its attempts is set aside. */
import { GATEWAY_DEFAULTS, withDefaults } from '../foundation/defaults';
import { GatewayConfigError } from '../foundation/config-errors';
import { isThenable } from '../foundation/sync';
import { withTimeout } from '../foundation/timeout';

/** A write given up on: what it was for, the record, and the last error. */
export interface SetAsideWrite {
  /** What the write stored, e.g. "settle" or "log". */
  kind: string;
  requestId: string;
  /** The record the store refused (a Settlement or a RequestLogEntry). */
  record: unknown;
  error: unknown;
}

/** Options of a DurableWriter. */
export interface DurableWriterOptions {
  /** Delay before the first retry, in ms; doubles up to `maxDelayMs`. Default: 50. */
  baseDelayMs?: number;
  /** Longest delay between retries, in ms. Default: 5000. */
  maxDelayMs?: number;
  /** A write that takes longer than this is treated as failed and tried again (writes are idempotent). Default: 10000. */
  attemptTimeoutMs?: number;
  /**
   * Attempts before a write is set aside (with the defaults, about two minutes of retries: a
   * database restart or failover is waited out). Default: 30.
   */
  maxAttempts?: number;
  /** Called on every failed attempt (for the host's own alerting). Default: none. */
  onError?: (err: unknown, attempt: number) => void;
  /** Receives each write set aside, with its whole record, so an operator can replay it. Default: one line on stderr. */
  onSetAside?: (write: SetAsideWrite) => void;
}

/** Calls `write` once: its result, or a rejected promise when it threw. */
function attempt(write: () => unknown): unknown {
  try {
    return write();
  } catch (err) {
    return Promise.reject(err);
  }
}

/** The default of `onSetAside`: one line on stderr with the whole record. */
export const reportToStderr = (write: SetAsideWrite): void => {
  console.error(`model-gateway: ${write.kind} of ${write.requestId} set aside after repeated failures (${String(write.error)}): ${JSON.stringify(write.record)}`);
};

/** Runs writes until they succeed or run out of attempts; `flush()` waits for every pending write. */
export class DurableWriter {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly base: number;
  private readonly max: number;
  private readonly timeout: number;
  private readonly attempts: number;
  private readonly onSetAside: (write: SetAsideWrite) => void;

  constructor(private readonly options: DurableWriterOptions = {}) {
    const policy = withDefaults(GATEWAY_DEFAULTS.writes, options);
    this.base = policy.baseDelayMs;
    this.max = policy.maxDelayMs;
    this.timeout = policy.attemptTimeoutMs;
    this.attempts = policy.maxAttempts;
    this.onSetAside = options.onSetAside ?? reportToStderr;
    if (!Number.isSafeInteger(this.attempts) || this.attempts < 1) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', 'option "writes.maxAttempts" must be a positive integer.');
  }

  /** Number of writes not yet done. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Runs `write` now and again after each failure, until it succeeds or `maxAttempts` failed
   * (then `what` is set aside). Returns undefined when a synchronous write succeeded at once,
   * else a promise of whether it was stored (false: set aside).
   */
  run(write: () => unknown, what: Omit<SetAsideWrite, 'error'>): Promise<boolean> | undefined {
    const first = attempt(write);
    if (!isThenable(first)) return undefined; // a synchronous store that succeeded: no timer, no tracking
    const promise = this.retry(write, Promise.resolve(first), what).finally(() => this.pending.delete(promise));
    this.pending.add(promise);
    return promise;
  }

  private async retry(write: () => unknown, first: Promise<unknown>, what: Omit<SetAsideWrite, 'error'>): Promise<boolean> {
    let out = first;
    for (let n = 1; ; n++) {
      try {
        await withTimeout(out, this.timeout, 'store write');
        return true;
      } catch (err) {
        this.options.onError?.(err, n);
        if (n >= this.attempts) {
          try {
            this.onSetAside({ ...what, error: err });
          } catch {
            // a hook that throws changes nothing
          }
          return false;
        }
        await new Promise((r) => setTimeout(r, Math.min(this.max, this.base * 2 ** (n - 1))));
      }
      out = Promise.resolve(attempt(write));
    }
  }

  /** Counts `work` as pending until it settles, so that flush() waits for it too. */
  track(work: PromiseLike<unknown>): void {
    const promise = Promise.resolve(work).then(() => undefined, () => undefined).finally(() => this.pending.delete(promise));
    this.pending.add(promise);
  }

  /** Resolves when every write started so far has succeeded or been set aside. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
