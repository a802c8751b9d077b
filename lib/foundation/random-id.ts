/** Random 128-bit ids as 32 hex characters, drawn from a pool of random bytes refilled 256 ids at a time. */
import { randomFillSync } from 'node:crypto';

const ID_BYTES = 16;
const pool = Buffer.allocUnsafe(ID_BYTES * 256);
let offset = pool.length;

/**
 * 32 lowercase hex characters from the system's CSPRNG. Like randomUUID()'s own cache, it draws
 * on a pool (one randomFillSync per 256 ids), but with no dashes to strip: no regex and no
 * second string per id.
 */
export function randomHex(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return hex;
}
