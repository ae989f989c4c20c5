import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as Fastify parses them (prototype and constructor poisoning refused), except that an
 * empty body is no body: many client wrappers send `Content-Type: application/json` on every
 * request, a DELETE included. A route that needs a body still refuses its absence, by its schema.
 */
export function registerJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
}
