/** Hashing of API keys: SHA-256 hex, so stores keep digests only. */
import crypto from 'node:crypto';

type OneShot = (algorithm: string, data: string, encoding: 'hex') => string;
/** `crypto.hash` (Node ≥ 20.12) hashes in one call, without a Hash object per request. */
const oneShot = (crypto as unknown as { hash?: OneShot }).hash;

/**
 * SHA-256 hex digest of a key. A fast hash is right here: gateway keys are long random
 * tokens, not passwords, and hashing runs on every request. Lookups compare digests only, so
 * the time a comparison takes tells an attacker nothing about the key (no prefix oracle).
 */
export function hashKey(key: string): string {
  return oneShot ? oneShot('sha256', key, 'hex') : crypto.createHash('sha256').update(key).digest('hex');
}
