/** The model catalog, checked and indexed once at construction. */
import { GatewayConfigError } from '../foundation/config-errors';
import { GatewayError } from '../foundation/errors';
import type { UpstreamFormat } from '../billing/figures';
import { pricingProblem } from '../billing/pricing';
import { ModelNames, nameProblem } from './names';
import type { Capability, Caller, Pricing } from '../types';
import { formatsOf } from '../upstreams/failover';
import { leavesOf } from '../upstreams/members';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';

/** One model in the catalog. */
export interface ModelEntry {
  /** Public name callers use: the name the log, the bill, allow-lists and `/v1/models` know it by. */
  id: string;
  /** More names callers may ask for it by (exact: `claude-opus-4-8[1m]`); each unique across the catalog. Default: none. */
  aliases?: readonly string[];
  /**
   * Name patterns it also answers (`*`: any run of characters, `claude-opus-*`), tried after every
   * id and alias, the most specific (most characters besides `*`) first. Default: none.
   */
  patterns?: readonly string[];
  capability: Capability;
  /** The adapter that reaches the upstream (its kind must match the capability), or a failover() group. */
  upstream: MessagesAdapter | RerankAdapter;
  /** Name sent upstream (a failover() member's own `upstreamModel` wins for that member). Default: `id`. */
  upstreamModel?: string;
  /**
   * Price (a failover() member's own `pricing` wins for the requests it serves); required unless
   * `free: true` or every member carries its own.
   */
  pricing?: Pricing;
  /** Marks a model as deliberately free of charge. Default: false. */
  free?: boolean;
  /** Whether the target model accepts `temperature`; when false it is dropped. Default: true. */
  temperature?: boolean;
  /** Largest `max_tokens` accepted. Default: no bound beyond the schema. */
  maxOutputTokens?: number;
  /**
   * A `max_tokens` over `maxOutputTokens` is lowered to it (noted in the log entry's `detail`)
   * instead of refused: Claude Code asks for 32000 whatever the model. Default: false.
   */
  clampMaxTokens?: boolean;
  /**
   * For an agent-ready model whose upstream speaks Anthropic's format (or a failover() group with
   * such a member): a request that carries no `cache_control` anywhere gets the gateway's own cache
   * breakpoints (tools and system, the latest turns). `false` sends such requests as they are. Default: true.
   */
  autoCache?: boolean;
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

/**
 * How a model's requests are handled, computed once from its entry and read wherever its contract
 * matters (validation, the upstream request, forwarded headers, count_tokens, the model list).
 */
export interface ModelProfile {
  /** The body profile validate() checks: the whole Messages contract, or V1's plain text. */
  readonly contract: 'agent' | 'v1';
  /** The body reaches the adapter whole, every field as sent (V1: its own fields, `stream` left to the adapter). */
  readonly passThrough: boolean;
  /** Request headers forwarded upstream as the caller sent them. */
  readonly forwardHeaders: readonly string[];
  /** The gateway places cache breakpoints on a request that carries none (lib/messages/cache-breakpoints.ts). */
  readonly autoCache: boolean;
  /** A `max_tokens` over `maxOutputTokens` is lowered to it instead of refused. */
  readonly clampMaxTokens: boolean;
  /** The output bound of a request that names none (chat, Responses): the model's `maxOutputTokens`, else DEFAULT_MAX_TOKENS. */
  readonly defaultMaxTokens: number;
}

/** Output bound of a chat or Responses request that names none, for a model without `maxOutputTokens`. */
export const DEFAULT_MAX_TOKENS = 4096;

/** The profile of a plain-text model, and of a body whose model is not known (yet). */
export const V1_PROFILE: ModelProfile = Object.freeze({
  contract: 'v1', passThrough: false, forwardHeaders: Object.freeze([]), autoCache: false, clampMaxTokens: false, defaultMaxTokens: DEFAULT_MAX_TOKENS,
});

/** Headers an agent-ready model's call forwards upstream as the caller sent them. */
const AGENT_HEADERS = Object.freeze(['anthropic-version', 'anthropic-beta']);

const profiles = new WeakMap<Readonly<ModelEntry>, ModelProfile>();

function profileFrom(model: Readonly<ModelEntry>): ModelProfile {
  const clampMaxTokens = model.clampMaxTokens === true && model.maxOutputTokens !== undefined;
  const defaultMaxTokens = model.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  if (model.agentReady !== true) return clampMaxTokens || defaultMaxTokens !== DEFAULT_MAX_TOKENS ? Object.freeze({ ...V1_PROFILE, clampMaxTokens, defaultMaxTokens }) : V1_PROFILE;
  const anthropic = model.upstream.kind === 'messages' && formatsOf(model.upstream).includes('anthropic');
  return Object.freeze({ contract: 'agent', passThrough: true, forwardHeaders: AGENT_HEADERS, autoCache: anthropic && model.autoCache !== false, clampMaxTokens, defaultMaxTokens });
}

/** The profile of a model: made once per entry (the catalog's entries at construction, any other at first use). */
export function profileOf(model: Readonly<ModelEntry>): ModelProfile {
  let profile = profiles.get(model);
  if (!profile) profiles.set(model, (profile = profileFrom(model)));
  return profile;
}

/** A checked, frozen, indexed catalog. */
export interface Catalog {
  readonly models: readonly Readonly<ModelEntry>[];
  readonly byId: ReadonlyMap<string, Readonly<ModelEntry>>;
  /** The model a requested name resolves to: its id, else an alias, else the most specific pattern that matches (lib/catalog/names.ts). */
  resolve(name: string): Readonly<ModelEntry> | undefined;
}

const ADAPTER_KIND: Readonly<Record<Capability, string>> = { llm: 'messages', rerank: 'rerank' };
const built = new WeakMap<readonly ModelEntry[], Catalog>();

function check(entry: ModelEntry, i: number): Readonly<ModelEntry> {
  const at = `models[${i}]`;
  const fail = (message: string): never => { throw new GatewayConfigError('ERR_MGW_CATALOG_INVALID_MODEL', `${at}: ${message}`); };
  if (!entry || typeof entry !== 'object') fail('must be an object like { id, capability, upstream, pricing }.');
  if (typeof entry.id !== 'string' || entry.id.length === 0) fail('"id" must be a non-empty string.');
  if (entry.capability !== 'llm' && entry.capability !== 'rerank') fail(`"capability" of "${entry.id}" must be "llm" or "rerank".`);
  const kind = ADAPTER_KIND[entry.capability];
  if (!entry.upstream || entry.upstream.kind !== kind) {
    fail(`"upstream" of "${entry.id}" must be a ${kind} adapter (e.g. ${kind === 'messages' ? 'anthropicAdapter(…) or openaiChatAdapter(…)' : 'cohereAdapter(…)'}).`);
  }
  const ownPrices = leavesOf(entry.upstream).every((leaf) => leaf.pricing !== undefined);
  if (entry.pricing === undefined && entry.free !== true && !ownPrices) {
    fail(`"${entry.id}" has no "pricing"; set pricing (minor units per million tokens) or mark it { free: true } on purpose.`);
  }
  if (entry.pricing !== undefined) {
    const problem = pricingProblem(entry.pricing);
    if (problem) fail(`"${entry.id}": ${problem}.`);
    if (ownPrices) fail(`"pricing" of "${entry.id}" is charged by no request: every member of its failover group carries its own; remove it (or a member's).`);
  }
  for (const kind of ['aliases', 'patterns'] as const) {
    const names = entry[kind];
    if (names === undefined) continue;
    if (!Array.isArray(names)) fail(`"${kind}" of "${entry.id}" must be a list of names.`);
    for (const [n, name] of names.entries()) {
      const problem = nameProblem(name, kind === 'aliases' ? 'alias' : 'pattern');
      if (problem) fail(`${kind}[${n}] of "${entry.id}": ${problem}.`);
    }
  }
  if (entry.maxOutputTokens !== undefined && (!Number.isSafeInteger(entry.maxOutputTokens) || entry.maxOutputTokens < 1)) {
    fail(`"maxOutputTokens" of "${entry.id}" must be a positive integer.`);
  }
  for (const flag of ['agentReady', 'clampMaxTokens', 'autoCache'] as const) {
    if (entry[flag] !== undefined && typeof entry[flag] !== 'boolean') fail(`"${flag}" of "${entry.id}" must be true or false.`);
  }
  if (entry.clampMaxTokens === true && entry.maxOutputTokens === undefined) fail(`"clampMaxTokens" of "${entry.id}" needs "maxOutputTokens" (the bound max_tokens is lowered to).`);
  if (entry.agentReady === true && entry.capability !== 'llm') fail(`"agentReady" of "${entry.id}": only an llm model takes the agent contract; remove it.`);
  if (entry.createdAt !== undefined && Number.isNaN(Date.parse(entry.createdAt))) fail(`"createdAt" of "${entry.id}" must be an RFC 3339 date.`);
  const names = (list: readonly string[] | undefined) => list && Object.freeze([...list]);
  const checked = Object.freeze({ ...entry, pricing: entry.pricing && Object.freeze({ ...entry.pricing }), aliases: names(entry.aliases), patterns: names(entry.patterns) });
  profileOf(checked);
  return checked;
}

/** Checks a list of models (failing with a message that names the entry and the fix) and indexes it. */
export function createCatalog(models: readonly ModelEntry[] | Catalog): Catalog {
  if (!Array.isArray(models)) {
    const given = models as Catalog | undefined;
    if (given && given.byId instanceof Map) return typeof given.resolve === 'function' ? given : createCatalog([...given.models]);
    throw new GatewayConfigError('ERR_MGW_CATALOG_EMPTY', 'option "models" must be a non-empty array of { id, capability, upstream, pricing }.');
  }
  const cached = built.get(models);
  if (cached) return cached;
  if (models.length === 0) throw new GatewayConfigError('ERR_MGW_CATALOG_EMPTY', 'option "models" must list at least one model.');
  const list = models.map(check);
  const byId = new Map<string, Readonly<ModelEntry>>();
  for (const model of list) {
    if (byId.has(model.id)) throw new GatewayConfigError('ERR_MGW_CATALOG_DUPLICATE_ID', `option "models": the id "${model.id}" is listed twice; ids must be unique.`);
    byId.set(model.id, model);
  }
  const names = new ModelNames(byId);
  const catalog: Catalog = Object.freeze({ models: Object.freeze(list), byId, resolve: (name: string) => names.resolve(name) });
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

/** Whether a caller may use a model, by its catalog id (no allow-list means every model; an alias of an allowed model is allowed). */
export function allowed(caller: Caller | undefined, id: string): boolean {
  return !caller?.models || caller.models.includes(id);
}

/** The refusal of a model name the catalog does not resolve for a caller: 404 saying so, and where the names it may use are listed. */
export function modelNotFound(name: string): GatewayError {
  return new GatewayError('not_found_error', `model: ${JSON.stringify(name)} was not found; GET /v1/models lists the models this key can use`);
}
