import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../config.js';
import { API_ROOT } from './route-config.js';
import { errorResponses } from './schemas.js';

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
          'Responses carry X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset.',
      },
      servers: [{ url: config.publicUrl }],
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
      const retriable = methods.includes('POST') || methods.includes('PUT');
      return {
        url,
        schema: {
          ...schema,
          description: schema?.description ? `${schema.description}\n\n${needs}` : needs,
          security: [{ apiKey: [] }, { bearer: [] }],
          ...(retriable
            ? {
                headers: { ...IDEMPOTENCY_HEADER_SCHEMA, ...(schema?.headers as object | undefined) },
                // The answers of Idempotency-Key: a request in progress or lost (409), a key reused (422).
                response: { ...errorResponses([409, 422], route.config?.errorStyle ?? 1), ...(schema?.response as object | undefined) },
              }
            : {}),
        },
      };
    },
  };
}
