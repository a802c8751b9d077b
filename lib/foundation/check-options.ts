/** Refuses options a factory does not know (a typo in plain JavaScript is silently ignored otherwise), naming the nearest known one. */
import { GatewayConfigError } from './config-errors';

/** Edit distance between two short names (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length] as number;
}

/** The known name closest to `name` (case aside first, then by at most 3 edits), if any is close. */
export function nearest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase) return sameCase;
  let best: string | undefined;
  let bestDistance = 4;
  for (const k of known) {
    const d = distance(lower, k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/**
 * Throws a TypeError when `options` has a key not in `known`: `<where>: unknown option "bodylimit";
 * did you mean "bodyLimit"?` (or the list of known options when none is close).
 */
export function checkKnownOptions(where: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const meant = nearest(key, known);
    throw new GatewayConfigError('ERR_MGW_UNKNOWN_OPTION', `${where}: unknown option "${key}"; ${meant ? `did you mean "${meant}"?` : `the options are ${known.join(', ')}.`}`);
  }
}
