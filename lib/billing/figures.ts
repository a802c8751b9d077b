/**
 * Every usage figure the gateway records, defined once: its field in Usage, the price that bills
 * it and per how many units, its name in metrics and spend, and how the upstreams' defaults price
 * it. Usage, Pricing, the catalog's checks, the config and admin schemas, the log, metrics and
 * spend are all derived from this table.
 */

/** The wire format an upstream speaks; it decides the default cache prices (and an agent request's path). */
export type UpstreamFormat = 'anthropic' | 'openai';

/** One figure: `price` is the Pricing field that bills it. */
interface Figure {
  readonly price: string;
  /** Units the price is for: a million tokens, a thousand requests. */
  readonly per: number;
  /** What it counts, in the plural ("tokens", "requests"): the price is per `per` of them. */
  readonly unit: string;
  /**
   * A price left out: `default` bills the figure at its default (0, or a multiple of the input
   * price for cache figures); `review` never bills it: usage of only such figures is flagged for review.
   */
  readonly unset: 'default' | 'review';
  /** Its name in metrics labels and exports. */
  readonly name: string;
  readonly label: string;
  /** Its label where room is short (the dashboard's ledger): "cache read". */
  readonly short: string;
  /** Which tokens it counts, in the GenAI conventions' terms (tpm counts only tokens); null for other units. */
  readonly tokens: 'input' | 'output' | null;
}

const token = (price: string, name: string, label: string, short: string, tokens: 'input' | 'output' = 'input'): Figure => ({ price, per: 1_000_000, unit: 'tokens', unset: 'default', name, label, short, tokens });

export const USAGE_FIGURES = Object.freeze({
  inputTokens: token('input', 'input', 'input tokens', 'input'),
  cacheReadInputTokens: token('cacheRead', 'cache_read', 'cache-read input tokens', 'cache read'),
  cacheWrite5mInputTokens: token('cacheWrite5m', 'cache_write_5m', 'cache-write input tokens (5 minutes)', 'cache write 5m'),
  cacheWrite1hInputTokens: token('cacheWrite1h', 'cache_write_1h', 'cache-write input tokens (1 hour)', 'cache write 1h'),
  outputTokens: token('output', 'output', 'output tokens', 'output', 'output'),
  webSearchRequests: { price: 'webSearch', per: 1_000, unit: 'requests', unset: 'default', name: 'web_search', label: 'web search requests', short: 'web searches', tokens: null },
  // Cohere bills rerank by search units (a query over up to 100 documents), quoted per thousand.
  searchUnits: { price: 'searchUnit', per: 1_000, unit: 'search units', unset: 'review', name: 'search_units', label: 'search units', short: 'search units', tokens: null },
} as const satisfies Record<string, Figure>);

/** The name of a usage figure, e.g. `cacheReadInputTokens`. */
export type UsageFigureName = keyof typeof USAGE_FIGURES;

/** The figures in table order. */
export const FIGURE_NAMES = Object.freeze(Object.keys(USAGE_FIGURES) as UsageFigureName[]);

/** A Pricing field, e.g. `cacheWrite1h`. */
export type PriceField = (typeof USAGE_FIGURES)[UsageFigureName]['price'];

/** The Pricing fields in table order (`input` first). */
export const PRICE_FIELDS: readonly PriceField[] = Object.freeze(FIGURE_NAMES.map((n) => USAGE_FIGURES[n].price));

/** The figure a price field bills. */
export const figureOf = (field: PriceField): Figure => USAGE_FIGURES[FIGURE_NAMES.find((n) => USAGE_FIGURES[n].price === field) as UsageFigureName];

/** Price fields that have no default: a figure of theirs without its price is flagged for review, never billed. */
export const REVIEW_PRICES: readonly PriceField[] = Object.freeze(PRICE_FIELDS.filter((field) => figureOf(field).unset === 'review'));

/**
 * Where the usage figures came from:
 * - `confirmed`: the upstream reported the final usage of the whole request;
 * - `partial`: a stream ended before the final usage; only the figures reported so far are known;
 * - `units_only`: the upstream reported only non-token units (e.g. Cohere `search_units`): billed
 *   when the model prices each of them (`searchUnit`), else flagged for review;
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
 * A price in minor units (e.g. cents) per million tokens (per thousand for web searches and search units):
 * a whole number, or a decimal with at most 6 decimals given as a number or a string (300, 0.25, "0.125").
 */
export type Price = number | string;

/**
 * Prices in minor units per million tokens; costs are exact (see README, Billing). Only `input` is
 * required: cache prices left out default per upstream format (Anthropic: read 0.1×, 5-minute
 * write 1.25×, 1-hour write 2× the input price; OpenAI: read 0.5×, no write fee), `output` to 0,
 * `webSearch` (per thousand requests) to 0. `searchUnit` (per thousand search units) has no
 * default: without it, a request that reports only search units is flagged for review.
 */
export type Pricing = { input: Price } & Partial<Record<Exclude<PriceField, 'input'>, Price>>;

/** How many units a price field is quoted for (a million tokens, a thousand requests). */
export const perOf = (field: PriceField): number => figureOf(field).per;

/** The unit a price is quoted in, for messages and documents ("per million tokens", "per 1,000 search units"). */
export function priceUnit(field: PriceField): string {
  const { per, unit } = figureOf(field);
  return `per ${per === 1_000_000 ? 'million' : per.toLocaleString('en-US')} ${unit}`;
}

/**
 * What a price left out defaults to, in percent of the input price, per upstream format: Anthropic's
 * multipliers (cache read 0.1×, 5-minute write 1.25×, 1-hour write 2×); OpenAI has no write fee and
 * bills cached reads at half the input price for its older models (set `cacheRead` for newer ones);
 * an adapter of no known format bills cache figures as input. `output` and `webSearch` default to 0
 * (`searchUnit` has no default: see REVIEW_PRICES).
 */
export const DEFAULT_PERCENT_OF_INPUT: Readonly<Record<UpstreamFormat | 'other', Readonly<Partial<Record<PriceField, number>>>>> = Object.freeze({
  anthropic: { cacheRead: 10, cacheWrite5m: 125, cacheWrite1h: 200 },
  openai: { cacheRead: 50, cacheWrite5m: 100, cacheWrite1h: 100 },
  other: { cacheRead: 100, cacheWrite5m: 100, cacheWrite1h: 100 },
});

/** A record with every figure, each set to `value` (in table order, so records made by it share one shape). */
export function everyFigure<T>(value: T): Record<UsageFigureName, T> {
  const out = {} as Record<UsageFigureName, T>;
  for (const name of FIGURE_NAMES) out[name] = value;
  return out;
}

/** The tokens of a usage on one side (`input`: fresh input, cache reads and cache writes); written out, as it runs on every request. */
export function tokensOf(u: Readonly<Record<UsageFigureName, number>>, side: 'input' | 'output'): number {
  return side === 'output' ? u.outputTokens : u.inputTokens + u.cacheReadInputTokens + u.cacheWrite5mInputTokens + u.cacheWrite1hInputTokens;
}
