/** Hashing of API keys: SHA-256 hex, so stores keep digests only. */
import { createHash } from 'node:crypto';

/**
 * SHA-256 hex digest of a key. A fast hash is right here: gateway keys are long random
 * tokens, not passwords, and hashing runs on every request. Lookups compare digests only, so
 * the time a comparison takes tells an attacker nothing about the key (no prefix oracle).
 */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

