import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isForeignKeyViolation } from '../db/constraints.js';
import { isDatabaseUnavailable } from '../db/database.js';
import { AppError, renderError, type ErrorDetails, type ErrorStyle } from '../core/errors.js';
import { API_ROOT } from './route-config.js';
import { patternMeaning } from './text-patterns.js';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

function fieldOf(issue: ValidationIssue): string {
  if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string') {
    const parent = issue.instancePath.slice(1).replaceAll('/', '.');
    return parent ? `${parent}.${issue.params.missingProperty}` : issue.params.missingProperty;
  }
  return issue.instancePath.slice(1).replaceAll('/', '.') || 'body';
}

function messageOf(issue: ValidationIssue): string {
  if (issue.keyword === 'required') return 'is required';
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
    // A field that may be cleared lists null among its values; it is no value to name.
    return `must be one of ${issue.params.allowedValues.filter((value) => value !== null).join(', ')}`;
  }
  if (issue.keyword === 'pattern') return patternMeaning(issue.params.pattern);
  if (issue.keyword === 'format' && issue.params.format === 'date') return 'must be a date as YYYY-MM-DD';
  return issue.message ?? 'is invalid';
}

/**
 * What says least about a field: the null branch's complaint of a field that may also be null, and
 * the summaries of anyOf and of the if/then/else that sent-types wraps every typed field in.
 */
const saysLittle = (issue: ValidationIssue) =>
  issue.keyword === 'anyOf' || issue.keyword === 'if' || (issue.keyword === 'type' && issue.params.type === 'null');

/** One detail per field, named as the client sent it (query parameter, body field, path param). */
export function validationDetails(issues: readonly ValidationIssue[]): ErrorDetails {
  const details: ErrorDetails = {};
  const vague = new Set<string>();
  for (const issue of issues) {
    // anyOf/oneOf repeat each branch's complaint; the first that says something names the field well enough.
    const field = fieldOf(issue);
    const better = !(field in details) || (vague.has(field) && !saysLittle(issue));
    if (!better) continue;
    details[field] = messageOf(issue);
    if (saysLittle(issue)) vague.add(field);
    else vague.delete(field);
  }
  return details;
}

function toAppError(error: FastifyError, request: FastifyRequest): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error.validation) {
    const code = request.routeOptions.config?.validationErrorCode ?? 'invalid_request';
    const where = error.validationContext === 'querystring' ? 'query parameters' : (error.validationContext ?? 'request');
    return new AppError(code, `Invalid ${where}`, validationDetails(error.validation));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('invalid_request', 'Request body is larger than 1 MiB', undefined, { status: 413 });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('invalid_request', 'Request body must be JSON (Content-Type: application/json)');
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('invalid_request', 'Request body is not valid JSON');
  }
  if (isDatabaseUnavailable(error)) {
    return new AppError('service_not_available', 'The booking system is unavailable; try again shortly');
  }
  if (isForeignKeyViolation(error)) {
    // Writes check what they refer to under the lock its removal takes; this is the last line of
    // defence should one not, and the logged error says which.
    request.log.warn({ err: error }, 'a write refers to a record removed while it ran');
    return new AppError('data_inconsistency', 'A record this request refers to was removed while it ran; repeat the request to see which');
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    // Other client errors raised by Fastify itself (bad content length, bad URL encoding, …).
    return new AppError('invalid_request', 'Malformed request', undefined, { status: error.statusCode });
  }
  return undefined;
}

function sendError(reply: FastifyReply, error: AppError, style: ErrorStyle): void {
  void reply.status(error.statusCode).type('application/json; charset=utf-8').send(JSON.stringify(renderError(error, style)));
}

/** The paths of the payment routes, whose errors are style 2 (spec), known by the path alone before routing. */
const PAYMENTS_PATH = new RegExp(`^${API_ROOT}/payments(?:[/?]|$)`);

/**
 * Errors Fastify meets before a request reaches a route, in the envelope of every other error: a
 * path that is not valid percent-encoding, or a path segment longer than the router takes.
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('invalid_request', 'A path segment is too long', undefined, { status: 414 })
      : new AppError('invalid_request', 'The path is not valid percent-encoding');
  sendError(reply.header('x-request-id', request.id), appError, PAYMENTS_PATH.test(request.url) ? 2 : 1);
}

/**
 * Requests Node's parser refuses before Fastify sees them (headers over 16 KiB, a malformed
 * Content-Length, a request too slow to arrive): answered as Fastify would, in the envelope of
 * every other error and with an X-Request-Id, then the connection is closed.
 */
export function clientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const [status, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are larger than 16 KiB']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'The request took too long to arrive']
          : [400, 'Malformed HTTP request'];
    const body = JSON.stringify(renderError(new AppError('invalid_request', message, undefined, { status }), 1));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** The single place where errors become HTTP answers. Nothing internal ever reaches the client. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const style = request.routeOptions.config?.errorStyle ?? 1;
    let appError = toAppError(error, request);
    if (appError?.code === 'service_not_available') {
      request.log.warn({ err: error }, 'database unavailable');
    } else if (!appError) {
      request.log.error({ err: error }, 'unexpected error');
      appError = new AppError('server_error', style === 2 ? 'Failed to process the payment request' : 'Internal server error');
    }
    sendError(reply, appError, style);
  });

  // A known path asked with another method is 405 with the methods it takes, not 404.
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  app.addHook('onRoute', (route) => {
    const known = routes.get(route.url) ?? { pattern: pathPattern(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) known.methods.add(method);
    routes.set(route.url, known);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const allowed = new Set<string>();
    for (const { pattern, methods } of routes.values()) if (pattern.test(path)) for (const method of methods) allowed.add(method);
    if (allowed.size === 0) {
      sendError(reply, new AppError('not_found', `No route ${request.method} ${path}`), 1);
      return;
    }
    const allow = [...allowed].sort().join(', ');
    sendError(reply.header('allow', allow), new AppError('method_not_allowed', `${path} does not take ${request.method}; it takes ${allow}`), PAYMENTS_PATH.test(path) ? 2 : 1);
  });
}

/** A route's path (`/bookings/:id`) as a pattern that concrete paths match: a parameter is one segment, `*` the rest. */
function pathPattern(url: string): RegExp {
  const parts = url.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('/')}$`);
}
