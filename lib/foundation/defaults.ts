/**
 * Every default of createGatewayRouter's options (and of an adapter's HTTP options), written once
 * and frozen: the factories, resolveOptions() and the binary read them here, and a test checks the
 * README's option tables against them. A leaf: it imports nothing in lib.
 */

/** Object.freeze with the values' types widened (a default is a number, not the literal 60000). */
const frozen = <T>(value: T): Readonly<T> => Object.freeze(value);

/** The defaults of createGatewayRouter(); options left out (store, models, …) have none. */
export const GATEWAY_DEFAULTS = frozen({
  versions: frozen(['2023-01-01', '2023-06-01', '2026-10-21']) as readonly string[],
  bodyLimit: '32mb' as number | string,
  holdLeaseMs: 60_000,
  keepAliveMs: 15_000,
  rerank: frozen({ maxDocuments: 1000, maxDocumentChars: 100_000, maxQueryChars: 10_000 }),
  notFound: true,
  storeTimeoutMs: 5000,
  failOpen: false,
  limits: frozen({ keyPrefix: 'mgw', windowSec: 60, slotLeaseMs: 60_000, failOpen: false }),
  writes: frozen({ baseDelayMs: 50, maxDelayMs: 5000, attemptTimeoutMs: 10_000, maxAttempts: 30 }),
  responses: frozen({ store: false, retentionDays: 30, maxBytes: 1_048_576 }),
  budgets: frozen({ imageTokens: 5_000, documentTokens: 200_000, maxSearches: 1, searchTokens: 25_000 }),
});

/** The defaults of every HTTP adapter's options. */
export const ADAPTER_DEFAULTS = frozen({
  timeouts: frozen({ connectMs: 10_000, firstByteMs: 600_000, idleMs: 60_000 }),
  maxResponseBytes: 32 * 1024 * 1024,
});

/** `given` over `defaults`, a field left out or undefined taking its default; frozen. */
export function withDefaults<D extends object, G extends object>(defaults: D, given: G | undefined): Readonly<D & G> {
  const out = { ...defaults } as Record<string, unknown>;
  for (const [key, value] of Object.entries(given ?? {})) if (value !== undefined) out[key] = value;
  return Object.freeze(out) as D & G;
}
