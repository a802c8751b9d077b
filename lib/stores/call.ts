/** Calls a store method that may answer at once or with a promise, bounded in time. */
import { GATEWAY_DEFAULTS } from '../foundation/defaults';
import { withTimeout } from '../foundation/timeout';
import { isThenable, type Awaitable } from '../foundation/sync';

/** Longest wait for a store call on the request path, in ms. */
export const DEFAULT_STORE_TIMEOUT_MS = GATEWAY_DEFAULTS.storeTimeoutMs;

/**
 * Runs `call` and hands its answer to `done`, or what it threw, rejected or a timeout to
 * `failed`, with the call itself when it may still take effect (a timeout). A synchronous store
 * (MemoryStore) is answered in the same tick, with no promise or timer.
 */
export function callStore<T>(call: () => Awaitable<T>, timeoutMs: number, what: string, done: (value: T) => void, failed: (err: unknown, call?: Promise<T>) => void): void {
  let out: Awaitable<T>;
  try {
    out = call();
  } catch (err) {
    failed(err);
    return;
  }
  if (!isThenable(out)) {
    done(out);
    return;
  }
  const pending = Promise.resolve(out);
  withTimeout(pending, timeoutMs, what).then(done, (err: unknown) => failed(err, pending));
}
