/** The one check of a duration option (a timeout, a lease, an interval): a whole number of ms (or seconds) within its bounds, named in the error. */
import { GatewayConfigError } from './config-errors';

/** The longest delay a Node timer keeps (a longer one fires at once). */
export const MAX_TIMER_MS = 2_147_483_647;

/** Bounds of a duration: the least value (default 1), the unit (default ms), a hint appended to the message. */
export interface DurationBounds {
  readonly min?: number;
  readonly max?: number;
  readonly unit?: 'ms' | 'seconds';
  readonly hint?: string;
}

/**
 * Returns `value` when it is a finite integer from `min` to `max`; else throws ERR_MGW_INVALID_DURATION
 * naming the option (`name`, e.g. 'reserve: option "leaseMs"') and the bound.
 */
export function checkDuration(value: unknown, name: string, { min = 1, max = MAX_TIMER_MS, unit = 'ms', hint }: DurationBounds = {}): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  const units = unit === 'seconds' ? 'seconds' : 'milliseconds';
  const what = min === 0 ? `a non-negative integer of ${units}` : min === 1 ? `a positive integer of ${units}` : `an integer of at least ${min} ${unit}`;
  throw new GatewayConfigError('ERR_MGW_INVALID_DURATION', `${name} must be ${what}${hint ? ` ${hint}` : ''}.`);
}
