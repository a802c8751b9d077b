/** Domain types shared by middlewares, adapters and stores: callers, usage, prices, wire shapes. */

/** What a model can be used for; each endpoint needs one. */
export type Capability = 'llm' | 'rerank';

/** Per-caller limits; `undefined` or 0 means unlimited. */
export interface LimitSettings {
  /** Requests per minute. */
  rpm?: number;
  /** Tokens per minute (estimated at admission, corrected at settle). */
  tpm?: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

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

/** Usage in the gateway's own shape. Token figures are only ever what the upstream reported. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  /** Non-token units reported by the upstream (Cohere search units). */
  searchUnits: number;
  provenance: UsageProvenance;
}

/**
 * A price in minor units (e.g. cents) per million tokens: a whole number, or a decimal with at most
 * 6 decimals given as a number or a string (300, 0.25, "0.125").
 */
export type Price = number | string;

/** Prices in minor units per million tokens; costs are exact (see README, Billing). */
export interface Pricing {
  /** Per million input tokens. */
  input: Price;
  /** Per million output tokens. Default: 0 (rerank has none). */
  output?: Price;
  /** Per million cache-read input tokens. Default: `input`. */
  cacheRead?: Price;
  /** Per million cache-write input tokens. Default: `input`. */
  cacheWrite?: Price;
}

/** A text block of the Messages API. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** One turn of a conversation. */
export interface MessageParam {
  role: 'user' | 'assistant';
  content: string | TextBlock[];
}

/** A validated Messages request (V1: text only). */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlock[];
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  metadata?: { user_id?: string | null };
}

/** Usage block of a Messages response. */
export interface MessageUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
}

/** A Messages API response object. */
export interface MessageResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Array<{ type: 'text'; text: string }>;
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: MessageUsage;
}

/** One event of an Anthropic-format stream; `type` equals the SSE event name. */
export interface StreamEvent {
  type: string;
  [field: string]: unknown;
}

/** What a Messages adapter's stream yields: one event, or several (those of one upstream read) at once. */
export type StreamItem = StreamEvent | readonly StreamEvent[];

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
