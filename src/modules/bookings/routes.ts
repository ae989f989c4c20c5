import type { FastifyRequest } from 'fastify';
import type { App } from '../../core/app.js';
import { validationDetails } from '../../http/error-handler.js';
import { AppError } from '../../core/errors.js';
import { apiActor } from '../../http/auth.js';
import { AUTH_ERRORS, errorResponses, IdParams } from '../../http/schemas.js';
import { bodyPartValidator } from '../../http/sent-types.js';
import { grants } from '../../core/access.js';
import type { BookingView } from './present.js';
import {
  checkCustomerFields,
  checkMeta,
  customerFieldsOf,
  parseBookingRequest,
  parsePrice,
  requireCalendarDate,
  sendsCustomerFields,
  type BookingRequest,
} from './request.js';
import {
  BulkBody,
  BulkElement,
  BulkResponse,
  CreateBookingBody,
  DeleteResponse,
  DetailResponse,
  DocumentedBulkBody,
  ListQuery,
  ListResponse,
  ReadResponse,
  UpdateBookingBody,
  type BulkElementInput,
  type BulkResult,
} from './schemas.js';
import { listBookings } from './list.js';
import { createBooking, createBulk, deleteBooking, readBooking } from './service.js';
import { updateBooking } from './update.js';

const checkBulkElement = bodyPartValidator<BulkElementInput>(BulkElement);

/** One bulk element, checked alone: a malformed element fails by itself, not the request. */
function bulkElement(raw: Record<string, unknown>): BookingRequest | AppError {
  // Checked as POST /bookings checks its body; the check converts digit strings to ids in place,
  // and the raw element stays as sent for the answer's booking_data.
  const element: unknown = structuredClone(raw);
  if (!checkBulkElement(element)) {
    const details = validationDetails(checkBulkElement.errors ?? []);
    return new AppError('invalid_request', `Invalid booking: ${Object.keys(details).join(', ')}`, details);
  }
  // A bulk element names a new customer only in a nested `customer` object (spec, POST /bookings/bulk).
  const nestedOnly = Object.fromEntries(Object.entries(element).filter(([key]) => !key.startsWith('customer.'))) as BulkElementInput;
  try {
    return parseBookingRequest(nestedOnly, 'approved');
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

function errorText(error: AppError): string {
  const details = error.details ? Object.entries(error.details).filter(([, v]) => typeof v === 'string') : [];
  return details.length > 0 && error.code !== 'time_slot_unavailable'
    ? `${error.message} (${details.map(([field, message]) => `${field}: ${String(message)}`).join('; ')})`
    : error.message;
}

/** A manage link can cancel its booking: a key that may not change bookings is shown none. */
function withLinksFor(apiKey: FastifyRequest['apiKey'], booking: BookingView): BookingView {
  const mayChange = apiKey !== undefined && grants(apiKey.permissions, 'bookings:update');
  return mayChange ? booking : { ...booking, manage_booking_for_agent: null, manage_booking_for_customer: null };
}

export default async function bookingRoutes(app: App): Promise<void> {
  const links = app.manageLinks;

  app.get(
    '/bookings',
    {
      config: { permission: 'bookings:read' },
      schema: {
        operationId: 'listBookings',
        summary: 'List bookings',
        tags: ['bookings'],
        querystring: ListQuery,
        response: { 200: ListResponse, ...errorResponses([400, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const { items, page } = await listBookings(app.db, request.site, request.query);
      return {
        status: 'success' as const,
        data: items,
        meta: {
          total: page.total,
          page: page.page,
          per_page: page.perPage,
          total_pages: page.totalPages,
          has_next_page: page.hasNext,
          has_prev_page: page.hasPrevious,
        },
      };
    },
  );

  app.post(
    '/bookings',
    {
      config: { permission: 'bookings:create' },
      schema: {
        operationId: 'createBooking',
        summary: 'Create a booking with availability validation',
        description:
          'Checks working hours (site closures included), the booking window (422 with details.rule: min_notice_minutes, ' +
          'min_lead_minutes or max_advance_days), buffers and seats (attendees). A taken time is 409 time_slot_unavailable ' +
          'with details.available_slots (up to 10 free starts) and details.suggestions: [{start, agent_id}], each free for that agent.',
        tags: ['bookings'],
        body: CreateBookingBody,
        response: { 201: DetailResponse, ...errorResponses([400, 409, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request, reply) => {
      const booking = await createBooking(app.db, apiActor(request), links, parseBookingRequest(request.body, 'pending'), request.body.send_confirmation ?? true);
      return reply.status(201).send({ status: 'success' as const, data: withLinksFor(request.apiKey, booking) });
    },
  );

  app.post(
    '/bookings/bulk',
    {
      config: { permission: 'bookings:create' },
      schema: {
        operationId: 'createBookingsBulk',
        summary: 'Create up to 50 bookings; each element succeeds or fails alone',
        tags: ['bookings'],
        body: BulkBody,
        documentedBody: DocumentedBulkBody,
        response: { 201: BulkResponse, 207: BulkResponse, 400: { anyOf: [BulkResponse, { $ref: 'ErrorStyle1' }] }, ...errorResponses(AUTH_ERRORS) },
      },
    },
    async (request, reply) => {
      const elements = request.body.bookings.map(bulkElement);
      const sendConfirmation = request.body.send_confirmation ?? false;
      const outcome = await createBulk(app.db, apiActor(request), links, elements, sendConfirmation);
      const total = elements.length;
      const successful = outcome.created.length;
      const failed = outcome.failed.length;
      const body: BulkResult = {
        success: failed === 0,
        message: `${successful} of ${total} bookings created, ${failed} failed`,
        results: {
          success: outcome.created.map(({ index, booking, confirmationSent }) => ({
            index,
            booking_id: booking.id,
            data: {
              id: booking.id,
              booking_code: booking.booking_code,
              service: { id: booking.service.id, name: booking.service.name },
              agent: { id: booking.agent.id, full_name: booking.agent.full_name },
              customer: { id: booking.customer.id, full_name: booking.customer.full_name, email: booking.customer.email },
              start_date: booking.start_date,
              start_time: booking.start_time,
              status: booking.status,
            },
            confirmation_sent: confirmationSent,
          })),
          errors: outcome.failed.map(({ index, error }) => ({
            index,
            error: errorText(error),
            code: error.code,
            booking_data: request.body.bookings[index],
          })),
          summary: { total_requested: total, successful, failed },
        },
      };
      return reply.status(failed === 0 ? 201 : successful === 0 ? 400 : 207).send(body);
    },
  );

  app.get(
    '/bookings/:id',
    {
      config: { permission: 'bookings:read' },
      schema: {
        operationId: 'getBooking',
        summary: 'Read a booking',
        tags: ['bookings'],
        params: IdParams,
        response: { 200: ReadResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const booking = await readBooking(app.db, links, request.params.id, (await request.site()).currency);
      return { status: 'success' as const, success: true as const, data: withLinksFor(request.apiKey, booking) };
    },
  );

  app.put(
    '/bookings/:id',
    {
      config: { permission: 'bookings:update' },
      schema: {
        operationId: 'updateBooking',
        summary: 'Update a booking: fields, reschedule, agent, status transitions',
        tags: ['bookings'],
        params: IdParams,
        body: UpdateBookingBody,
        response: { 200: DetailResponse, ...errorResponses([400, 404, 409, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const body = request.body;
      const key = request.apiKey;
      // The customer's details are the customer's: a key that may change bookings but not
      // customers could otherwise redirect any customer's mail (and manage links) to itself.
      if (sendsCustomerFields(body) && !(key !== undefined && grants(key.permissions, 'customers:update'))) {
        throw new AppError('forbidden', "Changing the customer's details needs the permission customers:update");
      }
      const customer = checkCustomerFields(customerFieldsOf(body));
      const booking = await updateBooking(
        app.db,
        apiActor(request),
        links,
        request.params.id,
        {
          serviceId: body.service_id,
          agentId: body.agent_id,
          locationId: body.location_id,
          startDate: body.start_date === undefined ? undefined : requireCalendarDate('start_date', body.start_date),
          startTime: body.start_time,
          duration: body.duration,
          attendees: body.attendees,
          status: body.status,
          customerId: body.customer_id,
          customer,
          priceCents: parsePrice(body.price),
          notes: body.notes,
          meta: body.meta === undefined ? undefined : checkMeta(body.meta),
          sendNotification: body.send_notification,
        },
        key !== undefined && grants(key.permissions, 'bookings:manage_completed'),
      );
      return { status: 'success' as const, data: booking };
    },
  );

  app.delete(
    '/bookings/:id',
    {
      config: { permission: 'bookings:delete' },
      schema: {
        operationId: 'deleteBooking',
        summary: 'Delete a booking and its order item',
        description: 'Cancels it first (docs/money.md); 409 booking_has_payments while its order holds money: cancel, refund, then delete.',
        tags: ['bookings'],
        params: IdParams,
        response: { 200: DeleteResponse, ...errorResponses([400, 404, 409, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      await deleteBooking(app.db, apiActor(request), links, request.params.id);
      return { status: 'success' as const, data: { id: request.params.id, deleted: true as const } };
    },
  );
}
