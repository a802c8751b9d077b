/** Keeps an adapter's own key out of every error detail it produces. */
import { GatewayError } from '../errors';

/** A function that replaces every occurrence of `secret` (if any) with "[redacted]". */
export function redactor(secret: string | undefined): (text: string) => string {
  if (!secret) return (text) => text;
  return (text) => text.split(secret).join('[redacted]');
}

/** The same iteration, with every error passed through `clean` (a thin wrapper: no generator step per item). */
function guardIterator(source: AsyncIterable<unknown>, clean: (err: unknown) => unknown): AsyncIterableIterator<unknown> {
  const inner = source[Symbol.asyncIterator]();
  const rethrow = (err: unknown): never => { throw clean(err); };
  return {
    next: (...value: [] | [unknown]) => inner.next(...value).catch(rethrow),
    return: (value?: unknown) => (inner.return ? inner.return(value).catch(rethrow) : Promise.resolve({ done: true as const, value })),
    throw: (err?: unknown) => (inner.throw ? inner.throw(err).catch(rethrow) : Promise.reject(clean(err))),
    [Symbol.asyncIterator]() { return this; },
  };
}

/** Wraps an adapter so that every error it throws carries a detail with its key redacted. */
export function guardAdapter<T extends object>(adapter: T, redact: (text: string) => string): T {
  const clean = (err: unknown): unknown => (err instanceof GatewayError && err.detail
    ? new GatewayError(err.code, err.message, { detail: redact(err.detail), retryAfter: err.retryAfter, cause: err })
    : err);
  const wrapped: Record<string, unknown> = { ...(adapter as Record<string, unknown>) };
  for (const [name, fn] of Object.entries(adapter)) {
    if (typeof fn !== 'function') continue;
    wrapped[name] = function guarded(this: unknown, ...args: unknown[]) {
      const out = (fn as (...a: unknown[]) => unknown).apply(this, args);
      if (out instanceof Promise) return out.catch((err: unknown) => { throw clean(err); });
      if (out && typeof out === 'object' && Symbol.asyncIterator in out) return guardIterator(out as AsyncIterable<unknown>, clean);
      return out;
    };
  }
  return Object.freeze(wrapped) as T;
}
