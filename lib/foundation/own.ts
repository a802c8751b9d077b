/** Lookups by a name from outside (a client, an upstream, a config, a host's option): only a table's own entries, never Object.prototype's. */

/**
 * The entry `key` of `table` when the table itself has it; undefined otherwise. A plain `table[key]`
 * would find `constructor`, `toString` or `__proto__` on every object literal; the gateway reads
 * every string-keyed table through this one function.
 */
export function ownEntry<V>(table: Readonly<Record<string, V>> | NodeJS.Dict<V>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
