import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type ErrorDetails } from '../core/errors.js';
import { nearestName } from '../lib/text.js';
import { API_ROOT } from './route-config.js';

type Schema = Record<string | symbol, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The schema with every object that lists its fields closed to others: a misspelt field is an
 * error naming it, not silently ignored (Stripe's rule). Maps (objects with patternProperties or
 * no listed fields, such as metadata) stay open. Symbol keys (TypeBox's kind) are kept.
 */
export function closedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedSchema);
  if (!isSchema(schema)) return schema;
  const copy: Schema = { ...schema };
  if (isSchema(copy.properties)) {
    copy.properties = Object.fromEntries(Object.entries(copy.properties).map(([name, field]) => [name, closedSchema(field)]));
    if (copy.additionalProperties === undefined && copy.patternProperties === undefined) copy.additionalProperties = false;
  }
  for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'then', 'else'] as const) {
    if (copy[key] !== undefined) copy[key] = closedSchema(copy[key]);
  }
  return copy;
}

/** The request parts whose schemas are closed: what a client sends to the API, not what it is sent. */
export const closesPart = (httpPart: string, url: string): boolean => (httpPart === 'body' || httpPart === 'querystring') && url.startsWith(API_ROOT);

export function unknownFieldMessage(name: string, known: readonly string[]): string {
  const near = nearestName(name, known);
  return near === undefined ? 'is not a field of this operation' : `is not a field of this operation; did you mean ${near}?`;
}

/** A body sent to an operation that takes none: each field it names is unknown, anything else is refused whole. */
function refuseUnexpectedBody(request: FastifyRequest): void {
  const { body } = request;
  if (body === undefined || body === null) return;
  if (isSchema(body)) {
    const names = Object.keys(body);
    if (names.length === 0) return;
    const details: ErrorDetails = Object.fromEntries(names.map((name) => [name, 'is not a field of this operation (it takes no body)']));
    throw new AppError(request.routeOptions.config?.validationErrorCode ?? 'invalid_request', 'Invalid body', details);
  }
  throw new AppError(request.routeOptions.config?.validationErrorCode ?? 'invalid_request', 'Invalid body', { body: 'this operation takes no body' });
}

/**
 * Every API operation declares its query and body: one that declares no query parameters refuses
 * any (by an empty, closed query schema), one that declares no body refuses a body with content.
 * Must be registered before the routes.
 */
export function registerStrictInput(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(API_ROOT)) return;
    const schema = route.schema ?? {};
    route.schema = schema;
    schema.querystring ??= { type: 'object', properties: {} };
    if (schema.body === undefined) {
      const earlier = route.preValidation === undefined ? [] : [route.preValidation].flat();
      route.preValidation = [...earlier, async (request) => refuseUnexpectedBody(request)];
    }
  });
}
