/** Public GatewayOptions, resolved once into a frozen internal config (checks name the option and the fix). */
import { GatewayConfigError } from './foundation/config-errors';
import { checkKnownOptions } from './foundation/check-options';
import { DurableWriter, reportToStderr, type DurableWriterOptions, type SetAsideWrite } from './billing/durable';
import { defaultEstimator, type Estimator } from './billing/estimate';
import { createCatalog, type Catalog, type ModelEntry } from './catalog/catalog';
import { GATEWAY_DEFAULTS, withDefaults } from './foundation/defaults';
import { checkDuration } from './foundation/duration';
import type { LimitsOptions } from './middleware/limits';
import type { SettledRecord } from './middleware/billing-hook';
import type { RerankBounds } from './schemas/rerank';
import { loggingObserver, type LoggerLike } from './observe/logger';
import type { GatewayMetrics } from './observe/metrics';
import { combineObservers, type GatewayObserver } from './observe/observer';
import { checkKeepAliveMs } from './wire/keep-alive';
import { observedStore } from './observe/observed-store';
import { resolveResponses, type ResolvedResponses, type ResponsesOptions } from './responses-options';
import type { GatewayStore } from './stores/types';
import type { BoundSettings } from './billing/bound';

/** Budgets on the request path (docs/budgets.md): the clock periods are read on, and what a request's bound counts for media and server tools. */
export interface BudgetOptions extends Partial<BoundSettings> {
  /** The clock that puts requests in their budgets' periods and ends keys, epoch ms. Default: Date.now. */
  clock?: () => number;
}

/** Options of createGatewayRouter(). */
export interface GatewayOptions {
  /** Keys, balances, holds, settlements and the request log. Required (e.g. `new MemoryStore()`). */
  store: GatewayStore;
  /** The model catalog. Required, at least one model. */
  models: readonly ModelEntry[];
  /** Accepted `anthropic-version` / `compat-version` dates. Default: ["2023-01-01", "2023-06-01", "2026-10-21"]. */
  versions?: readonly string[];
  /** Largest request body. Default: "32mb". */
  bodyLimit?: number | string;
  /** Per-caller limits and their backend. Default: unlimited, in memory. */
  limits?: LimitsOptions;
  /** Lease of a balance hold, renewed while its request lives; a dead instance's holds come back after it (ms). Default: 60000. */
  holdLeaseMs?: number;
  /** Admission estimate (never billed). Default: defaultEstimator. */
  estimator?: Estimator;
  /** Observes every settled request. Default: none. */
  onSettled?: (record: SettledRecord) => unknown;
  /** Bounds of rerank bodies. Default: 1000 documents of at most 100000 characters, query at most 10000. */
  rerank?: RerankBounds;
  /** Answer unknown paths under /v1 and /v2 with 404 `not_found_error`. Default: true. */
  notFound?: boolean;
  /** Longest wait for a key lookup or a reserve, in ms. Default: 5000. */
  storeTimeoutMs?: number;
  /** Admit requests without a hold when the balance store fails (see reserve()). Default: false (fail closed). */
  failOpen?: boolean;
  /** Retry policy of settle and log writes. Default: 50 ms doubling to 5 s, 10 s per attempt. */
  writes?: DurableWriterOptions;
  /** A pino-compatible logger: one line per finished request, failures with their cause. Default: none (silent). */
  logger?: LoggerLike;
  /** Prometheus metrics from createMetrics(); mount `metrics.handler()` yourself. Default: none. */
  metrics?: GatewayMetrics;
  /** More observers of finished requests and store calls, e.g. otelObserver(meter). Default: none. */
  observers?: readonly GatewayObserver[];
  /** Longest silence on a client stream before a keep-alive (a `ping` event; a comment for chat), in ms. Default: 15000. */
  keepAliveMs?: number;
  /** Storing Responses API responses: `{ store, retentionDays, maxBytes }`. Default: off (an operator's choice: stored prompts are kept data). */
  responses?: ResponsesOptions;
  /** Budgets: the bound's tokens per image and per non-text document, web searches per tool and tokens per search, the clock. Default: GATEWAY_DEFAULTS.budgets, Date.now. */
  budgets?: BudgetOptions;
}

/** The resolved, frozen configuration the router is built from: complete, every default taken from GATEWAY_DEFAULTS. */
export interface ResolvedConfig {
  readonly store: GatewayStore;
  readonly catalog: Catalog;
  readonly versions: readonly string[];
  readonly bodyLimit: number | string;
  readonly limits: Readonly<LimitsOptions & Required<Pick<LimitsOptions, 'keyPrefix' | 'windowSec' | 'slotLeaseMs' | 'estimator' | 'failOpen'>>>;
  readonly holdLeaseMs: number;
  readonly estimator: Estimator;
  readonly onSettled: ((record: SettledRecord) => unknown) | undefined;
  readonly rerank: Readonly<Required<RerankBounds>>;
  readonly notFound: boolean;
  readonly storeTimeoutMs: number;
  readonly failOpen: boolean;
  readonly writer: DurableWriter;
  /** Logs and metrics, told of every finished request and store call. */
  readonly observer: GatewayObserver | undefined;
  readonly metrics: GatewayMetrics | undefined;
  readonly keepAliveMs: number;
  /** The response store (undefined when off), retention and size bound, for the Responses routes. */
  readonly responses: ResolvedResponses;
  readonly budgets: Readonly<BoundSettings & { clock: () => number }>;
}

const STORE_METHODS = ['findCaller', 'reserve', 'renewHolds', 'settle', 'release', 'appendLog'] as const;

/** Every option's name: a record, so the compiler checks it against GatewayOptions both ways. */
export const OPTION_NAMES = Object.keys({
  store: true, models: true, versions: true, bodyLimit: true, limits: true, holdLeaseMs: true, estimator: true, onSettled: true, rerank: true,
  notFound: true, storeTimeoutMs: true, failOpen: true, writes: true, logger: true, metrics: true, observers: true, keepAliveMs: true, responses: true,
  budgets: true,
} satisfies Record<keyof GatewayOptions, true>);

/** Checks and freezes the options; the caller's object is never modified. */
export function resolveOptions(options: GatewayOptions): ResolvedConfig {
  if (!options || typeof options !== 'object') throw new GatewayConfigError('ERR_MGW_MISSING_OPTION', 'createGatewayRouter: pass an options object { store, models }.');
  checkKnownOptions('createGatewayRouter', options, OPTION_NAMES);
  const store = options.store;
  const missing = STORE_METHODS.filter((m) => typeof (store as unknown as Record<string, unknown> | undefined)?.[m] !== 'function');
  if (missing.length > 0) {
    throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', `createGatewayRouter: option "store" must implement ${missing.join(', ')} (use new MemoryStore() or PostgresStore, or see "Writing your own store").`);
  }
  const catalog = createCatalog(options.models);
  const responses = resolveResponses(options.responses, store);
  if (options.onSettled !== undefined && typeof options.onSettled !== 'function') {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createGatewayRouter: option "onSettled" must be a function (record) => void.');
  }
  if (options.estimator !== undefined && typeof options.estimator !== 'function') {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createGatewayRouter: option "estimator" must be a function (body) => { inputTokens, outputTokens }.');
  }
  if (options.metrics !== undefined && typeof options.metrics?.requestFinished !== 'function') {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createGatewayRouter: option "metrics" must come from createMetrics().');
  }
  if (options.observers !== undefined && (!Array.isArray(options.observers) || options.observers.some((o) => typeof o !== 'object' || o === null))) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createGatewayRouter: option "observers" must be an array of observers (e.g. [otelObserver(meter)]).');
  }
  const observer = combineObservers([options.logger ? loggingObserver(options.logger) : undefined, options.metrics, ...(options.observers ?? [])]);
  const writes = options.writes ?? {};
  const onSetAside = observer?.writeSetAside && ((write: SetAsideWrite): void => {
    observer.writeSetAside?.(write.kind, write.requestId, write.error);
    (writes.onSetAside ?? reportToStderr)(write);
  });
  const estimator = options.estimator ?? defaultEstimator;
  const clock = options.budgets?.clock ?? Date.now;
  if (typeof clock !== 'function') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createGatewayRouter: option "budgets.clock" must be a function returning epoch milliseconds.');
  return Object.freeze({
    store: observer ? observedStore(store, observer) : store,
    catalog,
    versions: options.versions ? Object.freeze([...options.versions]) : GATEWAY_DEFAULTS.versions,
    bodyLimit: options.bodyLimit ?? GATEWAY_DEFAULTS.bodyLimit,
    limits: withDefaults({ ...GATEWAY_DEFAULTS.limits, estimator }, options.limits),
    holdLeaseMs: checkDuration(options.holdLeaseMs ?? GATEWAY_DEFAULTS.holdLeaseMs, 'createGatewayRouter: option "holdLeaseMs"', { min: 100 }),
    estimator,
    onSettled: options.onSettled,
    rerank: withDefaults(GATEWAY_DEFAULTS.rerank, options.rerank),
    notFound: options.notFound ?? GATEWAY_DEFAULTS.notFound,
    storeTimeoutMs: checkDuration(options.storeTimeoutMs ?? GATEWAY_DEFAULTS.storeTimeoutMs, 'createGatewayRouter: option "storeTimeoutMs"'),
    failOpen: (options.failOpen ?? GATEWAY_DEFAULTS.failOpen) === true,
    writer: new DurableWriter(onSetAside ? { ...writes, onSetAside } : writes),
    observer,
    metrics: options.metrics,
    keepAliveMs: checkKeepAliveMs(options.keepAliveMs, 'createGatewayRouter'),
    responses,
    budgets: Object.freeze({ ...withDefaults(GATEWAY_DEFAULTS.budgets, { ...options.budgets, clock: undefined }), clock }),
  });
}
