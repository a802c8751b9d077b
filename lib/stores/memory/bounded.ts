/** Bounded in-memory records: the oldest dropped in blocks of an eighth, never one at a time. */

const NONE: readonly never[] = Object.freeze([]);

/**
 * Appends to a list kept to `max` items. A splice of one at the front of a full list would move
 * every other record on every append. Returns the records dropped (usually none).
 */
export function keepBounded<T>(list: T[], item: T, max: number): readonly T[] {
  list.push(item);
  return list.length >= max + Math.ceil(max / 8) ? list.splice(0, list.length - max) : NONE;
}

/**
 * Bounds a Map or Set (insertion order = age) the same way: deleting the first entry one at a
 * time makes V8 walk every deleted slot to find the new first one.
 */
export function trimBounded(records: Map<string, unknown> | Set<string>, max: number): void {
  let excess = records.size - max;
  if (excess < Math.ceil(max / 8)) return;
  for (const key of records.keys()) {
    if (excess-- <= 0) break;
    records.delete(key);
  }
}

/** The last `max` items of a list kept by keepBounded() (a copy). */
export const lastOf = <T>(list: T[], max: number): T[] => list.slice(Math.max(0, list.length - max));
