import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import type { Actor } from '../../core/actor.js';
import { changedAttributes, recordEvent } from '../events/index.js';
import { bookingEventType } from './events.js';
import { AppError, notFound } from '../../core/errors.js';
import { nowIso } from '../../lib/time.js';
import { findService, freeCandidate, inZone, serviceWindow, slotContextOf, startInstant, workingCandidates } from '../availability/index.js';
import { writeChangeNotices } from './notices.js';
import { bookingCancelled, repriceBooking, setBookingItemData, updateOrder, withOrderEvents } from '../orders/index.js';
import { findCustomerContact } from '../customers/index.js';
import { getSettings } from '../settings/index.js';
import type { SiteSettings } from '../../core/site.js';
import { assertEmailFree, updateBookingCustomer, type CustomerChanges } from './customers.js';
import { loadDetail, servicePriceCents, withoutManageLinks, type BookingView } from './present.js';
import { checkMergedMeta } from './request.js';
import * as repository from './repository.js';
import { requireAgent, requireBookableCustomer, requireLocation, requireSeats, requireService } from './checks.js';
import { checkSelfService, type SelfServiceAction } from './self-service.js';
import type { BookingStatus } from './table.js';
import { bookingItemData, spanColumns } from './written.js';
import { agentLock, bookingLock, CATALOG_LOCK, customerLock, emailLock, type LockKey, orderLock } from '../../core/locks.js';
import { renewManageLinks, type ManageLinks } from '../manage-links/index.js';

const MINUTE_MS = 60_000;

/** Spec, States and transitions: the moves PUT /bookings/{id} may make. */
export const TRANSITIONS: Record<BookingStatus, readonly BookingStatus[]> = {
  pending: ['approved', 'cancelled'],
  approved: ['completed', 'cancelled', 'no_show'],
  cancelled: ['pending', 'approved'],
  completed: ['cancelled'],
  no_show: ['approved', 'cancelled'],
};

export interface BookingUpdate {
  serviceId?: number;
  agentId?: number;
  locationId?: number;
  startDate?: string;
  startTime?: string;
  duration?: number;
  attendees?: number;
  status?: BookingStatus;
  customerId?: number;
  customer: CustomerChanges;
  priceCents?: number;
  notes?: string;
  meta?: Record<string, string | null>;
  /** send_notification: whether the customer hears of the change; unsent, of a cancellation only. */
  sendNotification: boolean | undefined;
  /** The customer's own change through the manage link: the site's cut-offs apply. */
  selfService?: SelfServiceAction;
}

function checkTransition(from: BookingStatus, to: BookingStatus, mayManageCompleted: boolean): void {
  if (from === to) return;
  if (!TRANSITIONS[from].includes(to)) {
    throw new AppError('validation_failed', `A ${from} booking cannot become ${to}`, { status: `invalid for this booking: ${from} → ${to}` });
  }
  if (from === 'completed' && !mayManageCompleted) {
    throw new AppError('forbidden', 'Cancelling a completed booking needs the permission bookings:manage_completed');
  }
}

const LOCKED_TOO_LITTLE = Symbol('locked too little');


/**
 * PUT /bookings/{id}. A change of time, duration, agent or service, of the attendees, or bringing
 * a cancelled booking back, re-checks availability under the locks of the old and the new agent.
 */
export async function updateBooking(db: Db, actor: Actor, links: ManageLinks, id: number, update: BookingUpdate, mayManageCompleted: boolean): Promise<BookingView> {
  for (;;) {
    const current = await repository.findBooking(db, id);
    if (!current) throw notFound('booking_not_found', 'Booking', id);
    const keys: LockKey[] = [{ shared: CATALOG_LOCK }, bookingLock(id), agentLock(current.agent_id), agentLock(update.agentId ?? current.agent_id)];
    if (update.customer.email !== undefined) keys.push(emailLock(update.customer.email));
    // Changing the customer's own fields is a customer update; only referring to one is shared.
    const customerId = update.customerId ?? current.customer_id;
    if (Object.keys(update.customer).length > 0) keys.push(customerLock(customerId));
    else if (update.customerId !== undefined) keys.push({ shared: customerLock(update.customerId) });
    // An order update changes the order's row, then its bookings'; this may change the booking's
    // row, then the order's (price, customer, status). Both hold the order's lock, or they could deadlock.
    if (current.order_id !== null) keys.push(orderLock(current.order_id));
    const result = await lockedTransaction(db, keys, async (trx) => {
      const booking = await repository.findBooking(trx, id);
      if (!booking) throw notFound('booking_not_found', 'Booking', id);
      // Another request gave it an agent, or a customer whose fields this changes, whose lock
      // this transaction does not hold: choose the locks again.
      if (booking.agent_id !== current.agent_id || booking.customer_id !== current.customer_id) return LOCKED_TOO_LITTLE;
      const settings = await getSettings(trx);
      const apply = () => applyUpdate(trx, actor, links, settings, booking, update, mayManageCompleted);
      // What the change does to the booking's order (its price, its customer, a cancellation's money) records its own events.
      return booking.order_id === null ? apply() : withOrderEvents(trx, actor, booking.order_id, settings, apply);
    });
    if (result !== LOCKED_TOO_LITTLE) return result;
  }
}

async function applyUpdate(
  trx: Db,
  actor: Actor,
  links: ManageLinks,
  settings: SiteSettings,
  booking: repository.BookingRow,
  update: BookingUpdate,
  mayManageCompleted: boolean,
): Promise<BookingView> {
  const status = update.status ?? booking.status;
  checkTransition(booking.status, status, mayManageCompleted);
  // Checked under the booking's lock, on the booking as it is now, not as the customer's page showed it.
  if (update.selfService) {
    checkSelfService(update.selfService, { status: booking.status, startAt: Date.parse(booking.start_at) }, settings, Date.now());
  }
  // The event and the change notice say what changed, so they need the booking as it was.
  const before = (await loadDetail(trx, booking.id, links, settings.currency)) as BookingView;
  const siteContext = slotContextOf(settings);

  const changed = <K extends 'service_id' | 'agent_id' | 'location_id' | 'duration'>(
    column: K,
    value: repository.BookingRow[K] | undefined,
  ): boolean => value !== undefined && value !== booking[column];
  const serviceChanged = changed('service_id', update.serviceId);
  const agentChanged = changed('agent_id', update.agentId);
  const locationChanged = changed('location_id', update.locationId);
  // The booking's date and time as the site's clock now shows them: the site's zone may have
  // changed since the booking was made, and the request speaks in the zone of now.
  const local = inZone(Date.parse(booking.start_at), siteContext.timezone);
  const [localDate, localTime] = [local.toFormat('yyyy-MM-dd'), local.toFormat('HH:mm')];
  const timeChanged = (update.startDate !== undefined && update.startDate !== localDate) || (update.startTime !== undefined && update.startTime !== localTime);
  const durationChanged = changed('duration', update.duration);
  const reactivated = booking.status === 'cancelled' && status !== 'cancelled';
  const rescheduled = serviceChanged || agentChanged || locationChanged || timeChanged || durationChanged;
  const attendees = update.attendees ?? booking.attendees;
  const seatsChanged = attendees !== booking.attendees;

  const serviceId = update.serviceId ?? booking.service_id;
  const agentId = update.agentId ?? booking.agent_id;
  const locationId = update.locationId ?? booking.location_id;
  // A new service or agent brings its own length (contract §6: the agent's custom duration for
  // the service, else the service's) and price (contract §3) unless the request gives them.
  const derivedAnew = serviceChanged || agentChanged;
  let duration = update.duration ?? (derivedAnew ? undefined : booking.duration);
  let priceCents = update.priceCents;
  let spanValues = {};

  if (rescheduled || reactivated || seatsChanged) {
    const service = serviceChanged ? await requireService(trx, serviceId) : await findService(trx, serviceId, { includeDeleted: true });
    if (!service) throw new AppError('invalid_request', `service ${serviceId} does not exist`, { service_id: 'does not exist' });
    requireSeats(attendees, service);
    const context = serviceWindow(siteContext, service);
    if (locationChanged) await requireLocation(trx, locationId);
    const connected = await requireAgent(trx, agentId, service, locationId, duration);
    // Moved, the booking keeps the time its service and agent now ask free around it; in place,
    // the time it was made with, whatever they have changed to since.
    const candidate = rescheduled
      ? connected
      : { ...connected, bufferBeforeMinutes: booking.buffer_before, bufferAfterMinutes: booking.buffer_after };
    duration = candidate.durationMinutes;
    if (derivedAnew) priceCents ??= candidate.customPriceCents ?? servicePriceCents(service);
    const start = timeChanged ? startInstant(update.startDate ?? localDate, update.startTime ?? localTime, context) : Date.parse(booking.start_at);
    const startLocal = inZone(start, context.timezone);
    const startDate = startLocal.toFormat('yyyy-MM-dd');
    if (rescheduled) workingCandidates([candidate], startDate, start, context, true);
    if (status !== 'cancelled') {
      await freeCandidate(
        trx,
        [candidate],
        [candidate],
        { date: startDate, time: startLocal.toFormat('HH:mm'), attendees },
        start,
        service,
        { context, pending: [] },
        booking.id,
      );
    }
    if (rescheduled) {
      spanValues = {
        ...spanColumns({ start, end: start + duration * MINUTE_MS }, context.timezone),
        buffer_before: candidate.bufferBeforeMinutes,
        buffer_after: candidate.bufferAfterMinutes,
      };
    }
  }

  const customerId = update.customerId ?? booking.customer_id;
  // Naming another customer, or giving the booking a time anew, books its customer.
  const booksCustomer = status !== 'cancelled' && (customerId !== booking.customer_id || rescheduled || reactivated);
  if (update.customerId !== undefined || booksCustomer) {
    const customer = await findCustomerContact(trx, customerId);
    if (!customer) throw new AppError('invalid_request', `customer ${customerId} does not exist`, { customer_id: 'does not exist' });
    if (booksCustomer) requireBookableCustomer(customer);
  }
  if (update.customer.email !== undefined) await assertEmailFree(trx, update.customer.email, customerId);
  await updateBookingCustomer(trx, actor, settings.timezone, customerId, update.customer);

  await repository.updateBookingRow(trx, booking.id, {
    ...spanValues,
    service_id: serviceId,
    agent_id: agentId,
    location_id: locationId,
    duration,
    attendees,
    status,
    customer_id: customerId,
    // A reminder that fell due before the booking got this time (or came back) is not sent late.
    ...(timeChanged || reactivated ? { scheduled_at: nowIso() } : {}),
    ...(priceCents !== undefined ? { price_cents: priceCents } : {}),
    ...(update.notes !== undefined ? { notes: update.notes } : {}),
    updated_at: nowIso(),
  });
  // The former customer's links stop opening the booking.
  if (customerId !== booking.customer_id) await renewManageLinks(trx, 'id', booking.id);
  if (booking.order_id !== null) {
    if (customerId !== booking.customer_id) {
      await updateOrder(trx, booking.order_id, { customer_id: customerId, updated_at: nowIso() });
    }
    if (priceCents !== undefined && priceCents !== booking.price_cents) {
      await repriceBooking(trx, booking.order_id, booking.id, priceCents, nowIso());
    }
    // Every way a booking is cancelled or brought back (this route, the manage link) takes the one money path.
    if ((status === 'cancelled') !== (booking.status === 'cancelled')) {
      await bookingCancelled(trx, booking.order_id, booking.id, status === 'cancelled', nowIso());
    }
  }
  if (update.meta) {
    await repository.writeMeta(trx, booking.id, update.meta);
    checkMergedMeta(await repository.metaKeyCount(trx, booking.id));
  }

  const view = (await loadDetail(trx, booking.id, links, settings.currency)) as BookingView;
  if (rescheduled && booking.order_id !== null) {
    const itemData = bookingItemData({
      id: view.id,
      serviceId: view.service.id,
      serviceName: view.service_name,
      agentId: view.agent.id,
      locationId: view.location.id,
      startDate: view.start_date,
      startTime: view.start_time,
      duration: view.duration,
    });
    await setBookingItemData(trx, booking.order_id, booking.id, itemData, nowIso());
  }
  const previousAttributes = changedAttributes(withoutManageLinks(before), withoutManageLinks(view));
  if (previousAttributes !== undefined) {
    await recordEvent(trx, actor, { type: bookingEventType(booking.status, status, rescheduled), resourceId: view.id, data: withoutManageLinks(view), previousAttributes });
  }
  await writeChangeNotices(trx, before, view, { staffNotices: settings.staff_notifications, notifyCustomer: update.sendNotification });
  return view;
}
