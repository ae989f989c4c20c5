import { DateTime } from 'luxon';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import { AppError, notFound } from '../../core/errors.js';
import { nowIso } from '../../lib/time.js';
import {
  anyCandidates,
  bulkBusyReads,
  connectedAgents,
  freeCandidate,
  serviceWindow,
  slotContextOf,
  spanOf,
  startInstant,
  workingCandidates,
  type AgentBooking,
  type Candidate,
  type ChoiceOptions,
  type SlotContext,
} from '../availability/index.js';
import { applyCoupon, type AppliedCoupon } from '../coupons/index.js';
import { enqueueBookingMails } from '../mail/index.js';
import type { OutgoingMail } from '../mail/index.js';
import { bookingNotices } from './notices.js';
import { recordEvent, recordEvents } from '../events/index.js';
import type { Actor } from '../../core/actor.js';
import { insertBookingItems, releaseBookingForDelete, insertBookingOrders, withOrderEvents, type NewBookingOrder } from '../orders/index.js';
import type { ManageLinks } from '../manage-links/index.js';
import { getSettings, getSettingsAndSchedule } from '../settings/index.js';
import { catalogReads, probeOf, type CatalogReads } from './catalog-reads.js';
import { failed, invalid, requireAgent, requireBookableCustomer, requireLocation, requireSeats, requireService } from './checks.js';
import { emailTaken, insertBookingCustomers, type NewCustomer } from './customers.js';
import { loadDetail, servicePriceCents, withoutManageLinks, type BookingView } from './present.js';
import type { AgentFacts, CustomerFacts } from './references.js';
import * as repository from './repository.js';
import type { BookingRequest } from './request.js';
import { bookingItemData, bookingRow, orderTotalOf, writtenView, type PreparedBooking, type Written } from './written.js';
import { agentLock, bookingLock, CATALOG_LOCK, couponLock, customerLock, emailLock, type LockKey, orderLock } from '../../core/locks.js';

const MINUTE_MS = 60_000;

export interface PrepareOptions extends ChoiceOptions {
  /** Shared catalog reads of the transaction (a bulk request's); fresh ones otherwise. */
  reads?: CatalogReads;
  /** The agents whose locks the transaction holds: `any` chooses only among them. */
  lockedAgents: ReadonlySet<number>;
  /** Emails of new customers accepted earlier in the same bulk request. */
  pendingEmails: ReadonlySet<string>;
  /** Coupon uses (by lower-case code) taken by elements accepted earlier in the same bulk request. */
  pendingCouponUses?: Map<string, number>;
}

/**
 * Every check of a booking to create, against the database and the bulk request's earlier
 * elements. Call it inside the transaction that holds the agents' locks and then writes it.
 */
export async function prepareBooking(db: Db, request: BookingRequest, options: PrepareOptions): Promise<PreparedBooking> {
  const reads = options.reads ?? catalogReads(db);
  await reads.preload([probeOf(request)]);
  const service = await requireService(db, request.serviceId, reads);
  const context = serviceWindow(options.context, service);
  requireSeats(request.attendees, service);
  if (request.locationId !== undefined) await requireLocation(db, request.locationId, reads);
  let customer: CustomerFacts | NewCustomer;
  if ('id' in request.customer) {
    const existing = await reads.customer(request.customer.id);
    if (!existing) throw invalid('customer_id', `customer ${request.customer.id} does not exist`);
    requireBookableCustomer(existing);
    customer = existing;
  } else {
    customer = request.customer.new;
    const { email } = customer;
    const owner = await reads.customerIdByEmail(email);
    if (owner !== undefined) throw emailTaken(email, owner);
    if (options.pendingEmails.has(email.toLowerCase())) {
      throw new AppError('email_already_exists', `An earlier element of this request creates a customer with the email ${email}`, {
        email,
        existing_customer_id: null,
      });
    }
  }
  const start = startInstant(request.startDate, request.startTime, context);

  let candidates: Candidate[];
  if (request.agent === 'any') {
    candidates = await anyCandidates(reads, service, request, options.lockedAgents);
    if (candidates.length === 0) {
      throw failed('agent_id', `no active agent offers service ${service.id}${request.locationId === undefined ? '' : ` at location ${request.locationId}`}`);
    }
  } else {
    candidates = [await requireAgent(db, request.agent, service, request.locationId, request.duration, reads)];
  }
  const working = workingCandidates(candidates, request.startDate, start, context, request.agent !== 'any');
  const chosen =
    request.status === 'cancelled'
      ? (working[0] as Candidate)
      : await freeCandidate(
          db,
          working,
          candidates,
          { date: request.startDate, time: request.startTime, attendees: request.attendees },
          start,
          service,
          { ...options, context, reads },
        );

  const location = await (request.locationId === undefined ? reads.defaultLocation(chosen.agentId) : reads.location(request.locationId));
  if (!location) throw failed('location_id', `no location given and no active location for agent ${chosen.agentId}`);

  const priceCents = request.priceCents ?? chosen.customPriceCents ?? servicePriceCents(service);
  // Last of the checks: a coupon counts a use only for a booking otherwise accepted.
  // A booking created cancelled has a cancelled order, on which a coupon takes no use.
  const applies = request.couponCode !== undefined && request.status !== 'cancelled';
  const coupon = applies ? await couponOf(db, request.couponCode as string, priceCents, context.timezone, options.pendingCouponUses) : undefined;
  return {
    request,
    service,
    agent: (await reads.agent(chosen.agentId)) as AgentFacts,
    location,
    customer,
    span: spanOf(start, chosen),
    durationMinutes: chosen.durationMinutes,
    bufferBeforeMinutes: chosen.bufferBeforeMinutes,
    bufferAfterMinutes: chosen.bufferAfterMinutes,
    priceCents,
    ...(coupon === undefined ? {} : { coupon }),
    timezone: context.timezone,
  };
}

/** The coupon for a new booking's order, checked as PUT /orders checks it (the caller holds its lock). */
async function couponOf(db: Db, code: string, priceCents: number, timezone: string, pending: Map<string, number> | undefined): Promise<AppliedCoupon> {
  const today = DateTime.now().setZone(timezone).toISODate() ?? '';
  // Codes match case-insensitively: earlier elements' uses are counted by the code's lower case.
  const key = code.toLowerCase();
  const earlier = pending?.get(key) ?? 0;
  const applied = await applyCoupon(db, code, { id: 0, subtotalCents: priceCents, today, pendingUses: earlier });
  pending?.set(key, earlier + 1);
  return applied;
}

/**
 * Writes prepared bookings with their new customers, metadata, orders, items, invoices and
 * confirmation mails, each kind in one statement for all of them, and returns each as
 * GET /bookings/{id} shows it: built from what was written rather than read back.
 */
export async function writeBookings(
  db: Db,
  items: readonly PreparedBooking[],
  options: { sendConfirmation: boolean; staffNotices: boolean; links: ManageLinks; currency: string; timezone: string; actor: Actor },
): Promise<{ booking: BookingView; confirmationSent: boolean }[]> {
  const at = nowIso();
  const newIds = (await insertBookingCustomers(db, options.actor, options.timezone, items.flatMap(({ customer }) => ('id' in customer ? [] : [customer])))).values();
  const customers = items.map(({ customer }): CustomerFacts => ('id' in customer ? customer : { ...customer, id: newIds.next().value as number }));
  const orders = await insertBookingOrders(
    db,
    items.map((item, index) => ({
      customerId: (customers[index] as CustomerFacts).id,
      priceCents: item.priceCents,
      coupon: item.coupon ?? null,
      cancelled: item.request.status === 'cancelled',
    })),
    at,
  );
  const rows = items.map((item, index) => bookingRow(item, (customers[index] as CustomerFacts).id, (orders[index] as NewBookingOrder).id, at));
  const ids = await repository.insertBookings(db, rows);
  const written = items.map(
    (item, index): Written => ({
      item,
      id: ids[index] as number,
      row: rows[index] as Written['row'],
      customer: customers[index] as CustomerFacts,
      order: orders[index] as NewBookingOrder,
    }),
  );
  await repository.insertMeta(
    db,
    written.flatMap(({ item, id }) => Object.entries(item.request.meta).map(([meta_key, meta_value]) => ({ booking_id: id, meta_key, meta_value }))),
  );
  await insertBookingItems(
    db,
    written.map(({ item, id, row }) => ({
      orderId: row.order_id,
      bookingId: id,
      priceCents: item.priceCents,
      totalCents: orderTotalOf(item),
      depositCents: item.service.deposit_amount_cents,
      startAt: row.start_at,
      cancelled: item.request.status === 'cancelled',
      itemData: bookingItemData({
        id,
        serviceId: item.service.id,
        serviceName: item.service.name,
        agentId: item.agent.id,
        locationId: item.location.id,
        startDate: row.start_date,
        startTime: row.start_time,
        duration: item.durationMinutes,
      }),
    })),
    at,
  );
  const views = written.map((one) => writtenView(one, options.links, options.currency));
  await recordEvents(
    db,
    options.actor,
    views.map((view) => ({ type: 'booking.created', resourceId: view.id, data: withoutManageLinks(view) })),
  );
  const policy = { staffNotices: options.staffNotices, confirmCustomer: options.sendConfirmation };
  const notices = views.map((view, index) => bookingNotices(undefined, view, policy, { linkVersion: (written[index] as Written).row.manage_link_version, calendarSequence: 0 }));
  await enqueueBookingMails(db, notices.flat());
  return views.map((booking, index) => ({ booking, confirmationSent: (notices[index] as OutgoingMail[]).some((mail) => mail.kind === 'booking_confirmation') }));
}

/**
 * The lock keys of booking requests: each one's agent, or every agent `any` may choose; each new
 * customer's email; each existing customer's and the catalog's, shared.
 */
async function lockKeysOf(db: Db, requests: readonly BookingRequest[]): Promise<{ keys: LockKey[]; agents: Set<number> }> {
  const connected = new Map<number, Promise<number[]>>();
  const keys: LockKey[] = [{ shared: CATALOG_LOCK }];
  const agents = new Set<number>();
  const connectedTo = (serviceId: number): Promise<number[]> => {
    let read = connected.get(serviceId);
    if (!read) {
      read = connectedAgents(db, serviceId).then((rows) => rows.map((a) => a.id));
      connected.set(serviceId, read);
    }
    return read;
  };
  for (const request of requests) {
    for (const id of request.agent === 'any' ? await connectedTo(request.serviceId) : [request.agent]) {
      agents.add(id);
      keys.push(agentLock(id));
    }
    if ('new' in request.customer) keys.push(emailLock(request.customer.new.email));
    else keys.push({ shared: customerLock(request.customer.id) });
    if (request.couponCode !== undefined) keys.push(couponLock(request.couponCode));
  }
  return { keys, agents };
}

/** The site's settings and schedule, read once for the transaction, and its catalog reads. */
async function transactionReads(trx: Db): Promise<{ context: SlotContext; reads: CatalogReads; currency: string; timezone: string; staffNotices: boolean }> {
  const { settings, schedule } = await getSettingsAndSchedule(trx);
  return { context: slotContextOf(settings), reads: catalogReads(trx, schedule), currency: settings.currency, timezone: settings.timezone, staffNotices: settings.staff_notifications };
}

/**
 * POST /bookings: the availability check and the insert in one transaction that holds the lock
 * of every agent it may book, so that no concurrent writer can take the same time in between.
 */
export async function createBooking(db: Db, actor: Actor, links: ManageLinks, request: BookingRequest, sendConfirmation: boolean): Promise<BookingView> {
  const { keys, agents } = await lockKeysOf(db, [request]);
  return lockedTransaction(db, keys, async (trx) => {
    const { context, reads, currency, timezone, staffNotices } = await transactionReads(trx);
    const prepared = await prepareBooking(trx, request, { context, reads, lockedAgents: agents, pending: [], pendingEmails: new Set() });
    const [written] = await writeBookings(trx, [prepared], { sendConfirmation, staffNotices, links, currency, timezone, actor });
    return (written as { booking: BookingView }).booking;
  });
}

export interface BulkOutcome {
  created: { index: number; booking: BookingView; confirmationSent: boolean }[];
  failed: { index: number; error: AppError }[];
}

/**
 * POST /bookings/bulk, in two phases inside one transaction holding every involved agent's
 * lock: first every element is checked, against the database and against the elements
 * accepted before it; then the accepted ones are written.
 */
export async function createBulk(
  db: Db,
  actor: Actor,
  links: ManageLinks,
  elements: readonly (BookingRequest | AppError)[],
  sendConfirmation: boolean,
): Promise<BulkOutcome> {
  const requests = elements.filter((element): element is BookingRequest => !(element instanceof AppError));
  const { keys, agents } = await lockKeysOf(db, requests);
  return lockedTransaction(db, keys, async (trx) => {
    const { context, reads, currency, timezone, staffNotices } = await transactionReads(trx);
    await reads.preload(requests.map(probeOf));
    const busy = await bulkBusyReads(trx, requests, reads, context, agents);
    const accepted: { index: number; prepared: PreparedBooking }[] = [];
    const pending: AgentBooking[] = [];
    const pendingEmails = new Set<string>();
    const pendingCouponUses = new Map<string, number>();
    const rejected: BulkOutcome['failed'] = [];
    for (const [index, element] of elements.entries()) {
      if (element instanceof AppError) {
        rejected.push({ index, error: element });
        continue;
      }
      try {
        const prepared = await prepareBooking(trx, element, { context, reads, busy, lockedAgents: agents, pending, pendingEmails, pendingCouponUses });
        accepted.push({ index, prepared });
        if (element.status !== 'cancelled') {
          pending.push({
            id: -(index + 1),
            agentId: prepared.agent.id,
            serviceId: prepared.service.id,
            ...prepared.span,
            bufferBefore: prepared.bufferBeforeMinutes * MINUTE_MS,
            bufferAfter: prepared.bufferAfterMinutes * MINUTE_MS,
            seats: element.attendees,
          });
        }
        if ('new' in element.customer) pendingEmails.add(element.customer.new.email.toLowerCase());
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        rejected.push({ index, error });
      }
    }
    const written = await writeBookings(
      trx,
      accepted.map((a) => a.prepared),
      { sendConfirmation, staffNotices, links, currency, timezone, actor },
    );
    return { created: accepted.map(({ index }, i) => ({ index, ...(written[i] as (typeof written)[number]) })), failed: rejected };
  });
}

export async function deleteBooking(db: Db, actor: Actor, links: ManageLinks, id: number): Promise<void> {
  const current = await repository.findBooking(db, id);
  if (!current) throw notFound('booking_not_found', 'Booking', id);
  // No agent lock is needed to free time. The booking's own lock keeps an update from working on
  // a row this removes; the order's guards its money, which this changes. A booking's order never
  // changes, so the one read before the transaction names it.
  const keys = [bookingLock(id), ...(current.order_id === null ? [] : [orderLock(current.order_id)])];
  await lockedTransaction(db, keys, async (trx) => {
    const booking = await repository.findBooking(trx, id);
    if (!booking) throw notFound('booking_not_found', 'Booking', id);
    const settings = await getSettings(trx);
    const before = (await loadDetail(trx, id, links, settings.currency)) as BookingView;
    // Its order gives up its money first (refused while money is held), then the rows go.
    const orderId = booking.order_id;
    if (orderId !== null) {
      await withOrderEvents(trx, actor, orderId, settings, () => releaseBookingForDelete(trx, orderId, id, booking.status === 'cancelled', nowIso()));
    }
    await repository.deleteBookingRows(trx, id);
    await recordEvent(trx, actor, { type: 'booking.deleted', resourceId: id, data: withoutManageLinks(before) });
    const versions = { linkVersion: booking.manage_link_version, calendarSequence: booking.calendar_sequence + 1 };
    await enqueueBookingMails(trx, bookingNotices(before, undefined, { staffNotices: settings.staff_notifications }, versions));
  });
}

export async function readBooking(db: Db, links: ManageLinks, id: number, currency: string): Promise<BookingView> {
  const booking = await loadDetail(db, id, links, currency);
  if (!booking) throw notFound('booking_not_found', 'Booking', id);
  return booking;
}
