/** A config that cannot be used, and the one style of path every config message starts with. */
import { wordingOf } from '../foundation/config-errors';

/** A config that cannot be used: the message names the value's path and the fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A config path in the one style of every message: `models[0].upstream`, `upstreams.anthropic.baseURL`. */
export function configPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/**
 * Builds a library part from one section of the config: the library's own check refuses a bad
 * value, and its message is kept whole behind the section's path (a message already naming a
 * path under that section stays as it is).
 */
export function buildAt<T>(path: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const message = wordingOf(err);
    throw new ConfigError(message.startsWith(`${path}[`) || message.startsWith(`${path}.`) ? message : `${path}: ${message}`);
  }
}
