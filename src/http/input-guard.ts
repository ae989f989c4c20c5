import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, type ErrorDetails } from '../core/errors.js';
import { INTEGER_TEXT, NUMBER_TEXT } from './sent-types.js';

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

/**
 * Nesting deeper than any body or query this API defines. Checked so that a body of a few KB
 * nested 20,000 deep (valid JSON, well under the size limit) cannot exhaust the stack of
 * the code that walks it.
 */
export const MAX_NESTING = 32;

const TOO_DEEP = `must not nest deeper than ${MAX_NESTING} levels`;

/** Adds to `found` each problem in `value`, by field path as validation errors name fields (`bookings.0.notes`). */
function collectUnstorable(value: unknown, path: string, found: ErrorDetails, depth: number): void {
  const field = path || 'body';
  if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
    if (depth >= MAX_NESTING) {
      found[field] = TOO_DEEP;
      return;
    }
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = problemOf(key);
      if (keyProblem) found[field] = `has a key that ${keyProblem}`;
      collectUnstorable(item, path ? `${path}.${key}` : key, found, depth + 1);
    }
  } else {
    const problem = problemOf(value);
    if (problem) found[field] = problem;
  }
}

function unstorable(value: unknown): ErrorDetails | undefined {
  const found: ErrorDetails = {};
  collectUnstorable(value, '', found, 0);
  return Object.keys(found).length > 0 ? found : undefined;
}

function guardError(request: FastifyRequest): AppError | undefined {
  const config = request.routeOptions.config;
  const code = config?.validationErrorCode ?? 'invalid_request';
  const refusal = (where: string, details: ErrorDetails, bodyCode: ErrorCode = code) =>
    // Style 2 (payments) has no details: its text names the fields, and an invalid field is 400.
    config?.errorStyle === 2
      ? new AppError('invalid_request', `Invalid ${where}: ${Object.entries(details).map(([field, problem]) => `${field} ${String(problem)}`).join('; ')}`)
      : new AppError(bodyCode, `Invalid ${where}`, details);
  const inPath = unstorable(request.params);
  if (inPath) return refusal('path parameters', inPath);
  const inQuery = unstorable(request.query);
  if (inQuery) return refusal('query parameters', inQuery);
  const inBody = unstorable(request.body);
  // A value no column stores breaks a field rule: style 3 (customer update) names that 400 customer_update_failed.
  return inBody && refusal(config?.errorStyle === 2 ? 'fields' : 'request body', inBody, config?.errorStyle === 3 ? 'customer_update_failed' : 'validation_failed');
}

const numbersBySchema = new WeakMap<object, [string, RegExp][]>();

/** The fields a params or querystring schema types as integers or numbers, each with how its text must look. */
function numberFields(schema: unknown): [string, RegExp][] {
  if (typeof schema !== 'object' || schema === null) return [];
  let fields = numbersBySchema.get(schema);
  if (!fields) {
    const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
    fields = Object.entries(properties).flatMap(([name, property]): [string, RegExp][] =>
      property.type === 'integer' ? [[name, INTEGER_TEXT]] : property.type === 'number' ? [[name, NUMBER_TEXT]] : [],
    );
    numbersBySchema.set(schema, fields);
  }
  return fields;
}

/**
 * Makes each integer or number field of the path or query sent as text that is not written in
 * decimal digits plainly not a number, so that validation refuses it ("must be integer", a
 * malformed id is 400) in the same answer as every other bad parameter, in the route's own error style.
 */
function markMalformedNumbers(values: unknown, schema: unknown): void {
  for (const [field, pattern] of numberFields(schema)) {
    const value = (values as Record<string, unknown>)[field];
    if (typeof value === 'string' && !pattern.test(value)) (values as Record<string, unknown>)[field] = 'not a number';
  }
}

/**
 * Refuses, after schema validation and before any handler, the values the schemas let through
 * that the databases cannot store, in values and in object keys, and nesting deeper than
 * MAX_NESTING. NUL is valid JSON and valid in a URL. Infinity comes from Ajv's coercion of
 * number fields: it turns "Infinity" or "1e400" in a query into Infinity and then skips minimum
 * and maximum, which only check finite numbers. Before validation, integers in the path and query
 * and numbers in the path and query that are not written in decimal digits are marked to fail it.
 */
export function registerInputGuard(app: FastifyInstance): void {
  // Before validation, which coerces path and query text to numbers: only then is the text seen as sent.
  app.addHook('preValidation', (request, _reply, done) => {
    const schema = request.routeOptions.schema;
    if (schema) {
      markMalformedNumbers(request.params, schema.params);
      markMalformedNumbers(request.query, schema.querystring);
    }
    done();
  });
  // Callback style: an async hook costs every request a promise and a microtask turn.
  app.addHook('preHandler', (request, _reply, done) => {
    // A route that handles its own validation errors (attachValidation) reports those first.
    done(request.validationError ? undefined : guardError(request));
  });
}
