/** Domain types shared by middlewares, adapters and stores: callers, rerank (usage and prices: lib/billing/figures.ts). The Messages types live in lib/messages. */
import type { BudgetLimits, RunKeyGrant } from './schemas/budgets';
import type { LimitSettings } from './schemas/shapes';

/** Usage and prices: their one definition is the figure table (lib/billing/figures.ts). */
export type { Price, Pricing, Usage, UsageFigures, UsageProvenance } from './billing/figures';

/** What a model can be used for; each endpoint needs one (the list: CAPABILITIES, lib/schemas/shapes.ts). */
export type { Capability } from './schemas/shapes';

/** Per-caller limits (rpm, tpm, concurrency); `undefined` or 0 means unlimited. Its one JSON Schema: lib/schemas/shapes.ts. */
export type { LimitSettings } from './schemas/shapes';

/** A budget's caps and templates, its period, a run-key grant (their one JSON Schema: lib/schemas/budgets.ts). */
export type { Budget, BudgetCap, BudgetLimits, BudgetPeriod, RunKeyGrant, ScopeKind } from './schemas/budgets';

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
  /** The key that authenticated it (built-in stores set it). */
  keyId?: string;
  /** Epoch ms after which the key no longer works (a run key's end, a rotated key's): checked on every request, however long the lookup is cached. */
  expiresAt?: number;
  /** The budgets on this caller's path, widest first (organisation, account, parent key, key or run key). None: no budget applies. */
  budgets?: readonly ScopeBudget[];
  /** What this key may mint (run keys); none: it mints nothing. */
  runKeys?: RunKeyGrant;
  /** A run key's parent key. */
  parentKeyId?: string;
}

/** A budget on a caller's path: its scope (`org:<id>`, `account:<callerId>`, `key:<keyId>`, `run:<keyId>`) and its caps. */
export interface ScopeBudget {
  scope: string;
  limits: BudgetLimits;
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
