import type { Db } from '../../db/database.js';
import { AppError } from '../../core/errors.js';
import { parseSchedule, type Schedule, type Weekly } from '../schedules/index.js';
import { getSettingsAndSchedule, type SiteSettings } from '../settings/index.js';
import type { BusyTimes } from './busy-times.js';
import type { DaySlots } from './day-slots.js';
import { daySpan, freeSlots, inZone, joinSlots, localInstant, localTime, nextDate, slotAgent, workingSpans, type BusyBooking, type FreeSlot, type SlotAgent, type Span } from './engine.js';
import { agentsAtLocation, busyBookings, connectedAgents, findService, type AgentBooking, type ConnectionRow, type ServiceRow } from './repository.js';
import type { Candidate, SlotContext, VersionedCandidate } from './candidate.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The site's booking window: from its min_lead_minutes to its max_advance_days after `now`. */
export function slotContextOf(settings: SiteSettings, now: number = Date.now()): SlotContext {
  return {
    timezone: settings.timezone,
    intervalMinutes: settings.slot_interval_minutes,
    earliest: now + settings.min_lead_minutes * MINUTE_MS,
    latest: now + settings.max_advance_days * DAY_MS,
    window: {
      noticeMinutes: settings.min_lead_minutes,
      noticeRule: 'min_lead_minutes',
      advanceDays: settings.max_advance_days,
      advanceRule: 'max_advance_days',
    },
    now,
  };
}

/**
 * The booking window of one service: its min_notice_minutes instead of the site's
 * min_lead_minutes, its max_advance_days instead of the site's, where it sets them.
 */
export function serviceWindow(context: SlotContext, service: Pick<ServiceRow, 'min_notice_minutes' | 'max_advance_days'>): SlotContext {
  const notice = service.min_notice_minutes;
  const advance = service.max_advance_days;
  if (notice === null && advance === null) return context;
  const window = { ...context.window };
  if (notice !== null) Object.assign(window, { noticeMinutes: notice, noticeRule: 'min_notice_minutes' });
  if (advance !== null) window.advanceDays = advance;
  return {
    ...context,
    earliest: context.now + window.noticeMinutes * MINUTE_MS,
    latest: context.now + window.advanceDays * DAY_MS,
    window,
  };
}

/** The minutes an agent keeps free around a booking of the service: the connection's, else the service's. */
export function buffersOf(
  row: Pick<ConnectionRow, 'buffer_before' | 'buffer_after'>,
  service: Pick<ServiceRow, 'buffer_before' | 'buffer_after'>,
): Pick<Candidate, 'bufferBeforeMinutes' | 'bufferAfterMinutes'> {
  return { bufferBeforeMinutes: row.buffer_before ?? service.buffer_before, bufferAfterMinutes: row.buffer_after ?? service.buffer_after };
}

/**
 * A candidate from its connection row. Duration: the request's, else the agent's custom
 * duration for the service, else the service's (contract §6); buffers: the connection's, else
 * the service's.
 */
export function candidateOf(row: ConnectionRow, site: Schedule, service: ServiceRow, duration?: number): Candidate {
  return {
    agentId: row.id,
    schedule: row.schedule ? parseSchedule(row.schedule) : site,
    site: row.schedule ? site : null,
    customHours: row.custom_hours ? (JSON.parse(row.custom_hours) as Weekly) : null,
    durationMinutes: duration ?? row.custom_duration ?? service.duration,
    customPriceCents: row.custom_price_cents,
    ...buffersOf(row, service),
  };
}

/**
 * Active agents connected to the service, by id, who can take a booking where asked: at the
 * location when given, else at their default one. `site`: the site schedule.
 */
export async function loadCandidates(
  db: Db,
  service: ServiceRow,
  site: Schedule,
  options: { agentIds?: readonly number[]; locationId?: number; duration?: number },
): Promise<VersionedCandidate[]> {
  let rows = (await connectedAgents(db, service.id, options.agentIds, options.locationId === undefined)).filter((r) => r.status === 'active');
  if (options.locationId !== undefined) {
    const atLocation = await agentsAtLocation(db, options.locationId, rows.map((r) => r.id));
    rows = rows.filter((r) => atLocation.has(r.id));
  }
  return rows.map((row) => ({ ...candidateOf(row, site, service, options.duration), busyVersion: row.busy_version }));
}

/**
 * The free slots of each date for any of the candidates, in the context's booking window (see
 * serviceWindow), with `attendees` seats left; one slot per start and end, naming every agent
 * free then. `bookings`: each candidate's bookings that occupy time in the dates or within
 * buffer reach of them (by start saves sorting them). On a day whose clocks go back, slots step
 * in elapsed time through the repeated hour: both occurrences of a local time may be offered.
 */
export function slotsOfDays(
  candidates: readonly Candidate[],
  dates: readonly string[],
  service: ServiceRow,
  context: SlotContext,
  bookings: ReadonlyMap<number, readonly BusyBooking[]>,
  attendees = 1,
): Map<string, FreeSlot[]> {
  // Candidates on the same hours (most work the site's) with the same duration and buffers share
  // the work of each day; each agent goes through its bookings once over all the dates, in order.
  const groups: { first: Candidate; agents: SlotAgent[] }[] = [];
  for (const candidate of candidates) {
    const agent = slotAgent(candidate.agentId, bookings.get(candidate.agentId) ?? []);
    const group = groups.find(
      ({ first }) =>
        first.schedule === candidate.schedule &&
        first.site === candidate.site &&
        first.customHours === candidate.customHours &&
        first.durationMinutes === candidate.durationMinutes &&
        first.bufferBeforeMinutes === candidate.bufferBeforeMinutes &&
        first.bufferAfterMinutes === candidate.bufferAfterMinutes,
    );
    if (group) group.agents.push(agent);
    else groups.push({ first: candidate, agents: [agent] });
  }
  const days = new Map<string, FreeSlot[]>();
  for (const date of dates) {
    const lists = groups.map(({ first, agents }) =>
      freeSlots(
        {
          spans: workingSpans(first.schedule, date, first.customHours, context.timezone, first.site),
          durationMinutes: first.durationMinutes,
          intervalMinutes: context.intervalMinutes,
          earliest: context.earliest,
          latest: context.latest,
          serviceId: service.id,
          capacity: service.capacity_max,
          bufferBeforeMinutes: first.bufferBeforeMinutes,
          bufferAfterMinutes: first.bufferAfterMinutes,
          attendees,
        },
        agents,
      ),
    );
    days.set(date, joinSlots(lists));
  }
  return days;
}

/** The instants the dates cover in the zone, from the first one's start to the last one's end. */
export function rangeOfDates(dates: readonly string[], zone: string): Span {
  return { start: daySpan(dates[0] ?? '', zone).start, end: daySpan(dates[dates.length - 1] ?? '', zone).end };
}

/** Reads the bookings of the candidates in the dates' range and computes their free slots. */
export async function availabilityOfDays(
  db: Db,
  candidates: readonly Candidate[],
  dates: readonly string[],
  service: ServiceRow,
  context: SlotContext,
  extra: readonly AgentBooking[] = [],
  excludeBookingId?: number,
  attendees = 1,
): Promise<Map<string, FreeSlot[]>> {
  const agentIds = candidates.map((c) => c.agentId);
  const range = rangeOfDates(dates, context.timezone);
  const byAgent = new Map<number, AgentBooking[]>();
  for (const booking of [...(await busyBookings(db, agentIds, range, { excludeId: excludeBookingId })), ...extra]) {
    const own = byAgent.get(booking.agentId);
    if (own) own.push(booking);
    else byAgent.set(booking.agentId, [booking]);
  }
  return slotsOfDays(candidates, dates, service, context, byAgent, attendees);
}

/**
 * availabilityOfDays for GET /availability: days worked out before for the same search come from
 * the instance's day slots; the candidates' bookings for the others from its busy times, read
 * again only for agents whose bookings changed since.
 */
export async function cachedAvailabilityOfDays(
  db: Db,
  kept: { busyTimes: BusyTimes; daySlots: DaySlots },
  candidates: readonly VersionedCandidate[],
  dates: readonly string[],
  service: ServiceRow,
  context: SlotContext,
): Promise<Map<string, readonly FreeSlot[]>> {
  const searchKey = kept.daySlots.searchKey(candidates, service, context);
  // A day the booking window's edges cut into, or that lies beyond it, depends on the moment
  // asked: it is worked out each time. A day wholly inside the window does not.
  const keepable = (date: string) => {
    const day = daySpan(date, context.timezone);
    return day.start >= context.earliest && day.end - 1 <= context.latest;
  };
  const days = new Map<string, readonly FreeSlot[]>();
  const missing: string[] = [];
  for (const date of dates) {
    const slots = keepable(date) ? kept.daySlots.get(searchKey, date) : undefined;
    if (slots) days.set(date, slots);
    else missing.push(date);
  }
  if (missing.length > 0) {
    const bookings = await kept.busyTimes.bookingsOf(db, candidates, rangeOfDates(missing, context.timezone));
    for (const [date, slots] of slotsOfDays(candidates, missing, service, context, bookings)) {
      days.set(date, slots);
      if (keepable(date)) kept.daySlots.set(searchKey, date, slots);
    }
  }
  return days;
}

/** How far ahead `time_slot_unavailable` looks for other free starts. */
const SUGGESTION_DAYS = 14;
const SUGGESTION_COUNT = 10;

/** Free starts a 409 suggests: each as a client sends it ("YYYY-MM-DD HH:MM"), with an agent free then. */
export interface Suggestions {
  /** Contract §6: the starts alone. */
  availableSlots: string[];
  /** The same starts, each with the agent (the lowest id of those free) it is free for. */
  suggestions: { start: string; agent_id: number }[];
}

/**
 * Up to 10 free starts on `date` and the following days (contract §6), for `attendees` seats, in
 * the context's booking window, each free for a named agent. A start a client cannot name (the
 * second occurrence of a repeated local time, which names the first) is not suggested.
 */
export async function suggestedStarts(
  db: Db,
  candidates: readonly Candidate[],
  date: string,
  service: ServiceRow,
  context: SlotContext,
  extra: readonly AgentBooking[] = [],
  excludeBookingId?: number,
  attendees = 1,
): Promise<Suggestions> {
  const dates = [date];
  while (dates.length < SUGGESTION_DAYS) dates.push(nextDate(dates[dates.length - 1] ?? date));
  const days = await availabilityOfDays(db, candidates, dates, service, context, extra, excludeBookingId, attendees);
  const byStart = new Map<number, number>();
  for (const slot of [...days.values()].flat()) {
    byStart.set(slot.start, Math.min(byStart.get(slot.start) ?? Infinity, ...slot.agentIds));
  }
  const found: Suggestions = { availableSlots: [], suggestions: [] };
  for (const [start, agentId] of [...byStart].sort(([a], [b]) => a - b)) {
    if (found.suggestions.length === SUGGESTION_COUNT) break;
    const local = inZone(start, context.timezone);
    const [day, time] = [local.toFormat('yyyy-MM-dd'), local.toFormat('HH:mm')];
    if (localInstant(day, time, context.timezone) !== start) continue;
    found.availableSlots.push(`${day} ${time}`);
    found.suggestions.push({ start: `${day} ${time}`, agent_id: agentId });
  }
  return found;
}

/** A booking to move, as freeStartsToMove needs it: its service, agent, location and length. */
export interface BookingToMove {
  id: number;
  serviceId: number;
  agentId: number;
  locationId: number;
  durationMinutes: number;
}

/**
 * The starts a booking can move to over `days` days from the site's today, as local dates and
 * times: the free slots of its service with its agent at its location, of its length, under the
 * rules of GET /availability; its own time counts as free.
 */
export async function freeStartsToMove(db: Db, booking: BookingToMove, days: number): Promise<{ date: string; time: string }[]> {
  const [service, { settings, schedule }] = await Promise.all([findService(db, booking.serviceId), getSettingsAndSchedule(db)]);
  if (service?.status !== 'active') return [];
  const context = slotContextOf(settings);
  const candidates = await loadCandidates(db, service, schedule, {
    agentIds: [booking.agentId],
    locationId: booking.locationId,
    duration: booking.durationMinutes,
  });
  if (candidates.length === 0) return [];
  const dates = [inZone(context.now, context.timezone).toFormat('yyyy-MM-dd')];
  while (dates.length < days) dates.push(nextDate(dates[dates.length - 1] as string));
  const found = await availabilityOfDays(db, candidates, dates, service, context, [], booking.id);
  return dates.flatMap((date) => (found.get(date) ?? []).map((slot) => ({ date, time: localTime(slot.start, context.timezone) })));
}

/** `any` and `-1` let availability choose the agent; otherwise a positive id. */
export function parseAgentChoice(value: number | 'any'): number | 'any' {
  if (value === 'any' || value === -1) return 'any';
  if (value < 1) throw new AppError('invalid_request', 'agent_id must be a positive id, any or -1', { agent_id: 'must be a positive id, any or -1' });
  return value;
}
