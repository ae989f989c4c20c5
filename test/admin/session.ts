import { randomBytes, scryptSync } from 'node:crypto';
import type { App } from '../../src/core/app.js';
import type { Db } from '../../src/db/database.js';
import { ADMIN_PASSWORD_KEY } from '../../src/modules/admin/password.js';
import { nowIso } from '../../src/lib/time.js';
import { upsertSetting } from '../../src/modules/settings/index.js';

export const PASSWORD = 'correct horse battery';

/**
 * Stores the admin password hashed at a low scrypt cost. The cost travels with the hash and a
 * sign-in verifies at the stored cost, so tests that sign in or guess dozens of times do not each
 * pay the production cost (32 MiB and tens of milliseconds a check); auth.test.ts keeps it.
 */
export async function storeCheapAdminPassword(db: Db, password = PASSWORD): Promise<void> {
  const cost = { N: 1024, r: 8, p: 1 };
  const salt = randomBytes(16);
  const hash = scryptSync(password.normalize('NFC'), salt, 32, cost);
  const value = ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), hash.toString('base64')].join('$');
  await upsertSetting(db, ADMIN_PASSWORD_KEY, value, nowIso());
}

export interface Signed {
  /** Cookie header value carrying the session. */
  cookie: string;
  /** The session's CSRF token, as the pages embed it. */
  csrf: string;
}

export function csrfOf(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1]!;
}

export function form(values: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) for (const v of [value].flat()) params.append(name, v);
  return params.toString();
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Opens the sign-in page and posts the form as a browser would; returns the raw answer. */
export async function postLogin(app: App, password: string, remoteAddress = '127.0.0.1', headers: Record<string, string> = {}) {
  const page = await app.inject({ method: 'GET', url: '/admin/login', remoteAddress, headers });
  const loginCookie = page.cookies.find((c) => c.name === 'bk_admin_login');
  return app.inject({
    method: 'POST',
    url: '/admin/login',
    remoteAddress,
    headers: { ...headers, ...FORM, cookie: `bk_admin_login=${loginCookie?.value ?? ''}` },
    payload: form({ _csrf: csrfOf(page.body), password }),
  });
}

export async function signIn(app: App, remoteAddress?: string): Promise<Signed> {
  const res = await postLogin(app, PASSWORD, remoteAddress);
  const session = res.cookies.find((c) => c.name === 'bk_admin_session');
  if (res.statusCode !== 303 || !session) throw new Error(`sign-in failed: ${res.statusCode}`);
  const cookie = `bk_admin_session=${session.value}`;
  const keys = await app.inject({ method: 'GET', url: '/admin/keys', headers: { cookie } });
  return { cookie, csrf: csrfOf(keys.body) };
}
