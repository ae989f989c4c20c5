import { randomBytes, timingSafeEqual } from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../core/app.js';
import { AppError } from '../../core/errors.js';
import type { RateLimitStore } from '../../http/rate-limit-store.js';
import { field, formOf, overlongField, sendPage } from './page-reply.js';
import { MAX_PASSWORD_LENGTH, readPasswordHash, verifyPassword } from './password.js';
import { deleteSession } from './session-repository.js';
import { createSession, findSession, SESSION_HOURS, type AdminSession } from './sessions.js';
import { loginPage } from './views/other.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An admin route open without a session (the sign-in page). */
    adminPublic?: boolean;
  }
  interface FastifyRequest {
    /** The signed-in admin session, set on every admin route that is not public. */
    adminSession: AdminSession | undefined;
  }
}

export interface AdminOptions {
  /** Counters for sign-in attempts; shared between instances when Redis is configured. */
  rateLimits: RateLimitStore;
  /** The clock sign-in windows follow (Unix ms; tests pin it so that no window ends inside one). */
  now: () => number;
}

const SESSION_COOKIE = 'bk_admin_session';
const LOGIN_COOKIE = 'bk_admin_login';
const COOKIE_PATH = '/admin';
/** Sign-in attempts per client IP and window. */
export const LOGIN_ATTEMPTS = 10;
const LOGIN_WINDOW_MS = 15 * 60_000;

/** What a token this service issues looks like (24 or 32 random bytes, base64url). */
const ISSUED_TOKEN = /^[\w-]{20,100}$/;

function sameToken(sent: unknown, expected: string | undefined): boolean {
  if (typeof sent !== 'string' || expected === undefined || !ISSUED_TOKEN.test(expected)) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Cookies are Secure when the request came over HTTPS, or when the service's public address is
 * HTTPS (TLS ends at a proxy in front of it): then a browser never sends them over plain HTTP.
 */
function cookieOptions(request: FastifyRequest, publicUrl: string, maxAgeSeconds?: number) {
  return {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: request.protocol === 'https' || publicUrl.startsWith('https:'),
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

/** The longest text any field of an admin form may carry: the longest password. */
export const MAX_FORM_TEXT_LENGTH = MAX_PASSWORD_LENGTH;

/**
 * The admin pages' sign-in: the session cookie every page but the sign-in page needs, the token
 * every posted form carries, and the sign-in and sign-out routes. Call it (not register it) in the
 * admin plugin, so that its hooks cover the pages too.
 */
export async function adminSession(app: App, options: AdminOptions): Promise<void> {
  const { db } = app;
  await app.register(cookie);
  await app.register(formbody);
  app.decorateRequest('adminSession', undefined);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (request.routeOptions.config.adminPublic) return;
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? await findSession(db, token, new Date()) : undefined;
    if (!session) return reply.redirect('/admin/login', 303);
    request.adminSession = session;
  });

  // Every form carries a token that a page of another site cannot know (synchroniser token with
  // the session; before sign-in, a double-submit cookie).
  app.addHook('preValidation', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const expected = request.routeOptions.config.adminPublic ? request.cookies[LOGIN_COOKIE] : request.adminSession?.csrfToken;
    if (!sameToken(formOf(request)._csrf, expected)) {
      throw new AppError('forbidden', 'This form has expired or did not come from this page. Reload the page and try again.');
    }
    // No admin form takes text longer than a password; tighter rules of a field are its page's to
    // check, in its own words. Beyond this, a megabyte would reach the checks and the page shown back.
    const overlong = overlongField(formOf(request), MAX_FORM_TEXT_LENGTH);
    if (overlong !== undefined) throw new AppError('invalid_request', `The field ${overlong} is longer than ${MAX_FORM_TEXT_LENGTH} characters.`);
  });

  const hidden = { hide: true };

  // ---- Sign in and out -------------------------------------------------------------------
  const showLogin = async (request: FastifyRequest, reply: FastifyReply, status = 200, error?: string) => {
    let csrf = request.cookies[LOGIN_COOKIE];
    if (!csrf || !ISSUED_TOKEN.test(csrf)) {
      csrf = randomBytes(24).toString('base64url');
      reply.setCookie(LOGIN_COOKIE, csrf, cookieOptions(request, app.appConfig.publicUrl));
    }
    const passwordSet = (await readPasswordHash(db)) !== undefined;
    return sendPage(request, reply, { status, title: 'Sign in', body: loginPage({ csrf, passwordSet, ...(error ? { error } : {}) }) });
  };

  app.get('/login', { config: { adminPublic: true }, schema: hidden }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token && (await findSession(db, token, new Date()))) return reply.redirect('/admin/keys', 303);
    return showLogin(request, reply);
  });

  app.post('/login', { config: { adminPublic: true }, schema: hidden }, async (request, reply) => {
    const now = options.now();
    const decision = await options.rateLimits.consume(`adminlogin:${request.ip}`, [{ limit: LOGIN_ATTEMPTS, durationMs: LOGIN_WINDOW_MS }], now);
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil(((decision.windows[0]?.resetAt ?? now) - now) / 1000));
      reply.header('retry-after', String(retryAfter));
      return showLogin(request, reply, 429, `Too many sign-in attempts from this address. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`);
    }
    const stored = await readPasswordHash(db);
    const password = field(formOf(request), 'password');
    if (!stored || !(await verifyPassword(password, stored))) return showLogin(request, reply, 401, 'Wrong password.');
    const { token } = await createSession(db, new Date());
    reply.setCookie(SESSION_COOKIE, token, cookieOptions(request, app.appConfig.publicUrl, SESSION_HOURS * 3600));
    reply.clearCookie(LOGIN_COOKIE, { path: COOKIE_PATH });
    return reply.redirect('/admin/keys', 303);
  });

  app.post('/logout', { schema: hidden }, async (request, reply) => {
    if (request.adminSession) await deleteSession(db, request.adminSession.id);
    reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH });
    return reply.redirect('/admin/login', 303);
  });
}
