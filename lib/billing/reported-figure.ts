/** A usage figure read from an upstream's answer as it came: the UsageRecorder, not the adapter, decides whether it is believed. */

/**
 * The figure an upstream wrote in a usage field: undefined when it left the field out (absent or
 * null); a number as it is (Infinity, 12.5 or -3 reach the recorder, which flags them for review
 * instead of reading them as "not reported"); any other value as NaN (flagged as not a number).
 */
export function reportedFigure(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'number' ? value : Number.NaN;
}

/** Whether a figure is a count arithmetic may use (a whole number from 0 to 2^53 − 1). */
export const isCount = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;
