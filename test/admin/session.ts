import type { App } from '../../src/core/app.js';

export const PASSWORD = 'correct horse battery';

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
