/** Domain types shared by middlewares, adapters and stores: callers, usage, prices, rerank. The Messages types live in lib/messages. */
import type { PriceField, UsageFigureName } from './billing/figures';
import type { LimitSettings } from './schemas/shapes';

/** What a model can be used for; each endpoint needs one (the list: CAPABILITIES, lib/schemas/shapes.ts). */
export type { Capability } from './schemas/shapes';

/** Per-caller limits (rpm, tpm, concurrency); `undefined` or 0 means unlimited. Its one JSON Schema: lib/schemas/shapes.ts. */
export type { LimitSettings } from './schemas/shapes';

/** An authenticated caller, as the key store returns it. */
export interface Caller {
  /** Stable id of the caller (the billing account). */
  id: string;
  /** Model ids this caller may use. Default: every model in the catalog. */
  models?: readonly string[];
  /** Limits that override the router's default limits for this caller. */
  limits?: LimitSettings;
  /** A disabled caller is refused with 401. Default: false. */
  disabled?: boolean;
}

/**
 * Where the usage figures came from:
 * - `confirmed`: the upstream reported the final usage of the whole request;
 * - `partial`: a stream ended before the final usage; only the figures reported so far are known;
 * - `units_only`: the upstream reported only non-token units (e.g. Cohere `search_units`);
 * - `none`: the upstream reported nothing (e.g. TEI, or a failure before any usage);
 * - `implausible`: a figure beyond any real request (over 10^9, or output over `max_tokens`), kept as observed.
 */
export type UsageProvenance = 'confirmed' | 'partial' | 'units_only' | 'none' | 'implausible';

/**
 * Usage in the gateway's own shape: one count per figure of USAGE_FIGURES (input, cache reads,
 * cache writes of 5 minutes and of 1 hour, output, web searches, search units). Token figures are
 * only ever what the upstream reported.
 */
export interface Usage extends Record<UsageFigureName, number> {
  provenance: UsageProvenance;
}

/**
 * Token and unit figures an adapter may report; each is what the upstream said, never a guess.
 * An upstream that reports cache writes only as a total gives `cacheCreationInputTokens`; the part
 * its 5m/1h breakdown does not cover is billed as 5-minute writes.
 */
export type UsageFigures = Partial<Omit<Usage, 'provenance'>> & { cacheCreationInputTokens?: number };

/**
 * A price in minor units (e.g. cents) per million tokens (per thousand requests for web search):
 * a whole number, or a decimal with at most 6 decimals given as a number or a string (300, 0.25, "0.125").
 */
export type Price = number | string;

/**
 * Prices in minor units per million tokens; costs are exact (see README, Billing). Only `input` is
 * required: cache prices left out default per upstream format (Anthropic: read 0.1×, 5-minute
 * write 1.25×, 1-hour write 2× the input price; OpenAI: read 0.5×, no write fee), `output` to 0,
 * `webSearch` (per thousand requests) to 0.
 */
export type Pricing = { input: Price } & Partial<Record<Exclude<PriceField, 'input'>, Price>>;


/** A validated rerank request. */
export interface RerankRequest {
  model: string;
  query: string;
  documents: string[];
  top_n?: number;
  return_documents?: boolean;
  /** Cohere v2's per-document truncation, passed to Cohere only. */
  max_tokens_per_doc?: number;
  user?: string;
}

/** One ranked document. `document` is present only when `return_documents` was true. */
export interface RerankResult {
  index: number;
  relevance_score: number;
  document?: { text: string };
}
