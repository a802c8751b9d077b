/** The model catalog, checked and indexed once at construction. */
import type { UpstreamFormat } from './billing/figures';
import { pricingProblem } from './billing/pricing';
import type { Capability, Caller, Pricing } from './types';
import type { MessagesAdapter, RerankAdapter } from './upstreams/types';

/** One model in the catalog. */
export interface ModelEntry {
  /** Public name callers use. */
  id: string;
  capability: Capability;
  /** The adapter that reaches the upstream (its kind must match the capability). */
  upstream: MessagesAdapter | RerankAdapter;
  /** Name sent upstream. Default: `id`. */
  upstreamModel?: string;
  /** Price; required unless `free: true`. */
  pricing?: Pricing;
  /** Marks a model as deliberately free of charge. Default: false. */
  free?: boolean;
  /** Whether the target model accepts `temperature`; when false it is dropped. Default: true. */
  temperature?: boolean;
  /** Largest `max_tokens` accepted. Default: no bound beyond the schema. */
  maxOutputTokens?: number;
  /** Display name for the model list. Default: `id`. */
  displayName?: string;
  /** Creation time for the model list (RFC 3339). Default: 2025-01-01T00:00:00Z. */
  createdAt?: string;
  /**
   * Takes the whole Messages contract (tools, thinking, images, documents, prompt caching, fields
   * the gateway does not know yet) instead of V1's plain text: Claude Code and agent SDKs run on
   * it. An Anthropic upstream gets the request as sent. Default: false (V1).
   */
  agentReady?: boolean;
}

/** A checked, frozen, indexed catalog. */
export interface Catalog {
  readonly models: readonly Readonly<ModelEntry>[];
  readonly byId: ReadonlyMap<string, Readonly<ModelEntry>>;
}

const ADAPTER_KIND: Readonly<Record<Capability, string>> = { llm: 'messages', rerank: 'rerank' };
const built = new WeakMap<readonly ModelEntry[], Catalog>();

function check(entry: ModelEntry, i: number): Readonly<ModelEntry> {
  const at = `models[${i}]`;
  const fail = (message: string): never => { throw new TypeError(`${at}: ${message}`); };
  if (!entry || typeof entry !== 'object') fail('must be an object like { id, capability, upstream, pricing }.');
  if (typeof entry.id !== 'string' || entry.id.length === 0) fail('"id" must be a non-empty string.');
  if (entry.capability !== 'llm' && entry.capability !== 'rerank') fail(`"capability" of "${entry.id}" must be "llm" or "rerank".`);
  const kind = ADAPTER_KIND[entry.capability];
  if (!entry.upstream || entry.upstream.kind !== kind) {
    fail(`"upstream" of "${entry.id}" must be a ${kind} adapter (e.g. ${kind === 'messages' ? 'anthropicAdapter(…) or openaiChatAdapter(…)' : 'cohereAdapter(…)'}).`);
  }
  if (entry.pricing === undefined && entry.free !== true) {
    fail(`"${entry.id}" has no "pricing"; set pricing (minor units per million tokens) or mark it { free: true } on purpose.`);
  }
  if (entry.pricing !== undefined) {
    const problem = pricingProblem(entry.pricing);
    if (problem) fail(`"${entry.id}": ${problem}.`);
  }
  if (entry.maxOutputTokens !== undefined && (!Number.isSafeInteger(entry.maxOutputTokens) || entry.maxOutputTokens < 1)) {
    fail(`"maxOutputTokens" of "${entry.id}" must be a positive integer.`);
  }
  if (entry.agentReady !== undefined && typeof entry.agentReady !== 'boolean') fail(`"agentReady" of "${entry.id}" must be true or false.`);
  if (entry.agentReady === true && entry.capability !== 'llm') fail(`"agentReady" of "${entry.id}": only an llm model takes the agent contract; remove it.`);
  if (entry.createdAt !== undefined && Number.isNaN(Date.parse(entry.createdAt))) fail(`"createdAt" of "${entry.id}" must be an RFC 3339 date.`);
  return Object.freeze({ ...entry, pricing: entry.pricing && Object.freeze({ ...entry.pricing }) });
}

/** Checks a list of models (failing with a message that names the entry and the fix) and indexes it. */
export function createCatalog(models: readonly ModelEntry[] | Catalog): Catalog {
  if (!Array.isArray(models)) {
    const given = models as Catalog | undefined;
    if (given && given.byId instanceof Map) return given;
    throw new TypeError('option "models" must be a non-empty array of { id, capability, upstream, pricing }.');
  }
  const cached = built.get(models);
  if (cached) return cached;
  if (models.length === 0) throw new TypeError('option "models" must list at least one model.');
  const list = models.map(check);
  const byId = new Map<string, Readonly<ModelEntry>>();
  for (const model of list) {
    if (byId.has(model.id)) throw new TypeError(`option "models": the id "${model.id}" is listed twice; ids must be unique.`);
    byId.set(model.id, model);
  }
  const catalog = Object.freeze({ models: Object.freeze(list), byId });
  built.set(models, catalog);
  return catalog;
}

/**
 * A catalog that can be replaced while it serves: `replace()` checks the new list whole (and
 * throws, naming the entry and the fix, leaving the old one serving) before it swaps. Runtime
 * overrides a store keeps (`overlay()`) are laid over the list it was given, and again over each
 * list that replaces it.
 */
export class LiveCatalog {
  private configured: Catalog;
  private current: Catalog;
  private layer: ((configured: Catalog) => Catalog) | undefined;

  constructor(models: readonly ModelEntry[] | Catalog) {
    this.configured = this.current = createCatalog(models);
  }

  /** The catalog serving now. */
  get(): Catalog {
    return this.current;
  }

  /** The catalog as configured (given or replaced), before any overlay. */
  base(): Catalog {
    return this.configured;
  }

  replace(models: readonly ModelEntry[]): Catalog {
    this.configured = createCatalog(models);
    return this.overlay(this.layer);
  }

  /** Serves `layer(configured)` from now on, and after every replace(); none: the configured catalog. */
  overlay(layer: ((configured: Catalog) => Catalog) | undefined): Catalog {
    this.layer = layer;
    this.current = layer ? layer(this.configured) : this.configured;
    return this.current;
  }
}

/** The models option of a middleware, as a function giving the catalog of the moment. */
export type ModelsOption = readonly ModelEntry[] | Catalog | LiveCatalog;

/** Reads a models option: a live catalog as it is now, anything else checked once. */
export function catalogReader(models: ModelsOption): () => Catalog {
  if (models instanceof LiveCatalog) return () => models.get();
  const fixed = createCatalog(models);
  return () => fixed;
}

/** The wire format of a model's upstream (its adapter's `format`), which sets its default cache prices. */
export function formatOf(model: Readonly<ModelEntry>): UpstreamFormat | undefined {
  return model.upstream.kind === 'messages' ? model.upstream.format : undefined;
}

/** Whether a caller may use a model (no allow-list means every model). */
export function allowed(caller: Caller | undefined, id: string): boolean {
  return !caller?.models || caller.models.includes(id);
}
