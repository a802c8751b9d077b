/** Prices, exact to a millionth of a minor unit, their defaults per upstream format, and the exact cost of a usage. */
import { DEFAULT_PERCENT_OF_INPUT, FIGURE_NAMES, PRICE_FIELDS, perOf, priceUnit, REVIEW_PRICES, USAGE_FIGURES, type Price, type PriceField, type Pricing, type UpstreamFormat, type Usage, type UsageFigureName } from './figures';
import { fromPico, PICO_PER_UNIT } from './money';
import { ownEntry } from '../foundation/own';

/** Largest price per million tokens accepted, in minor units (keeps every rate and cost exact); per thousand units, a thousandth of it. */
const MAX_PRICE = 1_000_000_000;
const maxPrice = (field: PriceField): number => (MAX_PRICE * perOf(field)) / 1_000_000;
const PRICE = /^(\d{1,10})(?:\.(\d{1,6}))?$/;
const PICO_PER_UNIT_N = Number(PICO_PER_UNIT);

/** Pico-units per unit of each figure (a price per million tokens in micro-units is pico-units per token). */
export type Rates = Readonly<Record<UsageFigureName, number>>;

/** Figures a cost is computed from; those absent count 0. */
export type UsageFigureCounts = Partial<Record<UsageFigureName, number>>;

/** Micro-units of a price ("0.25" or 0.25 -> 250000); undefined when it is not a valid price (or over `max`). */
function micros(price: Price, max = MAX_PRICE): number | undefined {
  const text = typeof price === 'number' ? String(price) : price;
  const match = typeof text === 'string' ? PRICE.exec(text) : null;
  if (!match) return undefined;
  const [, whole = '0', fraction = ''] = match;
  const out = Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0'));
  return out > max * 1_000_000 ? undefined : out;
}

/** The micro-units of a price field: as set, else its default for the upstream's format (rounded up to the price scale). */
function priceMicros(pricing: Pricing, field: PriceField, format: UpstreamFormat | undefined): number {
  const set = pricing[field];
  if (set !== undefined) return micros(set) ?? 0;
  const percent = (ownEntry(DEFAULT_PERCENT_OF_INPUT, format ?? 'other') ?? DEFAULT_PERCENT_OF_INPUT.other)[field];
  return percent === undefined ? 0 : Math.ceil(((micros(pricing.input) ?? 0) * percent) / 100);
}

const cache = new WeakMap<Pricing, Map<string, Rates>>();

/** The rates of a pricing for an upstream format, computed once per pricing object and format. */
export function ratesOf(pricing: Pricing, format?: UpstreamFormat): Rates {
  let byFormat = cache.get(pricing);
  if (!byFormat) cache.set(pricing, (byFormat = new Map()));
  let rates = byFormat.get(format ?? '');
  if (!rates) {
    const out = {} as Record<UsageFigureName, number>;
    for (const name of FIGURE_NAMES) {
      const { price, per } = USAGE_FIGURES[name];
      out[name] = priceMicros(pricing, price, format) * (1_000_000 / per);
    }
    rates = Object.freeze(out);
    byFormat.set(format ?? '', rates);
  }
  return rates;
}

/**
 * Every price in effect for a pricing and upstream format, defaults applied, as decimal strings of
 * minor units per its unit; null for a price without a default that is not set (its figure is flagged for review, never billed).
 */
export function pricesInEffect(pricing: Pricing, format?: UpstreamFormat): Record<PriceField, string | null> {
  const rates = ratesOf(pricing, format);
  const out = {} as Record<PriceField, string | null>;
  for (const name of FIGURE_NAMES) {
    const { price, per } = USAGE_FIGURES[name];
    out[price] = pricing[price] === undefined && REVIEW_PRICES.includes(price) ? null : fromPico(BigInt(rates[name]) * BigInt(per));
  }
  return out;
}

/** The figures of a usage (counts above 0) whose price has no default and is not set: never billed, they leave the request for review. */
export function unpricedFigures(usage: UsageFigureCounts, pricing: Pricing | undefined): UsageFigureName[] {
  return FIGURE_NAMES.filter((name) => (usage[name] ?? 0) > 0 && REVIEW_PRICES.includes(USAGE_FIGURES[name].price) && pricing?.[USAGE_FIGURES[name].price] === undefined);
}

/**
 * Exact cost of the figures in pico-units; Number while every sum stays a safe integer. The terms
 * are written out (no lookup by name: this runs on every request); a unit test prices each figure
 * of USAGE_FIGURES alone, so one left out here fails it.
 */
function costPico(u: UsageFigureCounts, r: Rates): bigint | number {
  const input = u.inputTokens ?? 0;
  const read = u.cacheReadInputTokens ?? 0;
  const write5m = u.cacheWrite5mInputTokens ?? 0;
  const write1h = u.cacheWrite1hInputTokens ?? 0;
  const output = u.outputTokens ?? 0;
  const searches = u.webSearchRequests ?? 0;
  const units = u.searchUnits ?? 0;
  const fast = input * r.inputTokens + read * r.cacheReadInputTokens + write5m * r.cacheWrite5mInputTokens
    + write1h * r.cacheWrite1hInputTokens + output * r.outputTokens + searches * r.webSearchRequests + units * r.searchUnits;
  if (Number.isSafeInteger(fast)) return fast;
  const term = (n: number, rate: number): bigint => BigInt(n) * BigInt(rate);
  return term(input, r.inputTokens) + term(read, r.cacheReadInputTokens) + term(write5m, r.cacheWrite5mInputTokens)
    + term(write1h, r.cacheWrite1hInputTokens) + term(output, r.outputTokens) + term(searches, r.webSearchRequests) + term(units, r.searchUnits);
}

/**
 * Exact cost of a usage in minor units, as a decimal string ("0.0258"); "0" without a price.
 * Prices left out take their defaults for `format` (the model's upstream format).
 */
export function costOf(usage: UsageFigureCounts, pricing: Pricing | undefined, format?: UpstreamFormat): string {
  return pricing ? fromPico(costPico(usage, ratesOf(pricing, format))) : '0';
}

/** Whole minor units that cover the cost of a usage (rounded up): what a hold for an estimate takes. */
export function holdFor(usage: UsageFigureCounts, pricing: Pricing | undefined, format?: UpstreamFormat): number {
  if (!pricing) return 0;
  const pico = costPico(usage, ratesOf(pricing, format));
  if (typeof pico === 'number') {
    const rest = pico % PICO_PER_UNIT_N; // exact for integers, unlike a rounded quotient
    return (pico - rest) / PICO_PER_UNIT_N + (rest > 0 ? 1 : 0);
  }
  return Number((pico + PICO_PER_UNIT - 1n) / PICO_PER_UNIT);
}

/**
 * Tokens a usage counts against `tpm`: each token figure weighted by its price over the input
 * price (a cache read at 0.1× counts a tenth); every figure at 1× for a free model.
 */
export function weightedTokens(usage: Usage, pricing: Pricing | undefined, format?: UpstreamFormat): number {
  const r = pricing ? ratesOf(pricing, format) : undefined;
  const weight = (rate: number): number => (r && r.inputTokens > 0 ? rate / r.inputTokens : 1);
  return Math.ceil(usage.inputTokens + usage.outputTokens + usage.cacheReadInputTokens * weight(r?.cacheReadInputTokens ?? 0)
    + usage.cacheWrite5mInputTokens * weight(r?.cacheWrite5mInputTokens ?? 0) + usage.cacheWrite1hInputTokens * weight(r?.cacheWrite1hInputTokens ?? 0));
}

/** A legacy or misspelt pricing field, and the one meant. */
const RENAMED: Readonly<Record<string, PriceField>> = { cacheWrite: 'cacheWrite5m', cache_read: 'cacheRead', web_search: 'webSearch', searchUnits: 'searchUnit', search_units: 'searchUnit' };

/** Checks a Pricing object; returns the problem in words, or undefined when it is valid. */
export function pricingProblem(pricing: Pricing): string | undefined {
  if (typeof pricing !== 'object' || pricing === null) return `pricing must be an object like { input: 300, output: 1500 }`;
  for (const key of Object.keys(pricing)) {
    if ((PRICE_FIELDS as readonly string[]).includes(key)) continue;
    const meant = ownEntry(RENAMED, key);
    return `pricing.${key} is not a price${meant ? `; use pricing.${meant}` : ''} (prices: ${PRICE_FIELDS.join(', ')})`;
  }
  for (const key of PRICE_FIELDS) {
    const value = pricing[key];
    if (value === undefined && key !== 'input') continue;
    if (value === undefined || micros(value, maxPrice(key)) === undefined) {
      return `pricing.${key} must be a non-negative number of minor units ${priceUnit(key)}, at most ${maxPrice(key)} and with at most 6 decimals, e.g. 300, 0.25 or "0.125" (got ${JSON.stringify(value)})`;
    }
  }
  return undefined;
}
