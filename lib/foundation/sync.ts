/**
 * The one seam between a value and a promise of it. A store may answer at once (MemoryStore: the
 * request goes on in the same tick, no promise made) or later; every "value or promise" in lib is
 * told apart here, so a thenable that is not a native Promise is never taken for a value.
 */

/** A value or a promise (any thenable) of it: every store method may answer either way. */
export type Awaitable<T> = T | PromiseLike<T>;

/** Whether `value` is a promise or any other thenable (an object or function with a `then` method). */
export function isThenable<T>(value: Awaitable<T>): value is PromiseLike<T> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * `onValue(value)` at once when `value` is a value (no promise made); else a native Promise of
 * `onValue` run once the thenable fulfils (`onError` on its rejection, or the rejection passed on).
 */
export function then<T, R>(value: Awaitable<T>, onValue: (value: T) => R, onError?: (err: unknown) => R): R | Promise<Awaited<R>> {
  return isThenable(value) ? Promise.resolve(value).then(onValue, onError) as Promise<Awaited<R>> : onValue(value);
}
