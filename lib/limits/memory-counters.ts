/** In-process limit counters that answer at once: fixed windows for rpm and tpm. */
import { ADMITTED, type Counter, type Taken } from './counter';

interface Window {
  used: number;
  /** Epoch ms at which the window ends and its points are forgotten. */
  endsAt: number;
}

/**
 * Fixed windows of `durationMs` per key, as rate-limiter-flexible's memory limiter keeps them:
 * a key's window starts with its first points and ends `durationMs` later. Unlike it, refused
 * points are not counted (a refused request takes nothing), and nothing is a promise.
 */
export class WindowCounter implements Counter {
  private readonly windows = new Map<string, Window>();
  /** Map size at which the next new window first drops the ended ones. */
  private sweepAt = 1024;

  constructor(private readonly limit: number, private readonly durationMs: number) {}

  take(key: string, points: number): Taken {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) window = this.open(key, now);
    if (window.used + points > this.limit) return { ok: false, retryMs: window.endsAt - now };
    window.used += points;
    return ADMITTED;
  }

  /** Gives points back to a window still open (never below zero); an ended window has none left to give. */
  give(key: string, points: number): void {
    const window = this.windows.get(key);
    if (window && window.endsAt > Date.now()) window.used = Math.max(0, window.used - points);
  }

  /** Adds points beyond the limit if need be (confirmed usage above the estimate). */
  add(key: string, points: number): void {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) window = this.open(key, now);
    window.used += points;
  }

  private open(key: string, now: number): Window {
    if (this.windows.size >= this.sweepAt) {
      for (const [k, w] of this.windows) if (w.endsAt <= now) this.windows.delete(k);
      this.sweepAt = Math.max(1024, this.windows.size * 2);
    }
    const window = { used: 0, endsAt: now + this.durationMs };
    this.windows.set(key, window);
    return window;
  }
}
