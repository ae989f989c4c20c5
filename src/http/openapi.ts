import { STATUS_CODES } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import type { SwaggerOptions } from '@fastify/swagger';
import type { TSchema } from 'typebox';
import type { Config } from '../config.js';
import { API_ROOT } from './route-config.js';
import { closedSchema } from './strict-input.js';
import { errorResponses, RULES_CHECKED_IN_CODE } from './schemas.js';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The body as the document shows it, where the route checks parts of the body itself: each
     * bulk element is checked alone, so that a bad one fails alone and not the request.
     */
    documentedBody?: TSchema;
  }
}

const IDEMPOTENCY_HEADER_SCHEMA = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      maxLength: 255,
      description:
        'Makes a retry safe: the first response to this key (and this exact request) is stored for at least ' +
        '24 hours and replayed to retries without doing the work again; the same key with a different ' +
        'request answers 422 idempotency_key_reused. A replayed answer carries the header Idempotent-Replayed: true. ' +
        'A retry while the first request is still being worked on waits for it, then answers 409 ' +
        'idempotency_key_in_progress after 15 s. If the service stopped after the work committed but before ' +
        'answering, a retry answers 409 idempotency_response_lost instead of doing it again: read the resource. ' +
        'Answers to requests that were handled are stored, errors included; a request refused before it is handled ' +
        '(authentication, permission, size, rate limit, or a body that fails its schema, except on /payments, which ' +
        'reports those itself) and server errors (5xx) store nothing: the key stays free for a corrected request.',
    },
  },
};

/** One entry per tag the routes use; a route with a tag not listed here fails the document's lint. */
const TAGS = [
  { name: 'agents', description: 'The people who are booked: their details, and the services and locations each serves' },
  { name: 'availability', description: 'Free start times of a service, per day, for one agent or any' },
  { name: 'bookings', description: 'Appointments: an agent, a service, a location and a customer at a time; each has an order' },
  { name: 'categories', description: 'Named groups of services and of locations' },
  { name: 'coupons', description: 'Discount codes an order or a new booking can apply' },
  { name: 'customers', description: 'The people bookings are made for' },
  { name: 'events', description: 'The change feed: every change of a booking, customer, order, invoice or payment, in commit order' },
  { name: 'locations', description: 'The places where services are given' },
  { name: 'orders', description: "What a customer owes for bookings: items, invoices and the order's payment transactions" },
  { name: 'payments', description: 'Captures and refunds recorded against orders (error style 2)' },
  { name: 'schedules', description: "The site's weekly hours and exceptions, and an agent's own" },
  { name: 'services', description: 'What can be booked: duration, price, capacity and buffers' },
  { name: 'settings', description: 'Site-wide settings: timezone, currency, the booking window, slot interval' },
  { name: 'webhooks', description: 'Endpoints that receive signed events (Standard Webhooks), and their deliveries' },
  { name: 'status', description: "The site's timezone and the current time: a cheap check of a key" },
];

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' as const, minimum: 0 } });
const HEADERS = {
  RequestId: { description: 'Identifies the request in the service log; quote it when reporting a problem', schema: { type: 'string' as const, format: 'uuid' } },
  RateLimitLimit: integerHeader("Requests allowed in the key's window with the fewest left (minute or hour)"),
  RateLimitRemaining: integerHeader('Requests left in that window'),
  RateLimitReset: integerHeader('When that window ends, in Unix seconds'),
  RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer' as const, minimum: 1 } },
  IdempotentReplayed: {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key, replayed',
    schema: { type: 'string' as const, enum: ['true'] },
  },
};
type HeaderName = keyof typeof HEADERS;

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
// Inline, not referred to: a reference object takes no `required` beside it.
const header = (name: HeaderName, required: boolean) => ({ ...HEADERS[name], required });

/**
 * The response headers of one answer: every answer names its request; an authenticated one that
 * got past the key check carries the rate-limit window; a rate-limited one says when to come
 * back; an answer to a POST or PUT that was handled may be a stored one replayed.
 */
function responseHeaders(status: string, method: string): Json {
  const code = Number(status);
  const checkedKey = code < 400;
  const replayable = (method === 'post' || method === 'put') && code < 500 && ![401, 403, 413, 429].includes(code);
  return {
    'X-Request-Id': header('RequestId', true),
    'X-RateLimit-Limit': header('RateLimitLimit', checkedKey),
    'X-RateLimit-Remaining': header('RateLimitRemaining', checkedKey),
    'X-RateLimit-Reset': header('RateLimitReset', checkedKey),
    ...(code === 429 || code === 503 ? { 'Retry-After': header('RetryAfter', true) } : {}),
    ...(replayable ? { 'Idempotent-Replayed': header('IdempotentReplayed', false) } : {}),
  };
}

const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;
// Values, not schemas: a title inside them is data.
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'const', 'enum']);

/**
 * Moves every schema with a title (a resource, a list item: `Type.Object(..., { title: 'Booking' })`)
 * into components.schemas and refers to it there, so that generators name the type. The route
 * schemas stay inline for validation and serialisation; only the document refers.
 */
function hoistNamedSchemas(document: Json, schemas: Json): void {
  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist);
    if (!isJson(node)) return node;
    const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, DATA_KEYWORDS.has(key) ? value : hoist(value)]));
    const name = copy.title;
    if (typeof name !== 'string' || !COMPONENT_NAME.test(name) || copy.type === undefined) return copy;
    if (schemas[name] !== undefined && !isDeepStrictEqual(schemas[name], copy)) throw new Error(`Two different schemas are titled ${name}`);
    schemas[name] = copy;
    return { $ref: `#/components/schemas/${name}` };
  };
  document.paths = hoist(document.paths);
}

/** The headers and a description of every answer of every operation. */
function describeResponses(document: Json): void {
  for (const [url, operations] of Object.entries(document.paths as Json)) {
    if (!url.startsWith(API_ROOT) || !isJson(operations)) continue;
    for (const [method, operation] of Object.entries(operations)) {
      if (!isJson(operation) || !isJson(operation.responses)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!isJson(response)) continue;
        response.headers = { ...responseHeaders(status, method), ...(response.headers as Json | undefined) };
        // The generator's placeholder, or the error envelope's name alone, says nothing of the status.
        const reason = STATUS_CODES[status] ?? status;
        response.description = response.description === 'Default Response' ? reason : `${reason}: ${String(response.description)}`;
      }
    }
  }
}

/** A copy of a route's schema with the rules its code checks (checkedInCode) written into each field. */
function withRulesCheckedInCode(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withRulesCheckedInCode);
  if (!isJson(schema)) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, withRulesCheckedInCode(value)]));
  const rules = (schema as Record<symbol, unknown>)[RULES_CHECKED_IN_CODE];
  return isJson(rules) ? { ...copy, ...rules } : copy;
}

/** OpenAPI 3.1 from the route schemas; each operation names the permission its key needs. */
export function openApiOptions(config: Config): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Booking API',
        version: '1.0.0',
        description:
          'Book agents for services at locations; manage customers, orders, invoices, payments and coupons. ' +
          'Every operation needs an API key (X-API-Key or Authorization: Bearer) holding the permission it names. ' +
          'Responses carry X-Request-Id, and X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset once the key is checked.',
        license: { name: 'Proprietary', url: `${config.publicUrl}/docs` },
        contact: { name: 'Booking API support', url: `${config.publicUrl}/docs` },
      },
      servers: [{ url: config.publicUrl }],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => {
      const permission = route.config?.permission;
      if (!url.startsWith(API_ROOT) || permission === undefined || permission === 'public') return { schema, url };
      const needs = permission === 'any' ? 'Any valid API key.' : `Permission: \`${permission}\`.`;
      const methods = [route.method].flat();
      const takesBody = methods.includes('POST') || methods.includes('PUT');
      const style = route.config?.errorStyle ?? 1;
      const { documentedBody, ...routeSchema } = withRulesCheckedInCode(schema ?? {}) as NonNullable<typeof schema>;
      const body = documentedBody ?? routeSchema.body;
      return {
        url,
        schema: {
          ...routeSchema,
          // Closed as the validator closes it: generated clients know a field the operation does not define is refused.
          ...(body === undefined ? {} : { body: closedSchema(body) }),
          description: schema?.description ? `${schema.description}\n\n${needs}` : needs,
          security: [{ apiKey: [] }, { bearer: [] }],
          ...(takesBody ? { headers: { ...IDEMPOTENCY_HEADER_SCHEMA, ...(routeSchema.headers as object | undefined) } } : {}),
          // Every operation refuses a query parameter (or body field) it does not define (400); one
          // that takes a body also has the answers of Idempotency-Key, a request in progress or
          // lost (409) and a key reused (422), and a body over 1 MiB (413).
          response: { ...errorResponses(takesBody ? [400, 409, 413, 422] : [400], style), ...(routeSchema.response as object | undefined) },
        },
      };
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const document = documentObject.openapiObject as unknown as Json;
      const components = document.components as Json;
      hoistNamedSchemas(document, components.schemas as Json);
      describeResponses(document);
      return documentObject.openapiObject;
    },
  };
}
