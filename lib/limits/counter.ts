/** The counter behind one limit: take points at admission, give them back or add more once usage is known. */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** The answer to take(): admitted, or refused with the wait until the points may fit. */
export interface Taken {
  readonly ok: boolean;
  /** Milliseconds until the points may fit (0 when admitted). */
  readonly retryMs: number;
}

/**
 * One limit's counters, keyed by caller id. In-process counters answer at once; Redis ones with
 * a promise. A failure (thrown or rejected) means the backend is unavailable, never a refusal.
 */
export interface Counter {
  /** Takes `points` for `key` when they fit under the limit; refused points are not counted. */
  take(key: string, points: number): Taken | Promise<Taken>;
  /** Gives points back (a finished request's slot, tokens estimated but not used). */
  give(key: string, points: number): unknown;
  /** Adds points (tokens used beyond the estimate), even past the limit. */
  add(key: string, points: number): unknown;
}

/** What take() returns when the points fit: one shared object, nothing allocated per request. */
export const ADMITTED: Taken = Object.freeze({ ok: true, retryMs: 0 });

/**
 * A rate-limiter-flexible limiter (Redis: one atomic script per call, shared by every instance)
 * as a Counter. rate-limiter-flexible counts refused points; they are given back, so a refused
 * request neither spends a window's budget nor keeps a concurrency slot until its expiry.
 */
export class LibraryCounter implements Counter {
  constructor(private readonly limiter: RateLimiterAbstract) {}

  async take(key: string, points: number): Promise<Taken> {
    try {
      await this.limiter.consume(key, points);
      return ADMITTED;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      await this.limiter.reward(key, points);
      return { ok: false, retryMs: err.msBeforeNext };
    }
  }

  give(key: string, points: number): Promise<unknown> {
    return this.limiter.reward(key, points);
  }

  add(key: string, points: number): Promise<unknown> {
    return this.limiter.penalty(key, points);
  }
}
