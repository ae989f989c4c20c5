import { randomBytes } from 'node:crypto';

/** `length` random bytes as base64url text. */
export function randomBase64url(length: number): string {
  return randomBytes(length).toString('base64url');
}

/**
 * `length` characters drawn from `alphabet`, each equally likely: the alphabet's size must
 * divide 256.
 */
export function randomCharacters(length: number, alphabet: string): string {
  if (256 % alphabet.length !== 0) throw new RangeError('the alphabet size must divide 256');
  let text = '';
  for (const byte of randomBytes(length)) text += alphabet[byte % alphabet.length];
  return text;
}

/** Upper-case letters and digits people read out without confusion: no 0/O, 1/I. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const MINUTE_MS = 60_000;
/** Three characters of the alphabet: the prefix repeats every 32,768 minutes (about 23 days). */
const PREFIX_MINUTES = CODE_ALPHABET.length ** 3;

/**
 * A code for a booking, order, invoice or customer: twelve characters, three from the minute it
 * is made, then nine random ones. Every code has a unique index, and random codes land each on
 * a page of its own: a bulk of 50 bookings wrote 326 pages to the log, 192 with these codes
 * (bench/wal-pages.ts). Codes made in the same minute sort together and share a few pages, among
 * those of the same minute 23, 46, … days before (the prefix wraps). A code can only meet one of
 * the same minute of the cycle, in 45 random bits: unless that minute makes more than a 32nd of
 * all codes ever made, that is a smaller chance than ten random characters gave.
 */
export function readableCode(at: number = Date.now()): string {
  const minute = Math.floor(at / MINUTE_MS) % PREFIX_MINUTES;
  const size = CODE_ALPHABET.length;
  const prefix = `${CODE_ALPHABET[Math.floor(minute / size ** 2)]}${CODE_ALPHABET[Math.floor(minute / size) % size]}${CODE_ALPHABET[minute % size]}`;
  return prefix + randomCharacters(9, CODE_ALPHABET);
}
