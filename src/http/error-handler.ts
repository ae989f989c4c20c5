import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isForeignKeyViolation } from '../db/constraints.js';
import { isDatabaseUnavailable } from '../db/database.js';
import { AppError, renderError, type ErrorDetails, type ErrorStyle } from '../core/errors.js';
import type { Outage } from '../core/outage.js';
import { API_ROOT } from './route-config.js';
import { isAnswered } from './connections.js';
import { patternMeaning } from './text-patterns.js';
import { unknownFieldMessage } from './strict-input.js';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** The schema holding the failed keyword (Ajv's verbose option). */
  parentSchema?: object;
}

function knownFields(schema: object | undefined): string[] {
  const properties = schema !== undefined && 'properties' in schema ? schema.properties : undefined;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** The field an issue is about: the missing or unknown one itself, not the object that lacks or holds it. */
function fieldOf(issue: ValidationIssue): string {
  const parent = issue.instancePath.slice(1).replaceAll('/', '.');
  const named = issue.keyword === 'required' ? issue.params.missingProperty : issue.keyword === 'additionalProperties' ? issue.params.additionalProperty : undefined;
  if (typeof named === 'string') return parent ? `${parent}.${named}` : named;
  return parent || 'body';
}

// A field that may be cleared lists null among its values; it is no value to name.
const oneOf = (values: readonly unknown[]) => `must be one of ${values.filter((value) => value !== null).map(String).join(', ')}`;

function messageOf(issue: ValidationIssue): string {
  if (issue.keyword === 'required') return 'is required';
  if (issue.keyword === 'additionalProperties') {
    return unknownFieldMessage(String(issue.params.additionalProperty), knownFields(issue.parentSchema));
  }
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) return oneOf(issue.params.allowedValues);
  if (issue.keyword === 'pattern') return patternMeaning(issue.params.pattern);
  if (issue.keyword === 'format' && issue.params.format === 'date') return 'must be a date as YYYY-MM-DD';
  // Ajv says "must NOT have more than 5000 characters"; the limit reads better as a maximum.
  if (issue.keyword === 'maxLength') return `must be at most ${String(issue.params.limit)} characters`;
  if (issue.keyword === 'maxItems') return `must have at most ${String(issue.params.limit)} items`;
  if (issue.keyword === 'maxProperties') return `must have at most ${String(issue.params.limit)} keys`;
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
  // A union of constants (TypeBox's literal unions) fails once per constant: together they are its values.
  const constants = new Map<string, unknown[]>();
  for (const issue of issues) {
    if (issue.keyword !== 'const') continue;
    const field = fieldOf(issue);
    constants.set(field, [...(constants.get(field) ?? []), issue.params.allowedValue]);
  }
  for (const issue of issues) {
    // anyOf/oneOf repeat each branch's complaint; the first that says something names the field well enough.
    const field = fieldOf(issue);
    const better = !(field in details) || (vague.has(field) && !saysLittle(issue));
    if (!better) continue;
    details[field] = issue.keyword === 'const' ? oneOf(constants.get(field) ?? []) : messageOf(issue);
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
 * Writes an error answer straight onto a connection Fastify is not answering, in the envelope of
 * every other error and with an X-Request-Id, then closes it.
 */
function answerRaw(socket: Duplex, error: AppError, style: ErrorStyle, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(renderError(error, style));
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(
    `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

/**
 * Requests Node's parser refuses before Fastify sees them (headers over 16 KiB, a malformed
 * Content-Length, a request or its headers slower to arrive than their timeouts): answered as
 * Fastify would, in the envelope of every other error, then the connection is closed. A
 * connection whose request is answered already (a 413 read to its end) is only closed: another
 * answer would be read as the answer to the client's next request.
 */
export function clientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable && !isAnswered(socket)) {
    const [status, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are larger than 16 KiB']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'The request took too long to arrive']
          : [400, 'Malformed HTTP request'];
    answerRaw(socket, new AppError('invalid_request', message, undefined, { status }), 1);
  }
  socket.destroy(error);
}

const SHUTTING_DOWN = 'The server is shutting down; send the request again';

/**
 * A request that arrives while the server shuts down is refused before anything of it runs, so
 * that the client may safely send it again (to another instance).
 */
export function refuseWhileClosing(request: FastifyRequest, reply: FastifyReply): void {
  const style = request.routeOptions.config?.errorStyle ?? 1;
  sendError(reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S)), new AppError('service_not_available', SHUTTING_DOWN), style);
}

/** The same refusal for a request still arriving when the shutdown begins (path, when its headers are in). */
export function refuseArrivingWhileClosing(socket: Duplex, path: string | undefined): void {
  if (socket.destroyed) return;
  if (socket.writable && !isAnswered(socket)) {
    const style = path !== undefined && PAYMENTS_PATH.test(path) ? 2 : 1;
    answerRaw(socket, new AppError('service_not_available', SHUTTING_DOWN), style, { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) });
  }
  socket.destroy();
}

/** How much of an oversized body is read and dropped after its 413, and for how long, before the connection is cut. */
export const OVERSIZED_DRAIN = { bytes: 64 * 1024 * 1024, ms: 30_000 };

/**
 * A client still sending an oversized body when its 413 is sent loses the answer if the server
 * closes at once: the kernel answers the unread bytes with a reset, and the client's send fails
 * before it reads (EPIPE). Instead the rest of the body is read and dropped (Node dumps what
 * nobody reads), up to a bound, and the connection stays open for the client's next request;
 * past the bound it is cut.
 */
function drainAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  void reply.removeHeader('connection');
  reply.raw.once('finish', () => {
    const body = request.raw;
    if (body.complete) return;
    let read = 0;
    // Destroying the request destroys its socket (an injected request has none).
    const cut = () => body.destroy();
    const timer = setTimeout(cut, OVERSIZED_DRAIN.ms);
    timer.unref();
    body.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > OVERSIZED_DRAIN.bytes) cut();
    });
    body.once('close', () => clearTimeout(timer));
  });
}

/** Seconds a client is told to wait after a 503. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/**
 * The single place where errors become HTTP answers. Nothing internal ever reaches the client.
 * A database outage is logged once by `databaseOutage`, which counts the requests it refuses.
 */
export function registerErrorHandler(app: FastifyInstance, databaseOutage: Outage): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const style = request.routeOptions.config?.errorStyle ?? 1;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') drainAfterAnswer(request, reply);
    let appError = toAppError(error, request);
    if (appError?.code === 'service_not_available') {
      databaseOutage.refused(error);
    } else if (!appError) {
      request.log.error({ err: error }, 'unexpected error');
      appError = new AppError('server_error', style === 2 ? 'Failed to process the payment request' : 'Internal server error');
    }
    // An outage is short (a restart, a failover): a client told when to come back does not hammer it.
    if (appError.statusCode === 503) void reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
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
