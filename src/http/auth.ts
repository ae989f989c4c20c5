import type { Actor } from '../core/actor.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { NodeEnv } from '../config.js';
import { grants, type ApiKey } from '../core/access.js';
import { AppError } from '../core/errors.js';
import type { RateDecision, RateLimitStore, WindowState } from './rate-limit-store.js';
import { API_ROOT } from './route-config.js';

/** What the audit trail records of a request. */
export interface RequestRecord {
  at: string;
  key_id: number | null;
  method: string;
  /** URL path without the query string: queries may carry personal data. */
  path: string;
  status: number;
  ip: string;
  duration_ms: number;
}

export interface AuthOptions {
  /** The active key with this value, if any (the api-keys module's lookup). */
  findKey: (presented: string) => Promise<ApiKey | undefined>;
  nodeEnv: NodeEnv;
  rateLimits: RateLimitStore;
  /** Takes each audited request's record; must not block (the audit module buffers them). */
  audit: { record(entry: RequestRecord): void };
  /** The clock for rate-limit windows (Unix ms). */
  now: () => number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Contract §5: failed authentications per client IP and minute. */
export const FAILED_AUTH_PER_MINUTE = 30;

function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const authorization = request.headers.authorization;
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  return bearer?.[1];
}

/** The window with the fewest requests left (contract §5); on a tie, the one ending first. */
function tightest(windows: readonly WindowState[]): WindowState {
  return windows.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt < a.resetAt) ? b : a));
}

function rateLimitError(decision: RateDecision, now: number): AppError {
  const exhausted = decision.windows.filter((w) => w.remaining === 0);
  const resetAt = Math.max(...exhausted.map((w) => w.resetAt));
  const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
  return new AppError('rate_limit_exceeded', `Rate limit exceeded; retry in ${retryAfter} s`, undefined, {
    extra: { retry_after: retryAfter },
  });
}

/** X-RateLimit-* of the window with the fewest requests left (contract §5). */
function setRateLimitHeaders(reply: FastifyReply, decision: RateDecision): void {
  const window = tightest(decision.windows);
  reply.header('x-ratelimit-limit', String(window.limit));
  reply.header('x-ratelimit-remaining', String(window.remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(window.resetAt / 1000)));
}

/**
 * Authentication, per-key rate limits, permission checks and the audit trail for every route
 * under the API root that is not public.
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('apiKey', undefined);
  app.decorateRequest('audited', false);

  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(API_ROOT) && route.config?.permission === undefined) {
      throw new Error(`${route.method.toString()} ${route.url} declares no permission`);
    }
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const { permission, forbiddenCode } = request.routeOptions.config;
    if (permission === undefined || permission === 'public') return;
    request.audited = true;
    const now = options.now();

    const presented = presentedKey(request);
    const key: ApiKey | undefined = presented === undefined ? undefined : await options.findKey(presented);
    const refusedInProduction = key?.type === 'test' && options.nodeEnv === 'production';
    if (!key || refusedInProduction) {
      const decision = await options.rateLimits.consume(`authfail:${request.ip}`, [{ limit: FAILED_AUTH_PER_MINUTE, durationMs: MINUTE_MS }], now);
      // Without a key, the headers describe the client's budget of failed authentications.
      setRateLimitHeaders(reply, decision);
      if (!decision.allowed) {
        const error = rateLimitError(decision, now);
        reply.header('retry-after', String(error.extra?.retry_after));
        throw error;
      }
      throw new AppError(
        'unauthorized',
        presented === undefined
          ? 'Missing API key: send X-API-Key or Authorization: Bearer'
          : refusedInProduction
            ? 'Test keys are not accepted in production'
            : 'Invalid or revoked API key',
      );
    }
    request.apiKey = key;

    const decision = await options.rateLimits.consume(
      `key:${key.id}:${key.created_at}`,
      [
        { limit: key.per_minute, durationMs: MINUTE_MS },
        { limit: key.per_hour, durationMs: HOUR_MS },
      ],
      now,
    );
    setRateLimitHeaders(reply, decision);
    if (!decision.allowed) {
      const error = rateLimitError(decision, now);
      reply.header('retry-after', String(error.extra?.retry_after));
      throw error;
    }

    if (permission !== 'any' && !grants(key.permissions, permission)) {
      const code = forbiddenCode ?? 'forbidden';
      throw new AppError(
        code,
        `This key lacks the permission ${permission}`,
        code === 'insufficient_permissions' ? { required_permission: permission } : undefined,
      );
    }
  });

  // Callback style, as recording is synchronous: an async hook costs every request a promise.
  app.addHook('onResponse', (request, reply, done) => {
    if (request.audited) {
      const query = request.url.indexOf('?');
      options.audit.record({
        at: new Date().toISOString(),
        key_id: request.apiKey?.id ?? null,
        method: request.method,
        path: query === -1 ? request.url : request.url.slice(0, query),
        status: reply.statusCode,
        ip: request.ip,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      });
    }
    done();
  });
}

/** Who a request under the API root acts as, for the events its change records. */
export function apiActor(request: FastifyRequest): Actor {
  const key = request.apiKey;
  if (key === undefined) throw new Error(`${request.method} ${request.url} has no API key to act as`);
  return { source: { type: 'api_key', api_key_id: key.id }, requestId: request.id };
}
