/** Integer money: the charge for a usage at a model's per-million-token prices. */
import type { Pricing, Usage } from '../types';

const MILLION = 1_000_000n;
const MILLION_N = 1_000_000;

/**
 * Charge in integer minor units for the token figures of `usage` (cache figures absent: 0), rounded **up** to the next
 * whole minor unit once per request (never per component). Search units are never priced.
 * Exact: in Number arithmetic while every figure is a safe integer, in BigInt beyond.
 */
export function chargeFor(
  usage: Pick<Usage, 'inputTokens' | 'outputTokens'> & Partial<Pick<Usage, 'cacheReadInputTokens' | 'cacheCreationInputTokens'>>,
  pricing: Pricing | undefined,
): number {
  if (!pricing) return 0;
  const reads = usage.cacheReadInputTokens ?? 0;
  const writes = usage.cacheCreationInputTokens ?? 0;
  const cacheRead = pricing.cacheRead ?? pricing.input;
  const cacheWrite = pricing.cacheWrite ?? pricing.input;
  const output = pricing.output ?? 0;
  // Each product and the sum stay below 2^53 for any realistic request; Number is exact there.
  const fast = usage.inputTokens * pricing.input + usage.outputTokens * output
    + reads * cacheRead + writes * cacheWrite;
  if (Number.isSafeInteger(fast + MILLION_N)) {
    const rest = fast % MILLION_N; // exact for integers, unlike a rounded quotient
    return (fast - rest) / MILLION_N + (rest > 0 ? 1 : 0);
  }
  const micro =
    BigInt(usage.inputTokens) * BigInt(pricing.input) +
    BigInt(usage.outputTokens) * BigInt(output) +
    BigInt(reads) * BigInt(cacheRead) +
    BigInt(writes) * BigInt(cacheWrite);
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
