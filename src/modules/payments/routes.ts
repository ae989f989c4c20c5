import type { FastifyRequest, FastifySchemaValidationError } from 'fastify';
import type { App } from '../../core/app.js';
import { apiActor } from '../../http/auth.js';
import { isDatabaseUnavailable } from '../../db/database.js';
import { validationDetails } from '../../http/error-handler.js';
import { AppError } from '../../core/errors.js';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.js';
import { TRANSACTION_STATUSES } from '../orders/index.js';
import { PaymentCreateBody, PaymentIdParams, PaymentListQuery, PaymentListResponse, PaymentResponse, PaymentUpdateBody } from './schemas.js';
import * as service from './service.js';

const tags = ['payments'];
// Style 2 (spec, Errors): `{success: false, error: "text"}`; 400 / 404 / 422 / 500 (contract §5).
const config = (permission: 'payments:read' | 'payments:write') => ({ permission, errorStyle: 2 as const });
const errors = (statuses: readonly number[]) => errorResponses([...statuses, ...AUTH_ERRORS], 2);

/**
 * Schema violations become style-2 texts that name the problem: missing required fields, an
 * invalid identifier, the invalid fields, or (when that is all that is wrong) an invalid payment
 * status (422).
 */
function rejectInvalid(request: FastifyRequest): void {
  const failure = request.validationError;
  if (!failure) return;
  const issues = failure.validation as FastifySchemaValidationError[];
  if (failure.validationContext === 'params') {
    throw new AppError('invalid_request', 'Invalid payment identifier: id must be a positive integer');
  }
  const missing = issues.filter((i) => i.keyword === 'required').map((i) => String(i.params.missingProperty));
  if (missing.length > 0) throw new AppError('invalid_request', `Missing required fields: ${missing.join(', ')}`);
  const isStatus = (issue: FastifySchemaValidationError) => failure.validationContext === 'body' && issue.instancePath === '/status';
  const others = issues.filter((issue) => !isStatus(issue));
  if (others.length === 0) {
    throw new AppError('validation_failed', `Invalid payment status: must be one of ${TRANSACTION_STATUSES.join(', ')}`);
  }
  const where = failure.validationContext === 'querystring' ? 'query parameters' : 'fields';
  const problems = Object.entries(validationDetails(others)).map(([field, problem]) => `${field} ${String(problem)}`);
  throw new AppError('invalid_request', `Invalid ${where}: ${problems.join('; ')}`);
}

/** A write that fails for a reason other than the request is the style-2 "failed" text (500). */
function failed(request: FastifyRequest, error: unknown, text: string): unknown {
  if (error instanceof AppError || isDatabaseUnavailable(error)) return error;
  request.log.error({ err: error }, text);
  return new AppError('server_error', text);
}

export default async function paymentRoutes(app: App): Promise<void> {
  app.post(
    '/payments',
    {
      config: config('payments:write'),
      attachValidation: true,
      schema: {
        operationId: 'createPayment',
        summary: 'Record a capture or refund of an order, within the balance due or the net paid (docs/money.md)',
        tags,
        body: PaymentCreateBody,
        response: { 201: PaymentResponse, ...errors([400, 404, 422]) },
      },
    },
    async (request, reply) => {
      rejectInvalid(request);
      const data = await service.createPayment(app.db, { actor: apiActor(request), site: request.site, bookings: app.bookingEvents }, request.body).catch((error: unknown) => {
        throw failed(request, error, 'Failed to create payment');
      });
      return reply.status(201).send({ success: true as const, message: 'Payment recorded', data });
    },
  );

  app.get(
    '/payments',
    {
      config: config('payments:read'),
      attachValidation: true,
      schema: {
        operationId: 'listPayments',
        summary: 'List payments, newest first',
        tags,
        querystring: PaymentListQuery,
        response: { 200: PaymentListResponse, ...errors([400]) },
      },
    },
    async (request) => {
      rejectInvalid(request);
      return service.listPayments(app.db, request.site, request.query);
    },
  );

  app.get(
    '/payments/:id',
    {
      config: config('payments:read'),
      attachValidation: true,
      schema: {
        operationId: 'getPayment',
        summary: 'Read a payment',
        tags,
        params: PaymentIdParams,
        response: { 200: PaymentResponse, ...errors([400, 404]) },
      },
    },
    async (request) => {
      rejectInvalid(request);
      return { success: true as const, data: await service.getPayment(app.db, request.site, request.params.id) };
    },
  );

  app.put(
    '/payments/:id',
    {
      config: config('payments:write'),
      attachValidation: true,
      schema: {
        operationId: 'updatePayment',
        summary: 'Update a payment; a succeeded one keeps its amount and kind and may only fail (docs/money.md)',
        tags,
        params: PaymentIdParams,
        body: PaymentUpdateBody,
        response: { 200: PaymentResponse, ...errors([400, 404, 422]) },
      },
    },
    async (request) => {
      rejectInvalid(request);
      const data = await service.updatePayment(app.db, { actor: apiActor(request), site: request.site, bookings: app.bookingEvents }, request.params.id, request.body).catch((error: unknown) => {
        throw failed(request, error, `Failed to update payment ${request.params.id}`);
      });
      return { success: true as const, message: 'Payment updated', data };
    },
  );
}
