import type { App } from '../../core/app.js';
import { apiActor } from '../../http/auth.js';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.js';
import {
  CreateCustomerBody,
  CustomerIdParams,
  CustomerCreatedResponse,
  CustomerDeletedResponse,
  CustomerListQuery,
  CustomerListResponse,
  CustomerReadQuery,
  CustomerReadResponse,
  CustomerUpdatedResponse,
  UpdateCustomerBody,
} from './schemas.js';
import { createCustomer, deleteCustomer, getCustomer, listCustomers, parseInclude, updateCustomer } from './service.js';

const tags = ['customers'];

export default async function customerRoutes(app: App): Promise<void> {
  app.get(
    '/customers',
    {
      config: { permission: 'customers:read', validationErrorCode: 'invalid_parameters' },
      schema: {
        operationId: 'listCustomers',
        summary: 'List customers',
        description: 'Envelope A. Any bad query parameter answers 400 invalid_parameters with details naming each one.',
        tags,
        querystring: CustomerListQuery,
        response: { 200: CustomerListResponse, ...errorResponses([400, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const { data, page } = await listCustomers(app.db, request.site, request.query);
      return {
        status: 'success' as const,
        data,
        meta: {
          current_page: page.page,
          per_page: page.perPage,
          total: page.total,
          total_pages: page.totalPages,
          has_next_page: page.hasNext,
          has_previous_page: page.hasPrevious,
        },
      };
    },
  );

  app.post(
    '/customers',
    {
      config: { permission: 'customers:create', forbiddenCode: 'insufficient_permissions' },
      schema: {
        operationId: 'createCustomer',
        summary: 'Create a customer',
        description:
          'A customer with an email gets a welcome mail (outbox). The response adds customer_code, avatar_url, user_id and welcome_email_sent. ' +
          'Errors: 422 validation_failed (field rules), 409 email_already_exists (details: email, existing_customer_id), ' +
          '422 data_inconsistency (preferred_agent_id / preferred_location_id missing or inactive), 403 insufficient_permissions.',
        tags,
        body: CreateCustomerBody,
        response: { 201: CustomerCreatedResponse, ...errorResponses([400, 409, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request, reply) => {
      const customer = await createCustomer(app.db, apiActor(request), request.site, request.body);
      return reply.status(201).send({ success: true as const, message: 'Customer created', data: customer });
    },
  );

  app.get(
    '/customers/:id',
    {
      config: { permission: 'customers:read' },
      schema: {
        operationId: 'getCustomer',
        summary: 'Read a customer',
        description: 'Envelope B.',
        tags,
        params: CustomerIdParams,
        querystring: CustomerReadQuery,
        response: { 200: CustomerReadResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const customer = await getCustomer(app.db, request.site, request.params.id, parseInclude(request.query.include));
      return { success: true as const, data: customer };
    },
  );

  app.put(
    '/customers/:id',
    {
      config: { permission: 'customers:update', errorStyle: 3 },
      schema: {
        operationId: 'updateCustomer',
        summary: 'Update a customer',
        description:
          'Only supplied fields change; custom_fields are merged (null or "" removes a key). Errors use style 3: ' +
          '404 customer_not_found, 400 customer_update_failed (field rules, an email of another customer).',
        tags,
        params: CustomerIdParams,
        body: UpdateCustomerBody,
        response: { 200: CustomerUpdatedResponse, ...errorResponses([400, 404, ...AUTH_ERRORS], 3) },
      },
    },
    async (request) => {
      const customer = await updateCustomer(app.db, apiActor(request), request.site, request.params.id, request.body);
      return { success: true as const, message: 'Customer updated', data: customer };
    },
  );

  app.delete(
    '/customers/:id',
    {
      config: { permission: 'customers:delete' },
      schema: {
        operationId: 'deleteCustomer',
        summary: 'Delete a customer without bookings',
        description: 'Envelope B. 409 customer_has_bookings while a booking of the customer remains, an order of theirs that is not cancelled, or a payment by them or on their orders (payments are kept; details say which). The orders their deleted bookings left behind, cancelled and empty, are deleted with them, and with those any coupon use they held.',
        tags,
        params: CustomerIdParams,
        response: { 200: CustomerDeletedResponse, ...errorResponses([400, 404, 409, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      await deleteCustomer(app.db, apiActor(request), request.site, request.params.id);
      return { success: true as const, message: 'Customer deleted', data: { id: request.params.id, deleted: true as const } };
    },
  );
}
