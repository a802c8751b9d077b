/** Domain types shared by middlewares, adapters and stores: callers, rerank (usage and prices: lib/billing/figures.ts). The Messages types live in lib/messages. */
import type { LimitSettings } from './schemas/shapes';

/** Usage and prices: their one definition is the figure table (lib/billing/figures.ts). */
export type { Price, Pricing, Usage, UsageFigures, UsageProvenance } from './billing/figures';

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
