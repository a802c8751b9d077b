/**
 * Exact amounts below the host's minor unit. A cost is a decimal string of minor units with at
 * most 12 decimals ("0.0258"); inside, it is an integer of pico-units (10^-12 of a minor unit).
 */

/** Pico-units per minor unit: the internal scale of every cost and carried remainder. */
export const PICO_PER_UNIT = 1_000_000_000_000n;
const SCALE_DIGITS = 12;
const DECIMAL = /^(\d{1,30})(?:\.(\d{1,12}))?$/;
const WHOLE = /^\d{1,15}$/;

/** Pico-units of a decimal string of minor units; undefined when it is not a plain non-negative decimal with at most 12 decimals. */
export function toPico(amount: string): bigint | undefined {
  const match = DECIMAL.exec(amount);
  if (!match) return undefined;
  const [, whole = '0', fraction = ''] = match;
  return BigInt(whole) * PICO_PER_UNIT + BigInt(fraction.padEnd(SCALE_DIGITS, '0'));
}

/** The decimal string of minor units for a count of pico-units (no trailing zeros: 25800000000n -> "0.0258"). */
export function fromPico(pico: bigint | number): string {
  const value = BigInt(pico);
  const whole = value / PICO_PER_UNIT;
  const rest = value % PICO_PER_UNIT;
  if (rest === 0n) return String(whole);
  return `${whole}.${String(rest).padStart(SCALE_DIGITS, '0').replace(/0+$/, '')}`;
}

/** A charge in whole minor units and the remainder left to carry. */
export interface CarriedCharge {
  /** Whole minor units to take from the balance now. */
  charge: number;
  /** What is still owed below one minor unit, as a decimal string ("0" to "0.999999999999"). */
  carry: string;
}

/**
 * The billing rule's single rounding: a caller's carried remainder plus the exact cost of a
 * request, split into whole minor units charged now and the remainder (< 1 unit) carried to the
 * caller's next request. Over any sequence, the total charged is the exact total cost rounded
 * down, so it is never more than the cost and never less by one unit or more.
 * Stores call this when they settle (`carry` is the caller's remainder, "0" at first).
 */
export function carryCharge(carry: string, cost: string): CarriedCharge {
  // Whole costs with nothing carried (free models, whole-unit prices) need no arithmetic at this scale.
  if (carry === '0' && WHOLE.test(cost)) return { charge: Number(cost), carry: '0' };
  const before = toPico(carry);
  const add = toPico(cost);
  if (before === undefined || before >= PICO_PER_UNIT) throw new RangeError(`carry must be a decimal below 1 minor unit (got ${JSON.stringify(carry)})`);
  if (add === undefined) throw new RangeError(`cost must be a non-negative decimal with at most 12 decimals (got ${JSON.stringify(cost)})`);
  const total = before + add;
  return { charge: Number(total / PICO_PER_UNIT), carry: fromPico(total % PICO_PER_UNIT) };
}
