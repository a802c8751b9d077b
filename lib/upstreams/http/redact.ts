/** Keeps an adapter's own key out of every error detail it produces. */
import { GatewayError } from '../../foundation/errors';

/** A function that replaces every occurrence of `secret` (if any) with "[redacted]". */
export function redactor(secret: string | undefined): (text: string) => string {
  if (!secret) return (text) => text;
  return (text) => text.split(secret).join('[redacted]');
}

/** `err` with its detail redacted, when it is a GatewayError with a detail; otherwise `err` itself. */
export function redacted(err: unknown, redact: (text: string) => string): unknown {
  return err instanceof GatewayError && err.detail
    ? new GatewayError(err.code, err.message, {
      detail: redact(err.detail), retryAfter: err.retryAfter, invalidAnswer: err.invalidAnswer, cause: err, ...(err.upstreamMessage === undefined ? {} : { upstreamMessage: redact(err.upstreamMessage) }), upstreamTerms: err.upstreamTerms,
    })
    : err;
}

/**
 * Wraps an adapter's promise-returning methods so that every error they throw carries a detail
 * with the key redacted. A `stream` generator catches and redacts its own errors (one try
 * around its body): wrapping each `next()` cost a promise per step.
 */
export function guardAdapter<T extends object>(adapter: T, redact: (text: string) => string): T {
  const wrapped: Record<string, unknown> = { ...(adapter as Record<string, unknown>) };
  for (const [name, fn] of Object.entries(adapter)) {
    if (typeof fn !== 'function' || name === 'stream') continue;
    wrapped[name] = function guarded(this: unknown, ...args: unknown[]) {
      return (fn as (...a: unknown[]) => Promise<unknown>).apply(this, args).catch((err: unknown) => { throw redacted(err, redact); });
    };
  }
  return Object.freeze(wrapped) as T;
}
