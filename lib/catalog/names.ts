/**
 * The names a catalog model answers to: its id, its aliases (exact names) and its patterns (`*`
 * stands for any run of characters, `claude-opus-*`), checked for collisions once and resolved
 * in one order: the exact id, then an alias, then the most specific pattern that matches.
 */
import { GatewayConfigError } from '../foundation/config-errors';

/** Longest model name resolved, alias or pattern (the bound of a model name in a body): a longer name matches no pattern. */
export const MAX_MODEL_NAME = 256;

/** What the names of one model are read from. */
export interface Named {
  readonly id: string;
  readonly aliases?: readonly string[];
  readonly patterns?: readonly string[];
}

/** The problem of one alias or pattern, in words, or undefined. */
export function nameProblem(name: unknown, kind: 'alias' | 'pattern'): string | undefined {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_MODEL_NAME) return `must be a non-empty string of at most ${MAX_MODEL_NAME} characters`;
  if (kind === 'alias' && name.includes('*')) return `"${name}" holds "*": a name with wildcards goes in "patterns"`;
  if (kind === 'pattern' && !name.includes('*')) return `"${name}" has no "*": an exact name goes in "aliases"`;
  return undefined;
}

/** Whether `name` matches `pattern` (`*`: any run of characters, none included); linear in their lengths times each other at worst. */
export function matches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/** A name both patterns match, or undefined when none exists. */
export function commonName(a: string, b: string): string | undefined {
  const failed = new Set<number>();
  const walk = (i: number, j: number): string | undefined => {
    if (i === a.length && j === b.length) return '';
    const key = i * (b.length + 1) + j;
    if (failed.has(key)) return undefined;
    const ca = a[i];
    const cb = b[j];
    let out: string | undefined;
    if (ca === '*' && cb === '*') out = walk(i + 1, j) ?? walk(i, j + 1);
    else if (ca === '*') out = walk(i + 1, j) ?? (cb === undefined ? undefined : prefixed(cb, walk(i, j + 1)));
    else if (cb === '*') out = walk(i, j + 1) ?? (ca === undefined ? undefined : prefixed(ca, walk(i + 1, j)));
    else if (ca !== undefined && ca === cb) out = prefixed(ca, walk(i + 1, j + 1));
    if (out === undefined) failed.add(key);
    return out;
  };
  return walk(0, 0);
}

const prefixed = (head: string, rest: string | undefined): string | undefined => (rest === undefined ? undefined : head + rest);

/** Characters of a pattern that are not `*`: the more, the more specific (tried first). */
const specificity = (pattern: string): number => pattern.length - pattern.split('*').length + 1;

const collision = (message: string): never => {
  throw new GatewayConfigError('ERR_MGW_CATALOG_NAME_COLLISION', `option "models": ${message}`);
};

/**
 * The names of a list of models, indexed (their ids unique already). An alias that is an id or
 * another alias, or two models' patterns that match one name with neither more specific, fail
 * with ERR_MGW_CATALOG_NAME_COLLISION naming both.
 */
export class ModelNames<T extends Named> {
  private readonly aliases = new Map<string, T>();
  /** Patterns, most specific first (catalog order among equals, which match no name in common). */
  private readonly patterns: Array<{ readonly pattern: string; readonly model: T; readonly specificity: number }> = [];

  constructor(private readonly byId: ReadonlyMap<string, T>) {
    for (const model of byId.values()) {
      for (const alias of model.aliases ?? []) {
        const other = byId.get(alias) ?? this.aliases.get(alias);
        if (other) {
          const what = byId.has(alias) ? `the id of "${other.id}"` : `an alias of "${other.id}" too`;
          collision(`the alias "${alias}" of "${model.id}" is ${what}; a name resolves to one model: remove or rename one.`);
        }
        this.aliases.set(alias, model);
      }
      for (const pattern of model.patterns ?? []) this.addPattern(pattern, model);
    }
    this.patterns.sort((a, b) => b.specificity - a.specificity);
  }

  private addPattern(pattern: string, model: T): void {
    const mine = specificity(pattern);
    for (const other of this.patterns) {
      if (other.model === model || other.specificity !== mine) continue;
      const name = commonName(pattern, other.pattern);
      if (name !== undefined) {
        collision(`the patterns "${other.pattern}" of "${other.model.id}" and "${pattern}" of "${model.id}" both match "${name}", and neither is more specific (the same count of characters besides "*"): make one more specific, or list the name as an alias.`);
      }
    }
    this.patterns.push({ pattern, model, specificity: mine });
  }

  /** The model a name resolves to: its id, else its alias, else the most specific pattern that matches it. */
  resolve(name: string): T | undefined {
    const exact = this.byId.get(name) ?? this.aliases.get(name);
    if (exact || this.patterns.length === 0 || name.length > MAX_MODEL_NAME) return exact;
    return this.patterns.find((p) => matches(p.pattern, name))?.model;
  }
}
