/** The names every object literal answers to through its prototype: what a lookup table must not find. */

/** Every name Object.prototype has (`constructor`, `toString`, `__proto__`…). */
export const PROTOTYPE_NAMES: readonly string[] = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];
