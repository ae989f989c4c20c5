import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type ErrorDetails } from './errors.js';

/** In `u` mode a surrogate pair is one code point, so this matches only a surrogate standing alone. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * What makes a single value unstorable in any column, or undefined: text with the NUL character,
 * which PostgreSQL text cannot store; text with a lone surrogate (\ud800 in JSON), which neither
 * engine stores as sent; a number that is not finite.
 */
function problemOf(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return 'must not contain the NUL character';
    if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (a lone surrogate is not)';
  } else if (typeof value === 'number' && !Number.isFinite(value)) {
    return 'must be a finite number';
  }
  return undefined;
}

/** Adds to `found` each problem in `value`, by field path as validation errors name fields (`bookings.0.notes`). */
function collectUnstorable(value: unknown, path: string, found: ErrorDetails): void {
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => collectUnstorable(item, path ? `${path}.${index}` : String(index), found));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) collectUnstorable(item, path ? `${path}.${key}` : key, found);
  } else {
    const problem = problemOf(value);
    if (problem) found[path] = problem;
  }
}

function unstorable(value: unknown): ErrorDetails | undefined {
  const found: ErrorDetails = {};
  collectUnstorable(value, '', found);
  return Object.keys(found).length > 0 ? found : undefined;
}

/** True when collectUnstorable would find nothing; without building a field path per value, as every request asks. */
function storable(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(storable);
  if (value !== null && typeof value === 'object') {
    for (const key in value) if (!storable((value as Record<string, unknown>)[key])) return false;
    return true;
  }
  return problemOf(value) === undefined;
}

function guardError(request: FastifyRequest): AppError | undefined {
  if (storable(request.params) && storable(request.query) && storable(request.body)) return undefined;
  const code = request.routeOptions.config?.validationErrorCode ?? 'invalid_request';
  const inPath = unstorable(request.params);
  if (inPath) return new AppError(code, 'Invalid path parameters', inPath);
  const inQuery = unstorable(request.query);
  if (inQuery) return new AppError(code, 'Invalid query parameters', inQuery);
  const inBody = unstorable(request.body);
  return inBody && new AppError('validation_failed', 'Invalid request body', inBody);
}

/**
 * Refuses, after schema validation and before any handler, the values the schemas let through
 * that the databases cannot store. NUL is valid JSON and valid in a URL. Infinity comes from
 * Ajv's coercion: it turns "Infinity" or "1e400" in a query or path into Infinity and then skips
 * minimum and maximum, which only check finite numbers.
 */
export function registerInputGuard(app: FastifyInstance): void {
  // Callback style: an async hook costs every request a promise and a microtask turn.
  app.addHook('preHandler', (request, _reply, done) => {
    done(guardError(request));
  });
}
