/** Integer money: the charge for a usage at a model's per-million-token prices. */
import type { Pricing, Usage } from '../types';

const MILLION = 1_000_000n;

/**
 * Charge in integer minor units for the token figures of `usage`, rounded **up** to the next
 * whole minor unit once per request (never per component). Search units are never priced.
 * Computed with BigInt so large token counts times large prices cannot lose precision.
 */
export function chargeFor(usage: Pick<Usage, 'inputTokens' | 'outputTokens' | 'cacheReadInputTokens' | 'cacheCreationInputTokens'>, pricing: Pricing | undefined): number {
  if (!pricing) return 0;
  const micro =
    BigInt(usage.inputTokens) * BigInt(pricing.input) +
    BigInt(usage.outputTokens) * BigInt(pricing.output ?? 0) +
    BigInt(usage.cacheReadInputTokens) * BigInt(pricing.cacheRead ?? pricing.input) +
    BigInt(usage.cacheCreationInputTokens) * BigInt(pricing.cacheWrite ?? pricing.input);
  return Number((micro + MILLION - 1n) / MILLION);
}

/** Checks a Pricing object; returns the problem in words, or undefined when it is valid. */
export function pricingProblem(pricing: Pricing): string | undefined {
  for (const key of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
    const value = pricing[key];
    if (value === undefined && key !== 'input') continue;
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      return `pricing.${key} must be a non-negative integer of minor units per million tokens (got ${String(value)})`;
    }
  }
  return undefined;
}
