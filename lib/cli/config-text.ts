/** What the config file's text gets wrong before its values are read: YAML syntax (said whole), and keys no section has (named, with the likely one). */
import { ConfigError, configPath } from './config-error';

/** The schema keywords the walk reads (the config schema is plain JSON Schema, no $ref). */
interface Node {
  properties?: Record<string, Node>;
  additionalProperties?: Node | boolean;
  items?: Node;
}

/** Edits (insert, delete, replace, swap two neighbours) that make `a` into `b`. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The known key a mistyped one most likely meant: at most two edits away, and fewer than half its letters. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; edits: number } | undefined;
  for (const candidate of known) {
    const edits = distance(key.toLowerCase(), candidate.toLowerCase());
    if (edits <= 2 && edits * 2 < Math.max(key.length, candidate.length) && (!best || edits < best.edits)) best = { key: candidate, edits };
  }
  return best?.key;
}

/**
 * Refuses the first key that its section does not have, naming it and the key it likely meant:
 * checked before the schema, whose first complaint about `modles:` would be that `models` is missing.
 */
export function unknownKeys(value: unknown, schema: object): void {
  const walk = (v: unknown, node: Node | undefined, at: string): void => {
    if (!node || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, node.items, configPath(at, i)));
      return;
    }
    for (const [key, item] of Object.entries(v)) {
      const named = node.properties && Object.hasOwn(node.properties, key) ? node.properties[key] : undefined;
      if (named) walk(item, named, configPath(at, key));
      else if (typeof node.additionalProperties === 'object') walk(item, node.additionalProperties, configPath(at, key));
      else if (node.additionalProperties === false && node.properties) {
        const known = Object.keys(node.properties);
        const meant = closestKey(key, known);
        throw new ConfigError(`${configPath(at, key)}: unknown key; ${meant ? `did you mean "${meant}"?` : 'remove it or fix its spelling'} (allowed here: ${known.join(', ')})`);
      }
    }
  };
  walk(value, schema as Node, '');
}

/**
 * A YAML syntax error whole: what is wrong and where, then the lines it points at (the parser's
 * own excerpt, indented), and the usual cause when a `${VAR}` reference is written bare in `{ … }`.
 */
export function yamlError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const [first = '', ...rest] = message.split('\n');
  const excerpt = rest.filter((line) => line.trim() !== '');
  const bareReference = excerpt.some((line) => /[{,]\s*[^\s"':,{}]+:\s*\$\{/.test(line));
  return [
    first,
    ...excerpt.map((line) => `    ${line}`),
    ...(bareReference ? ['(inside { ... }, quote a reference: "${NAME}")'] : []),
  ].join('\n');
}
