/**
 * The JSON of a response's echoed `tools`: an agent sends the same tools (Codex: 9 KB of schemas)
 * on every turn, and JSON.stringify of them is most of what writing a response costs. The JSON of
 * the last few distinct tool arrays (each up to 256 K characters) is kept with a private copy;
 * tools equal to a copy as JSON values (same keys in the same order, same strings and numbers)
 * reuse its JSON, anything else (another value, a non-JSON value, a class instance, a toJSON) is
 * serialised. Same bytes, however the tools change between calls (property-tested).
 */

/** A kept copy: JSON values, with each object's keys listed once (compared without allocating). */
type Copy = string | number | boolean | null | ArrayCopy | ObjectCopy;
class ArrayCopy {
  constructor(readonly items: Copy[]) {}
}
class ObjectCopy {
  constructor(readonly keys: string[], readonly values: Copy[]) {}
}

/** The copy of a JSON.parse result. */
function copyOf(value: unknown): Copy {
  if (typeof value !== 'object' || value === null) return value as Copy;
  if (Array.isArray(value)) return new ArrayCopy(value.map(copyOf));
  const keys = Object.keys(value);
  return new ObjectCopy(keys, keys.map((k) => copyOf((value as Record<string, unknown>)[k])));
}

/** Distinct tool arrays kept (most recent first), and the largest JSON kept (about 1 MB of memory each at most). */
const KEPT = 16;
const MAX_KEPT_CHARS = 256 * 1024;
const kept: Array<{ copy: Copy; json: string }> = [];

/** Whether `value` is a JSON value equal to `copy`, so JSON.stringify writes it as the copy's JSON. */
function same(value: unknown, copy: Copy): boolean {
  if (typeof copy !== 'object' || copy === null) return value === copy; // -0 and 0 are both written 0
  if (typeof value !== 'object' || value === null) return false;
  if ((value as { toJSON?: unknown }).toJSON !== undefined) return false; // JSON.stringify would write what toJSON returns
  if (copy instanceof ArrayCopy) {
    if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype || value.length !== copy.items.length) return false;
    for (let i = 0; i < value.length; i++) if (!same(value[i], copy.items[i] as Copy)) return false;
    return true;
  }
  if (Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  let i = 0;
  for (const key in value) {
    if (key !== copy.keys[i] || !same((value as Record<string, unknown>)[key], copy.values[i] as Copy)) return false;
    i++;
  }
  return i === copy.keys.length;
}

/** `JSON.stringify(tools)`, made once per distinct tools (an array) while it is among the last KEPT. */
export function toolsJson(tools: readonly unknown[]): string {
  for (let i = 0; i < kept.length; i++) {
    const entry = kept[i] as { copy: Copy; json: string };
    if (!same(tools, entry.copy)) continue;
    if (i > 0) kept.unshift(...kept.splice(i, 1));
    return entry.json;
  }
  const json = JSON.stringify(tools);
  if (json.length > MAX_KEPT_CHARS) return json;
  kept.unshift({ copy: copyOf(JSON.parse(json)), json });
  if (kept.length > KEPT) kept.pop();
  return json;
}
