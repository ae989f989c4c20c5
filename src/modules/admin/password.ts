import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { AppError } from '../../core/errors.js';
import { nowIso } from '../../lib/time.js';
import { readSetting, upsertSetting } from '../settings/index.js';
import { deleteAllSessions } from './session-repository.js';

/** Settings key of the admin password's scrypt hash. */
export const ADMIN_PASSWORD_KEY = 'admin_password';

const MIN_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;
const KEY_LENGTH = 32;
// N = 2^15 costs about 32 MiB and a few tens of milliseconds per check: cheap for one login,
// expensive for guessing from a stolen hash.
const COST = { N: 32768, r: 8, p: 1 };

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** "scrypt$N$r$p$salt$hash" (salt and hash base64): the parameters travel with the hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function checkPasswordRules(password: string): void {
  if (password.length < MIN_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new AppError('validation_failed', `the admin password must be ${MIN_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`);
  }
}

/** Sets the password and signs every admin session out. */
export async function setAdminPassword(db: Db, password: string): Promise<void> {
  checkPasswordRules(password);
  const value = await hashPassword(password);
  const at = nowIso();
  await db.transaction().execute(async (trx) => {
    await upsertSetting(trx, ADMIN_PASSWORD_KEY, value, at);
    await deleteAllSessions(trx);
  });
}

export async function readPasswordHash(db: Db): Promise<string | undefined> {
  return readSetting(db, ADMIN_PASSWORD_KEY);
}
