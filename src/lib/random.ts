import { randomFillSync } from 'node:crypto';

// Every randomBytes call costs a native job and a buffer, microseconds each, and a create draws
// four small values. So bytes of the same CSPRNG are drawn in blocks, and each byte is handed
// out once (crypto.randomUUID keeps such a block for its own values).
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let next = POOL_SIZE;

/** The start of `length` (at most POOL_SIZE) fresh bytes in the pool, to be read at once. */
function take(length: number): number {
  if (length > POOL_SIZE) throw new RangeError(`at most ${POOL_SIZE} random bytes at a time`);
  if (next + length > POOL_SIZE) {
    randomFillSync(pool);
    next = 0;
  }
  const start = next;
  next += length;
  return start;
}

/** `length` random bytes as base64url text. */
export function randomBase64url(length: number): string {
  const start = take(length);
  return pool.toString('base64url', start, start + length);
}

/**
 * `length` characters drawn from `alphabet`, each equally likely: the alphabet's size must
 * divide 256.
 */
export function randomCharacters(length: number, alphabet: string): string {
  if (256 % alphabet.length !== 0) throw new RangeError('the alphabet size must divide 256');
  const start = take(length);
  let text = '';
  for (let i = start; i < start + length; i++) text += alphabet[(pool[i] as number) % alphabet.length];
  return text;
}
