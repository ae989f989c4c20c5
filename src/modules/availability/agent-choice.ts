import type { Db } from '../../db/database.js';
import { AppError } from '../../core/errors.js';
import type { Schedule } from '../schedules/index.js';
import type { Candidate, SlotContext } from './candidate.js';
import { conflictOf, daySpan, isWithin, localInstant, workingSpans, type BookingNeed, type Span } from './engine.js';
import {
  busyBookings,
  busyBookingsOfAgent,
  busyBookingsOfRanges,
  boundsOfAgents,
  isBusyWithin,
  LAST_STORABLE_INSTANT,
  type AgentBooking,
  type BusyBounds,
  type ConnectionRow,
  type ServiceRow,
} from './repository.js';
import { buffersOf, candidateOf, suggestedStarts } from './service.js';

const MINUTE_MS = 60_000;

/**
 * The catalog reads agent choice asks of the caller's transaction, which makes each once: the
 * transaction that checks and writes the bookings changes none of them before its checks are done.
 */
export interface AgentReads {
  service(id: number): Promise<ServiceRow | undefined>;
  /** The agent with its longest booking and widest buffer, which bound how far around a check of it looks. */
  agent(id: number): Promise<{ longest_booking_ms: number | null; widest_buffer_ms: number | null } | undefined>;
  connection(serviceId: number, agentId: number): Promise<ConnectionRow | undefined>;
  worksAt(locationId: number, agentId: number): Promise<boolean>;
  /** Every agent connected to the service, by id (with whether each works at the location, when given). */
  connectedAgents(serviceId: number, locationId?: number): Promise<number[]>;
  siteSchedule(): Promise<Schedule>;
}

/** What agent choice reads of a booking request. */
export interface RequestedBooking {
  serviceId: number;
  agent: number | 'any';
  startDate: string;
  startTime: string;
  locationId?: number;
  duration?: number;
  status: string;
}

/** The bookings occupying the agents' time in a range, as busyBookings reads them. */
export type BusyReads = (agentIds: readonly number[], range: Span, ownBufferMs: number) => Promise<AgentBooking[]>;

export interface ChoiceOptions {
  context: SlotContext;
  /** The transaction's catalog reads; without them the agents' longest bookings are read anew. */
  reads?: AgentReads;
  /** Where the busy bookings come from (a bulk request reads them at once); the database otherwise. */
  busy?: BusyReads;
  /** Bookings accepted earlier in the same bulk request, not yet written (negative ids: -(index + 1)). */
  pending: readonly AgentBooking[];
}

function failed(field: string, message: string): AppError {
  return new AppError('validation_failed', message, { [field]: message });
}

/** Active agents connected to the service (and to the location when given), by id, among the locked ones. */
export async function anyCandidates(
  reads: AgentReads,
  service: ServiceRow,
  request: Pick<RequestedBooking, 'locationId' | 'duration'>,
  locked: ReadonlySet<number>,
): Promise<Candidate[]> {
  const site = await reads.siteSchedule();
  const candidates: Candidate[] = [];
  for (const agentId of await reads.connectedAgents(service.id, request.locationId)) {
    if (!locked.has(agentId)) continue;
    const connection = await reads.connection(service.id, agentId);
    if (!connection || connection.status !== 'active') continue;
    if (request.locationId !== undefined && !(await reads.worksAt(request.locationId, agentId))) continue;
    candidates.push(candidateOf(connection, site, service, request.duration));
  }
  return candidates;
}

/** A start outside the booking window: the field, and the rule it breaks by name. */
function outsideWindow(field: string, message: string, rule: string): AppError {
  return new AppError('validation_failed', `${message} (${rule})`, { [field]: message, rule });
}

/**
 * The start instant of a local date and time in the site zone: it must exist, not be past, and
 * lie in the booking window (the context's, see serviceWindow): not sooner than the notice it
 * asks, not further ahead than its days.
 */
export function startInstant(date: string, time: string, context: SlotContext): number {
  const start = localInstant(date, time, context.timezone);
  if (start === undefined) {
    throw failed('start_time', `${date} ${time} does not exist in ${context.timezone} (the clocks skip it)`);
  }
  if (start < context.now) throw failed('start_date', 'the start must not be in the past');
  const { window } = context;
  if (start < context.earliest) {
    throw outsideWindow('start_time', `the start must be at least ${window.noticeMinutes} minutes from now`, window.noticeRule);
  }
  if (start > context.latest) {
    throw outsideWindow('start_date', `the start must be at most ${window.advanceDays} days from now`, window.advanceRule);
  }
  return start;
}

export function spanOf(start: number, candidate: Candidate): Span {
  return { start, end: start + candidate.durationMinutes * MINUTE_MS };
}

/** What a booking with the candidate asks of its time beside the span: its buffers, and `attendees` seats. */
export function needOf(candidate: Candidate, attendees: number): BookingNeed {
  return { bufferBefore: candidate.bufferBeforeMinutes * MINUTE_MS, bufferAfter: candidate.bufferAfterMinutes * MINUTE_MS, attendees };
}

/**
 * The range whose bookings decide whether a start is free for these agents: with one agent, the
 * booking itself; with several, its whole day too, as the day's load chooses among the free ones.
 */
function busyRangeFor(agents: readonly { durationMinutes: number }[], day: Span, start: number): Span {
  const end = start + Math.max(...agents.map((a) => a.durationMinutes)) * MINUTE_MS;
  return agents.length === 1 ? { start, end } : { start: Math.min(day.start, start), end: Math.max(day.end, end) };
}

/** Those candidates whose working hours on `date` hold the whole booking; refuses when none does. */
export function workingCandidates(candidates: readonly Candidate[], date: string, start: number, context: SlotContext, chosenByCaller: boolean): Candidate[] {
  const working = candidates.filter((c) => {
    const span = spanOf(start, c);
    return span.end <= LAST_STORABLE_INSTANT && isWithin(span, workingSpans(c.schedule, date, c.customHours, context.timezone, c.site));
  });
  if (working.length > 0) return working;
  const only = candidates[0];
  if (chosenByCaller && only && workingSpans(only.schedule, date, only.customHours, context.timezone, only.site).length === 0) {
    throw failed('start_date', `agent ${only.agentId} does not work on ${date}`);
  }
  throw failed(
    'start_time',
    chosenByCaller ? 'the booking lies outside the agent’s working hours' : 'no agent offering this service works at that time',
  );
}

/**
 * How far around a span keeping `ownBufferMs` free a check of these agents reads: back to the
 * longest booking of any of them, and out to the widest buffer of theirs or the span's, as this
 * transaction read them with the agents.
 */
async function readBounds(reads: AgentReads, agentIds: Iterable<number>, ownBufferMs: number): Promise<BusyBounds> {
  const rows = [];
  for (const agentId of agentIds) rows.push(await reads.agent(agentId));
  return boundsOfAgents(rows, ownBufferMs);
}

/** The widest buffer any of these candidates keeps around a booking, in ms. */
function widestOwnBuffer(candidates: readonly { bufferBeforeMinutes: number; bufferAfterMinutes: number }[]): number {
  return Math.max(0, ...candidates.map((c) => Math.max(c.bufferBeforeMinutes, c.bufferAfterMinutes))) * MINUTE_MS;
}

/** The agents' busy bookings within the bounds of the agents, as this transaction read them with their other facts. */
async function busyOfAgents(db: Db, agentIds: readonly number[], range: Span, reads: AgentReads, ownBufferMs: number): Promise<AgentBooking[]> {
  const bounds = await readBounds(reads, agentIds, ownBufferMs);
  const [only] = agentIds;
  return only !== undefined && agentIds.length === 1 ? busyBookingsOfAgent(db, only, range, bounds) : busyBookings(db, agentIds, range, { bounds });
}

/**
 * Among the working candidates, the one to book: free at that time, buffers and seats counted,
 * with the fewest bookings that day (ties: lowest id). Refuses with time_slot_unavailable when
 * every one is busy, suggesting other starts, each with an agent free then.
 */
export async function freeCandidate(
  db: Db,
  working: readonly Candidate[],
  candidates: readonly Candidate[],
  requested: { date: string; time: string; attendees: number },
  start: number,
  service: ServiceRow,
  options: ChoiceOptions,
  excludeBookingId?: number,
): Promise<Candidate> {
  const day = daySpan(requested.date, options.context.timezone);
  const range = busyRangeFor(working, day, start);
  const agentIds = working.map((c) => c.agentId);
  const ownBufferMs = widestOwnBuffer(working);
  const stored = options.busy
    ? options.busy(agentIds, range, ownBufferMs)
    : excludeBookingId === undefined && options.reads
      ? busyOfAgents(db, agentIds, range, options.reads, ownBufferMs)
      : busyBookings(db, agentIds, range, { excludeId: excludeBookingId, ownBufferMs });
  const bookings = [
    ...(await stored),
    ...options.pending.filter((b) => agentIds.includes(b.agentId)),
  ];
  const bookingsOf = (agentId: number) => bookings.filter((b) => b.agentId === agentId);
  let best: { candidate: Candidate; load: number } | undefined;
  let firstConflict: AgentBooking | undefined;
  for (const candidate of working) {
    const own = bookingsOf(candidate.agentId);
    const conflict = conflictOf(spanOf(start, candidate), service.id, service.capacity_max, own, needOf(candidate, requested.attendees));
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
  const { availableSlots, suggestions } = await suggestedStarts(
    db,
    candidates,
    requested.date,
    service,
    options.context,
    options.pending,
    excludeBookingId,
    requested.attendees,
  );
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
      suggestions,
    },
  );
}

/** Spans merged where they overlap or touch, by start. */
function mergeSpans(spans: readonly Span[]): Span[] {
  const merged: Span[] = [];
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/**
 * The busy bookings the checks of a bulk request's elements will ask about, read in one
 * statement before the checks: for each element that names an existing service and a start,
 * the range freeCandidate reads for each agent it may book. Whatever lies outside what was read
 * is read from the database when asked, so this guess decides the cost, never the answer.
 */
export async function bulkBusyReads(
  db: Db,
  requests: readonly RequestedBooking[],
  reads: AgentReads,
  context: SlotContext,
  locked: ReadonlySet<number>,
): Promise<BusyReads> {
  const wanted = new Map<number, Span[]>();
  let ownBufferMs = 0;
  for (const request of requests) {
    const start = localInstant(request.startDate, request.startTime, context.timezone);
    const service = await reads.service(request.serviceId);
    if (request.status === 'cancelled' || start === undefined || !service) continue;
    const agentIds = request.agent === 'any' ? (await reads.connectedAgents(service.id, request.locationId)).filter((id) => locked.has(id)) : [request.agent];
    const durations: { durationMinutes: number }[] = [];
    for (const agentId of agentIds) {
      const connection = await reads.connection(service.id, agentId);
      if (!connection) continue;
      durations.push({ durationMinutes: request.duration ?? connection.custom_duration ?? service.duration });
      ownBufferMs = Math.max(ownBufferMs, widestOwnBuffer([buffersOf(connection, service)]));
    }
    if (durations.length === 0) continue;
    const range = busyRangeFor(durations, daySpan(request.startDate, context.timezone), start);
    for (const agentId of agentIds) wanted.set(agentId, [...(wanted.get(agentId) ?? []), range]);
  }
  const read = [...wanted].flatMap(([agentId, ranges]) => mergeSpans(ranges).map((range) => ({ agentId, range })));
  const bounds = await readBounds(reads, wanted.keys(), ownBufferMs);
  const bookings = await busyBookingsOfRanges(db, read, bounds);
  return async (agentIds, range, ownBuffer) => {
    const covered =
      ownBuffer <= bounds.reachMs && agentIds.every((id) => read.some((r) => r.agentId === id && r.range.start <= range.start && range.end <= r.range.end));
    if (!covered) return busyBookings(db, agentIds, range, { ownBufferMs: ownBuffer });
    return bookings.filter((b) => agentIds.includes(b.agentId) && isBusyWithin(b, range, bounds.reachMs));
  };
}
