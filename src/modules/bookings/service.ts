import { randomBytes } from 'node:crypto';
import type { Db, Dialect } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import { AppError } from '../../http/errors.js';
import { localDateTime, nowIso } from '../../lib/time.js';
import { conflictOf, daySpan, isWithin, localInstant, workingSpans, type Span } from '../availability/engine.js';
import {
  agentsAtLocation,
  busyBookings,
  connectedAgents,
  defaultLocationOf,
  findAgent,
  findLocation,
  findService,
  isoOf,
  type AgentBooking,
  type AgentRow,
  type ConnectionRow,
  type ServiceRow,
} from '../availability/repository.js';
import { candidateOf, loadCandidates, slotContext, suggestedStarts, type Candidate, type SlotContext } from '../availability/service.js';
import { enqueueMail } from '../mail/outbox.js';
import { createOrderForBooking, randomCode } from '../orders/create.js';
import { readSiteSchedule, type Schedule } from '../schedules/model.js';
import { assertEmailFree, findCustomer, insertBookingCustomer } from './customers.js';
import { loadDetail, servicePriceCents, type BookingView } from './present.js';
import * as repository from './repository.js';
import type { BookingRequest } from './request.js';

const MINUTE_MS = 60_000;

export interface Handle {
  db: Db;
  dialect: Dialect;
  publicUrl: string;
}

/** A booking request that passed every check, ready to be written. */
export interface PreparedBooking {
  request: BookingRequest;
  service: ServiceRow;
  agentId: number;
  locationId: number;
  span: Span;
  durationMinutes: number;
  priceCents: number;
  timezone: string;
}

/**
 * Reads of catalog rows (services, locations, agents, their connections, the site schedule),
 * each made once per transaction: the elements of a bulk request mostly share them, and the
 * transaction that checks and writes the bookings changes none of them.
 */
export interface CatalogReads {
  service(id: number): Promise<ServiceRow | undefined>;
  location(id: number): Promise<{ id: number; status: 'active' | 'inactive' } | undefined>;
  agent(id: number): Promise<AgentRow | undefined>;
  connection(serviceId: number, agentId: number): Promise<ConnectionRow | undefined>;
  worksAt(locationId: number, agentId: number): Promise<boolean>;
  siteSchedule(): Promise<Schedule>;
}

export function catalogReads(db: Db): CatalogReads {
  const made = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let result = made.get(key) as Promise<T> | undefined;
    if (!result) {
      result = read();
      made.set(key, result);
    }
    return result;
  };
  return {
    service: (id) => once(`service:${id}`, () => findService(db, id)),
    location: (id) => once(`location:${id}`, () => findLocation(db, id)),
    agent: (id) => once(`agent:${id}`, () => findAgent(db, id)),
    connection: (serviceId, agentId) => once(`connection:${serviceId}:${agentId}`, async () => (await connectedAgents(db, serviceId, [agentId]))[0]),
    worksAt: (locationId, agentId) => once(`at:${locationId}:${agentId}`, async () => (await agentsAtLocation(db, locationId, [agentId])).has(agentId)),
    siteSchedule: () => once('site-schedule', () => readSiteSchedule(db)),
  };
}

export interface PrepareOptions {
  context: SlotContext;
  /** Shared catalog reads of the transaction (a bulk request's); fresh ones otherwise. */
  reads?: CatalogReads;
  /** The agents whose locks the transaction holds: `any` chooses only among them. */
  lockedAgents: ReadonlySet<number>;
  /** Bookings accepted earlier in the same bulk request, not yet written (negative ids: -(index + 1)). */
  pending: readonly AgentBooking[];
  /** Emails of new customers accepted earlier in the same bulk request. */
  pendingEmails: ReadonlySet<string>;
}

function invalid(field: string, message: string): AppError {
  return new AppError('invalid_request', message, { [field]: message });
}

function failed(field: string, message: string): AppError {
  return new AppError('validation_failed', message, { [field]: message });
}

export async function requireService(db: Db, id: number, reads: CatalogReads = catalogReads(db)): Promise<ServiceRow> {
  const service = await reads.service(id);
  if (!service) throw invalid('service_id', `service ${id} does not exist`);
  if (service.status !== 'active') throw failed('service_id', `service ${id} is not active`);
  return service;
}

export async function requireLocation(db: Db, id: number, reads: CatalogReads = catalogReads(db)): Promise<void> {
  const location = await reads.location(id);
  if (!location) throw invalid('location_id', `location ${id} does not exist`);
  if (location.status !== 'active') throw failed('location_id', `location ${id} is not active`);
}

/** The agent, checked to be active and to offer the service (and to work at the location). */
export async function requireAgent(
  db: Db,
  agentId: number,
  service: ServiceRow,
  locationId: number | undefined,
  duration?: number,
  reads: CatalogReads = catalogReads(db),
): Promise<Candidate> {
  const agent = await reads.agent(agentId);
  if (!agent) throw invalid('agent_id', `agent ${agentId} does not exist`);
  if (agent.status !== 'active') throw failed('agent_id', `agent ${agentId} is not active`);
  const connection = await reads.connection(service.id, agentId);
  if (!connection) throw failed('agent_id', `agent ${agentId} does not offer service ${service.id}`);
  if (locationId !== undefined && !(await reads.worksAt(locationId, agentId))) {
    throw failed('location_id', `agent ${agentId} does not work at location ${locationId}`);
  }
  return candidateOf(connection, await reads.siteSchedule(), service, duration);
}

/** The start instant of a local date and time in the site zone: it must exist, not be past, and respect the lead time. */
export function startInstant(date: string, time: string, context: SlotContext): number {
  const start = localInstant(date, time, context.timezone);
  if (start === undefined) {
    throw failed('start_time', `${date} ${time} does not exist in ${context.timezone} (the clocks skip it)`);
  }
  if (start < context.now) throw failed('start_date', 'the start must not be in the past');
  if (start < context.earliest) {
    const lead = Math.round((context.earliest - context.now) / MINUTE_MS);
    throw failed('start_time', `the start must be at least ${lead} minutes from now`);
  }
  return start;
}

function spanOf(start: number, candidate: Candidate): Span {
  return { start, end: start + candidate.durationMinutes * MINUTE_MS };
}

/** Those candidates whose working hours on `date` hold the whole booking; refuses when none does. */
export function workingCandidates(candidates: readonly Candidate[], date: string, start: number, context: SlotContext, chosenByCaller: boolean): Candidate[] {
  const working = candidates.filter((c) => isWithin(spanOf(start, c), workingSpans(c.schedule, date, c.customHours, context.timezone)));
  if (working.length > 0) return working;
  const only = candidates[0];
  if (chosenByCaller && only && workingSpans(only.schedule, date, only.customHours, context.timezone).length === 0) {
    throw failed('start_date', `agent ${only.agentId} does not work on ${date}`);
  }
  throw failed(
    'start_time',
    chosenByCaller ? 'the booking lies outside the agent’s working hours' : 'no agent offering this service works at that time',
  );
}

/**
 * Among the working candidates, the one to book: free at that time, with the fewest bookings
 * that day (ties: lowest id). Refuses with time_slot_unavailable when every one is busy.
 */
export async function freeCandidate(
  db: Db,
  working: readonly Candidate[],
  candidates: readonly Candidate[],
  requested: { date: string; time: string },
  start: number,
  service: ServiceRow,
  options: PrepareOptions,
  excludeBookingId?: number,
): Promise<Candidate> {
  const day = daySpan(requested.date, options.context.timezone);
  const longest = Math.max(...working.map((c) => c.durationMinutes));
  const range = { start: Math.min(day.start, start), end: Math.max(day.end, start + longest * MINUTE_MS) };
  const agentIds = working.map((c) => c.agentId);
  const bookings = [
    ...(await busyBookings(db, agentIds, range, excludeBookingId)),
    ...options.pending.filter((b) => agentIds.includes(b.agentId)),
  ];
  const bookingsOf = (agentId: number) => bookings.filter((b) => b.agentId === agentId);
  let best: { candidate: Candidate; load: number } | undefined;
  let firstConflict: AgentBooking | undefined;
  for (const candidate of working) {
    const own = bookingsOf(candidate.agentId);
    const conflict = conflictOf(spanOf(start, candidate), service.id, service.capacity_max, own);
    if (conflict) {
      firstConflict ??= conflict;
      continue;
    }
    const load = own.filter((b) => b.start >= day.start && b.start < day.end).length;
    if (!best || load < best.load) best = { candidate, load };
  }
  if (best) return best.candidate;

  // Every working candidate conflicts here, so there is a first conflict.
  const booking = firstConflict as AgentBooking;
  const availableSlots = await suggestedStarts(db, candidates, requested.date, service, options.context, options.pending, excludeBookingId);
  const requestedTime = `${requested.date} ${requested.time}`;
  // A conflict with an earlier element of a bulk request has no booking id yet.
  const withStored = booking.id > 0;
  throw new AppError(
    'time_slot_unavailable',
    `${requestedTime} is not available: the time overlaps ${withStored ? `booking ${booking.id}` : `element ${-booking.id - 1} of this request`}`,
    {
      requested_time: requestedTime,
      agent_id: booking.agentId,
      conflicting_booking_id: withStored ? booking.id : null,
      available_slots: availableSlots,
    },
  );
}

/**
 * Every check of a booking to create, against the database and the bulk request's earlier
 * elements. Call it inside the transaction that holds the agents' locks and then writes it.
 */
export async function prepareBooking(db: Db, request: BookingRequest, options: PrepareOptions): Promise<PreparedBooking> {
  const { context } = options;
  const reads = options.reads ?? catalogReads(db);
  const service = await requireService(db, request.serviceId, reads);
  if (request.locationId !== undefined) await requireLocation(db, request.locationId, reads);
  if ('id' in request.customer) {
    if (!(await findCustomer(db, request.customer.id))) throw invalid('customer_id', `customer ${request.customer.id} does not exist`);
  } else {
    const { email } = request.customer.new;
    await assertEmailFree(db, email);
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
    candidates = (await loadCandidates(db, service, { locationId: request.locationId, duration: request.duration })).filter((c) =>
      options.lockedAgents.has(c.agentId),
    );
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
      : await freeCandidate(db, working, candidates, { date: request.startDate, time: request.startTime }, start, service, options);

  const locationId = request.locationId ?? (await defaultLocationOf(db, chosen.agentId));
  if (locationId === undefined) throw failed('location_id', `no location given and no active location for agent ${chosen.agentId}`);

  return {
    request,
    service,
    agentId: chosen.agentId,
    locationId,
    span: spanOf(start, chosen),
    durationMinutes: chosen.durationMinutes,
    priceCents: request.priceCents ?? chosen.customPriceCents ?? servicePriceCents(service),
    timezone: context.timezone,
  };
}

/** The local fields and UTC instants a booking row stores for a span. */
export function spanColumns(span: Span, timezone: string) {
  const startAt = isoOf(span.start);
  const endAt = isoOf(span.end);
  // "YYYY-MM-DD HH:MM:SS" in the zone
  const start = localDateTime(startAt, timezone);
  const end = localDateTime(endAt, timezone);
  return {
    start_date: start.slice(0, 10),
    start_time: start.slice(11, 16),
    end_date: end.slice(0, 10),
    end_time: end.slice(11, 16),
    timezone,
    start_at: startAt,
    end_at: endAt,
  };
}

export async function mailAbout(db: Db, booking: BookingView, kind: 'booking_confirmation' | 'booking_change'): Promise<boolean> {
  const recipient = booking.customer.email;
  if (!recipient) return false;
  const when = `${booking.start_date} ${booking.start_time}`;
  await enqueueMail(db, {
    kind,
    recipient,
    subject:
      kind === 'booking_confirmation'
        ? `Your booking ${booking.booking_code}: ${booking.service_name} on ${when}`
        : `Your booking ${booking.booking_code} has changed: ${booking.service_name} on ${when}`,
    payload: {
      booking_id: booking.id,
      booking_code: booking.booking_code,
      status: booking.status,
      customer_name: booking.customer.full_name,
      service_name: booking.service_name,
      agent_name: booking.agent.full_name,
      location_name: booking.location.name,
      start_datetime: booking.start_datetime,
      end_datetime: booking.end_datetime,
      timezone: booking.timezone,
      price: booking.price,
      manage_url: booking.manage_booking_for_customer,
    },
  });
  return true;
}

/** Writes a prepared booking with its customer, metadata, order, item, invoice and confirmation mail. */
export async function writeBooking(
  db: Db,
  prepared: PreparedBooking,
  options: { sendConfirmation: boolean; publicUrl: string },
): Promise<{ booking: BookingView; confirmationSent: boolean }> {
  const { request } = prepared;
  const customerId = 'id' in request.customer ? request.customer.id : await insertBookingCustomer(db, request.customer.new);
  const at = nowIso();
  const columns = spanColumns(prepared.span, prepared.timezone);
  const bookingId = await repository.insertBooking(db, {
    booking_code: randomCode(10),
    status: request.status,
    payment_status: 'not_paid',
    service_id: prepared.service.id,
    agent_id: prepared.agentId,
    location_id: prepared.locationId,
    customer_id: customerId,
    order_id: null,
    ...columns,
    duration: prepared.durationMinutes,
    price_cents: prepared.priceCents,
    notes: request.notes,
    customer_comment: null,
    access_key: randomBytes(24).toString('base64url'),
    created_at: at,
    updated_at: at,
  });
  await repository.writeMeta(db, bookingId, request.meta);
  await createOrderForBooking(db, {
    customerId,
    bookingId,
    priceCents: prepared.priceCents,
    itemData: {
      booking_id: bookingId,
      service_id: prepared.service.id,
      service_name: prepared.service.name,
      agent_id: prepared.agentId,
      location_id: prepared.locationId,
      start_date: columns.start_date,
      start_time: columns.start_time,
      duration: prepared.durationMinutes,
    },
  });
  const booking = (await loadDetail(db, bookingId, options.publicUrl)) as BookingView;
  const confirmationSent = options.sendConfirmation ? await mailAbout(db, booking, 'booking_confirmation') : false;
  return { booking, confirmationSent };
}

/** The lock keys of a booking request: its agent, or every agent `any` may choose; and a new customer's email. */
async function lockKeysOf(db: Db, request: BookingRequest): Promise<{ keys: string[]; agents: number[] }> {
  const agents = request.agent === 'any' ? (await connectedAgents(db, request.serviceId)).map((a) => a.id) : [request.agent];
  const keys = agents.map((id) => `agent:${id}`);
  if ('new' in request.customer) keys.push(`email:${request.customer.new.email.toLowerCase()}`);
  return { keys, agents };
}

/**
 * POST /bookings: the availability check and the insert in one transaction that holds the lock
 * of every agent it may book, so that no concurrent writer can take the same time in between.
 */
export async function createBooking(handle: Handle, request: BookingRequest, sendConfirmation: boolean): Promise<BookingView> {
  const { keys, agents } = await lockKeysOf(handle.db, request);
  return lockedTransaction(handle, keys, async (trx) => {
    const context = await slotContext(trx);
    const prepared = await prepareBooking(trx, request, { context, lockedAgents: new Set(agents), pending: [], pendingEmails: new Set() });
    return (await writeBooking(trx, prepared, { sendConfirmation, publicUrl: handle.publicUrl })).booking;
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
  handle: Handle,
  elements: readonly (BookingRequest | AppError)[],
  sendConfirmation: boolean,
): Promise<BulkOutcome> {
  const keys: string[] = [];
  const agents = new Set<number>();
  for (const element of elements) {
    if (element instanceof AppError) continue;
    const lock = await lockKeysOf(handle.db, element);
    keys.push(...lock.keys);
    for (const id of lock.agents) agents.add(id);
  }
  return lockedTransaction(handle, keys, async (trx) => {
    const context = await slotContext(trx);
    const reads = catalogReads(trx);
    const accepted: { index: number; prepared: PreparedBooking }[] = [];
    const pending: AgentBooking[] = [];
    const pendingEmails = new Set<string>();
    const rejected: BulkOutcome['failed'] = [];
    for (const [index, element] of elements.entries()) {
      if (element instanceof AppError) {
        rejected.push({ index, error: element });
        continue;
      }
      try {
        const prepared = await prepareBooking(trx, element, { context, reads, lockedAgents: agents, pending, pendingEmails });
        accepted.push({ index, prepared });
        if (element.status !== 'cancelled') {
          pending.push({ id: -(index + 1), agentId: prepared.agentId, serviceId: prepared.service.id, ...prepared.span });
        }
        if ('new' in element.customer) pendingEmails.add(element.customer.new.email.toLowerCase());
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        rejected.push({ index, error });
      }
    }
    const created: BulkOutcome['created'] = [];
    for (const { index, prepared } of accepted) {
      created.push({ index, ...(await writeBooking(trx, prepared, { sendConfirmation, publicUrl: handle.publicUrl })) });
    }
    return { created, failed: rejected };
  });
}

export async function deleteBooking(handle: Handle, id: number): Promise<void> {
  // No agent lock is needed to free time; on SQLite this still makes the read and the deletes
  // one write transaction from the start.
  await lockedTransaction(handle, [], async (trx) => {
    const booking = await repository.findBooking(trx, id);
    if (!booking) throw new AppError('booking_not_found', `Booking ${id} does not exist`);
    await repository.deleteBookingRows(trx, id);
  });
}

export async function readBooking(handle: Handle, id: number): Promise<BookingView> {
  const booking = await loadDetail(handle.db, id, handle.publicUrl);
  if (!booking) throw new AppError('booking_not_found', `Booking ${id} does not exist`);
  return booking;
}
