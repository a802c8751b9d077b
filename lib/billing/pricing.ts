/** Prices per million tokens, exact to a millionth of a minor unit, and the exact cost of a usage. */
import type { Price, Pricing, Usage } from '../types';
import { fromPico, PICO_PER_UNIT } from './money';

/** Largest price accepted, in minor units per million tokens (keeps every cost a safe integer of minor units). */
const MAX_PRICE = 1_000_000_000;
const PRICE = /^(\d{1,10})(?:\.(\d{1,6}))?$/;
const PICO_PER_UNIT_N = Number(PICO_PER_UNIT);

/** A pricing in micro-units per million tokens (so pico-units per token), defaults applied. */
interface Rates {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

type UsageFigures = Pick<Usage, 'inputTokens' | 'outputTokens'> & Partial<Pick<Usage, 'cacheReadInputTokens' | 'cacheCreationInputTokens'>>;

/** Micro-units of a price ("0.25" or 0.25 -> 250000); undefined when it is not a valid price. */
function micros(price: Price): number | undefined {
  const text = typeof price === 'number' ? String(price) : price;
  const match = typeof text === 'string' ? PRICE.exec(text) : null;
  if (!match) return undefined;
  const [, whole = '0', fraction = ''] = match;
  if (Number(whole) > MAX_PRICE) return undefined;
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0'));
}

const ratesOf = new WeakMap<Pricing, Rates>();

/** The rates of a pricing, parsed once per pricing object. */
function rates(pricing: Pricing): Rates {
  let out = ratesOf.get(pricing);
  if (!out) {
    const input = micros(pricing.input) ?? 0;
    out = {
      input,
      output: pricing.output === undefined ? 0 : micros(pricing.output) ?? 0,
      cacheRead: pricing.cacheRead === undefined ? input : micros(pricing.cacheRead) ?? 0,
      cacheWrite: pricing.cacheWrite === undefined ? input : micros(pricing.cacheWrite) ?? 0,
    };
    ratesOf.set(pricing, out);
  }
  return out;
}

/** Exact cost of the token figures in pico-units (cache figures absent: 0). Search units are never priced. */
function costPico(usage: UsageFigures, pricing: Pricing): bigint | number {
  const r = rates(pricing);
  const reads = usage.cacheReadInputTokens ?? 0;
  const writes = usage.cacheCreationInputTokens ?? 0;
  const fast = usage.inputTokens * r.input + usage.outputTokens * r.output + reads * r.cacheRead + writes * r.cacheWrite;
  if (Number.isSafeInteger(fast)) return fast; // Number is exact while every sum stays a safe integer
  return BigInt(usage.inputTokens) * BigInt(r.input) + BigInt(usage.outputTokens) * BigInt(r.output)
    + BigInt(reads) * BigInt(r.cacheRead) + BigInt(writes) * BigInt(r.cacheWrite);
}

/** Exact cost of a usage in minor units, as a decimal string ("0.0258"); "0" without a price. */
export function costOf(usage: UsageFigures, pricing: Pricing | undefined): string {
  return pricing ? fromPico(costPico(usage, pricing)) : '0';
}

/** Whole minor units that cover the cost of a usage (rounded up): what a hold for an estimate takes. */
export function holdFor(usage: UsageFigures, pricing: Pricing | undefined): number {
  if (!pricing) return 0;
  const pico = costPico(usage, pricing);
  if (typeof pico === 'number') {
    const rest = pico % PICO_PER_UNIT_N; // exact for integers, unlike a rounded quotient
    return (pico - rest) / PICO_PER_UNIT_N + (rest > 0 ? 1 : 0);
  }
  return Number((pico + PICO_PER_UNIT - 1n) / PICO_PER_UNIT);
}

/** Checks a Pricing object; returns the problem in words, or undefined when it is valid. */
export function pricingProblem(pricing: Pricing): string | undefined {
  for (const key of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
    const value = pricing[key];
    if (value === undefined && key !== 'input') continue;
    if (value === undefined || micros(value) === undefined) {
      return `pricing.${key} must be a non-negative number of minor units per million tokens, at most ${MAX_PRICE} and with at most 6 decimals, e.g. 300, 0.25 or "0.125" (got ${JSON.stringify(value)})`;
    }
  }
  return undefined;
}
