import { DateTime, IANAZone } from 'luxon';
import { offsetText, storedInstant, wallClockAt, zoneOffset } from '../../lib/time.js';
import { weekdayName, type Period, type Schedule, type Weekly } from '../schedules/index.js';

/**
 * The availability engine: pure functions from working hours, bookings and settings to free
 * slots. Instants are epoch milliseconds; local dates and times are converted with the IANA
 * zone rules (Luxon), never with fixed offsets.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** A half-open span of instants [start, end), epoch milliseconds. */
export interface Span {
  start: number;
  end: number;
}

/**
 * Working time without a break: configured periods that touch or overlap are joined into one
 * (a booking may run across the seam), and `seams` keeps the starts of the periods after the
 * first, from each of which slot starts step anew (contract §6).
 */
export interface WorkingSpan extends Span {
  seams?: number[];
}

/** A booking that occupies its agent's time (anything not cancelled). */
export interface BusyBooking extends Span {
  id: number;
  serviceId: number;
  /** Milliseconds kept free before its start and after its end, as it was booked with (none when absent). */
  bufferBefore?: number;
  bufferAfter?: number;
  /** Seats it takes of its service's capacity (one when absent). */
  seats?: number;
}

/**
 * What a booking to make asks of an agent's time beside its span: the time it keeps free around
 * itself (milliseconds), and the seats it takes of its service's capacity.
 */
export interface BookingNeed {
  bufferBefore: number;
  bufferAfter: number;
  attendees: number;
}

const ONE_SEAT_NO_BUFFERS: BookingNeed = { bufferBefore: 0, bufferAfter: 0, attendees: 1 };

/**
 * Whether `booking` keeps [start, end), with `before` and `after` ms kept free around it, from
 * being booked: either span lies in the other's time or in the time kept free around it. Buffers
 * may overlap each other: they keep time free of bookings, not of other buffers.
 */
function blocks(booking: BusyBooking, start: number, end: number, before: number, after: number): boolean {
  return (
    (start < booking.end + (booking.bufferAfter ?? 0) && booking.start - (booking.bufferBefore ?? 0) < end) ||
    (start - before < booking.end && booking.start < end + after)
  );
}

/** "HH:MM" (00:00 … 24:00) → minutes after midnight. */
export function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':');
  return Number(hours) * 60 + Number(minutes);
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar, years 0 to 99 included;
 * a month or day out of range rolls over into the next or previous ones, as with Date.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  // Counted in years that start in March, so that the leap day comes last.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

function digitsAt(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

/** A local date (YYYY-MM-DD) and minutes after its midnight as if UTC, epoch milliseconds. */
function wallClockMs(date: string, minutes: number): number {
  // Every date of every slot search comes through here: read digit by digit, without a Date.
  if (date.length === 10 && date[4] === '-' && date[7] === '-') {
    return daysFromCivil(digitsAt(date, 0, 4), digitsAt(date, 5, 7), digitsAt(date, 8, 10)) * DAY_MS + minutes * MINUTE_MS;
  }
  const [year, month, day] = date.split('-').map(Number);
  return daysFromCivil(year ?? 0, month ?? 1, day ?? 1) * DAY_MS + minutes * MINUTE_MS;
}

const HOURS_MINUTES = Array.from({ length: 24 * 60 }, (_, m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
const DATE_TEXT_LIMIT = 100_000;
const YEAR_0_MS = -62_167_219_200_000;
const YEAR_10000_MS = 253_402_300_800_000;
const dateTexts = new Map<number, string>();
const offsetTexts = new Map<number, string>();

/**
 * The local wall-clock time of an instant on a whole minute, as epoch milliseconds read as UTC;
 * undefined where the tables below do not reach (seconds, offsets with seconds, invalid zones,
 * years outside 0000–9999).
 */
function wholeMinuteLocal(instant: number, zoneName: string): number | undefined {
  if (instant % MINUTE_MS !== 0) return undefined;
  const zone = zoneOf(zoneName);
  if (!zone.isValid) return undefined;
  const offset = zoneOffset(zone, instant);
  if (!Number.isInteger(offset)) return undefined;
  const local = instant + offset * MINUTE_MS;
  return local >= YEAR_0_MS && local < YEAR_10000_MS ? local : undefined;
}

/** `HH:MM` of a whole-minute local time (wholeMinuteLocal), by table. */
function hoursMinutesOf(local: number): string {
  return HOURS_MINUTES[(local - Math.floor(local / DAY_MS) * DAY_MS) / MINUTE_MS] as string;
}

/** `YYYY-MM-DD` of a wall-clock time (epoch milliseconds read as UTC), remembered per day. */
function dateTextOf(wall: number): string {
  const day = Math.floor(wall / DAY_MS);
  let date = dateTexts.get(day);
  if (date === undefined) {
    date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dateTexts.size >= DATE_TEXT_LIMIT) dateTexts.clear();
    dateTexts.set(day, date);
  }
  return date;
}

function offsetTextOf(minutes: number): string {
  let text = offsetTexts.get(minutes);
  if (text === undefined) {
    text = offsetText(minutes);
    offsetTexts.set(minutes, text);
  }
  return text;
}

// Slot lists format hundreds of instants per request: whole minutes, by table look-ups, without
// building Dates or Luxon DateTimes; anything else the general way.

/** An instant's local wall-clock time in the zone: `HH:MM`, and ISO 8601 with its offset (`+01:00`). */
export function localClock(instant: number, zoneName: string): { time: string; iso: string } {
  const local = wholeMinuteLocal(instant, zoneName);
  if (local !== undefined) {
    const time = hoursMinutesOf(local);
    return { time, iso: `${dateTextOf(local)}T${time}:00${offsetTextOf((local - instant) / MINUTE_MS)}` };
  }
  const wall = wallClockAt(instant, zoneName);
  if (wall) return { time: wall.local.slice(11, 16), iso: `${wall.local}${offsetText(wall.offset)}` };
  const dateTime = inZone(instant, zoneName);
  return { time: dateTime.toFormat('HH:mm'), iso: dateTime.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ") };
}

/** localClock's `HH:MM` alone. */
export function localTime(instant: number, zoneName: string): string {
  const local = wholeMinuteLocal(instant, zoneName);
  return local === undefined ? localClock(instant, zoneName).time : hoursMinutesOf(local);
}

/**
 * Every instant whose local time in `zone` is the wall-clock time `wall` (written as if UTC):
 * none inside a DST gap, two inside a DST overlap, one otherwise. No zone changes its offset
 * twice within two days, so the offsets a day either side are the only candidates.
 */
function instantsOfWallClock(wall: number, zone: IANAZone): number[] {
  const offsets = new Set([zoneOffset(zone, wall - DAY_MS), zoneOffset(zone, wall + DAY_MS)]);
  const found: number[] = [];
  for (const offset of offsets) {
    const instant = wall - offset * MINUTE_MS;
    if (zoneOffset(zone, instant) === offset) found.push(instant);
  }
  return found.sort((a, b) => a - b);
}

function zoneOf(name: string): IANAZone {
  return IANAZone.create(name);
}

/**
 * The instant of a local date and time ("HH:MM") in `zone`: the first occurrence when the time
 * is ambiguous (DST overlap), undefined when it does not exist (DST gap).
 */
export function localInstant(date: string, time: string, zone: string): number | undefined {
  return instantsOfWallClock(wallClockMs(date, minutesOf(time)), zoneOf(zone))[0];
}

// Zone offsets come from Intl and cost microseconds each; the same few boundaries (a date's
// working hours, its midnight) recur for every agent and request, and zone rules never change
// while the process runs, so their instants are remembered.
const boundaryCache = new Map<string, Map<number, number>>();
const BOUNDARY_CACHE_LIMIT = 100_000;

/**
 * Like localInstant, but a time inside a DST gap means the moment the clocks jump: the working
 * day then keeps every instant it has, neither gaining nor losing time around the gap.
 */
function boundaryInstant(date: string, minutes: number, zone: IANAZone): number {
  const wall = wallClockMs(date, minutes);
  let instants = boundaryCache.get(zone.name);
  if (!instants) {
    instants = new Map();
    boundaryCache.set(zone.name, instants);
  }
  let instant = instants.get(wall);
  if (instant === undefined) {
    instant = computeBoundaryInstant(wall, zone);
    if (instants.size >= BOUNDARY_CACHE_LIMIT) instants.clear();
    instants.set(wall, instant);
  }
  return instant;
}

function computeBoundaryInstant(wall: number, zone: IANAZone): number {
  const found = instantsOfWallClock(wall, zone);
  if (found[0] !== undefined) return found[0];
  // In a gap the offset grows at one instant between these two; find the minute it happens.
  let before = wall - zoneOffset(zone, wall + DAY_MS) * MINUTE_MS;
  let after = wall - zoneOffset(zone, wall - DAY_MS) * MINUTE_MS;
  const offsetBefore = zoneOffset(zone, before);
  while (after - before > MINUTE_MS) {
    const middle = before + Math.floor((after - before) / 2 / MINUTE_MS) * MINUTE_MS;
    if (zoneOffset(zone, middle) === offsetBefore) before = middle;
    else after = middle;
  }
  return after;
}

/** The parts of `worked` that `allowed` allows too, with the seams of both. */
function narrowTo(worked: readonly WorkingSpan[], allowed: readonly WorkingSpan[]): WorkingSpan[] {
  const narrowed: WorkingSpan[] = [];
  for (const w of worked) {
    for (const a of allowed) {
      const piece: WorkingSpan = { start: Math.max(w.start, a.start), end: Math.min(w.end, a.end) };
      if (piece.end <= piece.start) continue;
      for (const seam of [...(w.seams ?? []), ...(a.seams ?? [])]) addSeam(piece, seam);
      narrowed.push(piece);
    }
  }
  return narrowed;
}

/** Sorted, with overlapping or touching periods joined (a booking may run across the seam). */
function mergePeriods(periods: readonly Span[]): WorkingSpan[] {
  const sorted = periods.filter((p) => p.end > p.start).sort((a, b) => a.start - b.start);
  const merged: WorkingSpan[] = [];
  for (const period of sorted) {
    const last = merged[merged.length - 1];
    if (!last || period.start > last.end) merged.push({ ...period });
    else {
      last.end = Math.max(last.end, period.end);
      addSeam(last, period.start);
    }
  }
  return merged;
}

function addSeam(span: WorkingSpan, at: number): void {
  if (at <= span.start || at >= span.end || span.seams?.includes(at)) return;
  span.seams = [...(span.seams ?? []), at].sort((a, b) => a - b);
}

function toMinutes(periods: readonly Period[]): { start: number; end: number }[] {
  return periods.map((p) => ({ start: minutesOf(p.start), end: minutesOf(p.end) }));
}

/** The weekday of a local date (YYYY-MM-DD). */
export function weekdayOf(date: string) {
  // getUTCDay: 0 is Sunday; the schedule's numbering (Luxon's) has Sunday as 7.
  return weekdayName(new Date(wallClockMs(date, 0)).getUTCDay() || 7);
}

/**
 * The working periods of one local date, in minutes after midnight: the date's exception if it
 * has one, else its weekday's hours, narrowed to `customHours` (an agent's hours for one
 * service) when given: a weekday those leave out is not worked for the service at all.
 * `site`: the site's schedule, for an agent on hours of its own: a site exception (a closure,
 * short hours) binds every agent, and the agent's own hours or exception narrow it further.
 */
export function workingMinutes(schedule: Schedule, date: string, customHours: Weekly | null, site: Schedule | null = null): WorkingSpan[] {
  const weekday = weekdayOf(date);
  const exception = schedule.exceptions.find((e) => e.date === date);
  let worked = mergePeriods(toMinutes(exception ? exception.periods : (schedule.weekly[weekday] ?? [])));
  const siteException = site && site !== schedule ? site.exceptions.find((e) => e.date === date) : undefined;
  if (siteException) worked = narrowTo(worked, mergePeriods(toMinutes(siteException.periods)));
  return customHours ? narrowTo(worked, mergePeriods(toMinutes(customHours[weekday] ?? []))) : worked;
}

/**
 * The working spans of one local date as instants in `zone`. Periods whose break lies inside a
 * DST gap touch once in instants (both ends of the break are the moment the clocks jump): they
 * are joined, the break taking no time, and the later period's slots step anew from the seam.
 */
export function workingSpans(schedule: Schedule, date: string, customHours: Weekly | null, zone: string, site: Schedule | null = null): WorkingSpan[] {
  const ianaZone = zoneOf(zone);
  const spans: WorkingSpan[] = [];
  for (const p of workingMinutes(schedule, date, customHours, site)) {
    const span: WorkingSpan = { start: boundaryInstant(date, p.start, ianaZone), end: boundaryInstant(date, p.end, ianaZone) };
    if (span.end <= span.start) continue;
    for (const seam of p.seams ?? []) addSeam(span, boundaryInstant(date, seam, ianaZone));
    const last = spans[spans.length - 1];
    if (last && span.start <= last.end) {
      last.end = Math.max(last.end, span.end);
      for (const seam of [span.start, ...(span.seams ?? [])]) addSeam(last, seam);
    } else spans.push(span);
  }
  return spans;
}

/** The instants a local date covers in `zone`: [its first instant, the next date's first instant). */
export function daySpan(date: string, zone: string): Span {
  const ianaZone = zoneOf(zone);
  return { start: boundaryInstant(date, 0, ianaZone), end: boundaryInstant(date, 24 * 60, ianaZone) };
}

/**
 * The first instant at which the clocks of `zone` show `minutes` after the midnight of `date`
 * (minutes past 24:00 run into the next dates): in a DST gap, the moment the clocks jump; in an
 * overlap, the first occurrence.
 */
export function wallClockBoundary(date: string, minutes: number, zone: string): number {
  return boundaryInstant(date, minutes, zoneOf(zone));
}

/**
 * The stored-form instants a local date runs from (its first instant) and until (the next
 * date's first), for filters on stored times: a date that starts at 01:00, or has two
 * midnights, starts at its first instant all the same.
 */
export function storedDayBounds(date: string, zone: string): { from: string; until: string } {
  const { start, end } = daySpan(date, zone);
  return { from: storedInstant(start), until: storedInstant(end) };
}

export function isWithin(span: Span, spans: readonly Span[]): boolean {
  return spans.some((s) => s.start <= span.start && span.end <= s.end);
}

/**
 * The booking that keeps `span` from being booked for `serviceId`, or undefined when it is free.
 * Bookings of the same service with exactly the same start share it while their seats and the
 * new booking's attendees fit in `capacity`; any other booking conflicts when either lies in the
 * other's time or in the time kept free around it (`need`: one attendee and no buffers if absent).
 */
export function conflictOf<B extends BusyBooking>(
  span: Span,
  serviceId: number,
  capacity: number,
  bookings: readonly B[],
  need: BookingNeed = ONE_SEAT_NO_BUFFERS,
): B | undefined {
  // One pass, no allocation.
  let first: B | undefined;
  let taken = 0;
  for (const booking of bookings) {
    if (booking.serviceId === serviceId && booking.start === span.start) {
      first ??= booking;
      taken += booking.seats ?? 1;
    } else if (blocks(booking, span.start, span.end, need.bufferBefore, need.bufferAfter)) return booking;
  }
  return taken + need.attendees > capacity ? first : undefined;
}

export interface SlotQuery {
  /** The agents' working spans of the day (workingSpans). */
  spans: readonly WorkingSpan[];
  durationMinutes: number;
  intervalMinutes: number;
  /** No slot starts before this instant (now plus the notice the booking window asks). */
  earliest: number;
  /** No slot starts after this instant (the booking window's far edge); none when absent. */
  latest?: number;
  serviceId: number;
  capacity: number;
  /** Minutes kept free before and after each slot (none when absent). */
  bufferBeforeMinutes?: number;
  bufferAfterMinutes?: number;
  /** Seats a slot must have left (one when absent). */
  attendees?: number;
}

/**
 * For the candidate starts of one day (ascending), a duration and the time kept free around
 * each (`before`, `after`, ms), what each start holds for one agent, written to marks[at + i]
 * for start i (they come as 0): -1 when a booking conflicts (conflictOf), else the seats that
 * bookings of the service starting exactly then take.
 */
type BusyMarks = (starts: readonly number[], duration: number, serviceId: number, before: number, after: number, marks: number[], at: number) => void;

/** An agent asked about, day after day, by slotAgent. */
export interface SlotAgent {
  agentId: number;
  marks: BusyMarks;
}

/**
 * An agent with its bookings that are not cancelled, to ask freeSlots about its days in order.
 * Each day looks only at the bookings near it: one that ended before an earlier day's first
 * start cannot overlap a later day, so the agent remembers how many of them are behind it. A
 * day asked out of order starts over.
 */
export function slotAgent(agentId: number, bookings: readonly BusyBooking[]): SlotAgent {
  let sorted = true;
  for (let i = 1; i < bookings.length && sorted; i++) sorted = (bookings[i - 1] as BusyBooking).start <= (bookings[i] as BusyBooking).start;
  const byStart = sorted ? bookings : [...bookings].sort((a, b) => a.start - b.start);
  // The longest time any booking keeps free before it: how far before its start it reaches.
  let longestBefore = 0;
  for (const booking of byStart) longestBefore = Math.max(longestBefore, booking.bufferBefore ?? 0);
  let ended = 0;
  let lastFirst = -Infinity;
  let lastBefore = 0;
  const marks: BusyMarks = (starts, duration, serviceId, before, after, marks, at) => {
    const count = starts.length;
    if (count === 0) return;
    const first = starts[0] as number;
    const lastEnd = (starts[count - 1] as number) + duration;
    if (first < lastFirst || before !== lastBefore) ended = 0;
    lastFirst = first;
    lastBefore = before;
    // The last start a booking can keep from being booked is before this (blocks).
    const reach = (booking: BusyBooking) => booking.end + Math.max(booking.bufferAfter ?? 0, before);
    while (ended < byStart.length && reach(byStart[ended] as BusyBooking) <= first) ended++;
    // A slot ending this far before a booking's start is clear of it, whatever its buffers.
    const back = Math.max(longestBefore, after);
    // The first start whose span may reach the booking; bookings come by start, so it only moves on.
    let from = 0;
    for (let k = ended; k < byStart.length; k++) {
      const booking = byStart[k] as BusyBooking;
      if (booking.start - back >= lastEnd) break;
      const until = reach(booking);
      if (until <= first) continue;
      while (from < count && (starts[from] as number) + duration <= booking.start - back) from++;
      for (let i = from; i < count && (starts[i] as number) < until; i++) {
        const mark = marks[at + i] as number;
        if (mark < 0) continue;
        const start = starts[i] as number;
        if (booking.serviceId === serviceId && booking.start === start) marks[at + i] = mark + (booking.seats ?? 1);
        else if (blocks(booking, start, start + duration, before, after)) marks[at + i] = -1;
      }
    }
  };
  return { agentId, marks };
}

/** A free start, with the agents free for the whole duration from it. */
export interface FreeSlot {
  start: number;
  end: number;
  agentIds: number[];
  /** The most seats one of those agents has left at this start (of the service's capacity). */
  seatsLeft: number;
}

/**
 * Free slots of agents with the same working spans and duration: stepping by the interval
 * (elapsed minutes) from the start of each span and of each period joined into it (its seams),
 * every start whose whole duration fits in the span and that lies in the booking window
 * (`earliest`, `latest`), with the agents (in the given order) that no booking keeps from it
 * and who have the seats asked left (conflictOf); starts where none is free are left out. Ask
 * about an agent's days in order.
 */
export function freeSlots(query: SlotQuery, agents: readonly SlotAgent[]): FreeSlot[] {
  const duration = query.durationMinutes * MINUTE_MS;
  const step = query.intervalMinutes * MINUTE_MS;
  const latest = query.latest ?? Infinity;
  const starts: number[] = [];
  for (const span of query.spans) {
    // Each configured period's grid runs from its start up to the next period's start.
    const origins = [span.start, ...(span.seams ?? [])];
    origins.forEach((origin, k) => {
      const until = Math.min(origins[k + 1] ?? span.end, latest + 1);
      let start = origin;
      if (start < query.earliest) start += Math.ceil((query.earliest - start) / step) * step;
      for (; start < until && start + duration <= span.end; start += step) starts.push(start);
    });
  }
  const count = starts.length;
  if (count === 0) return [];
  const before = (query.bufferBeforeMinutes ?? 0) * MINUTE_MS;
  const after = (query.bufferAfterMinutes ?? 0) * MINUTE_MS;
  // Agent by agent, then start by start: each slot's agent list is made once, at its size.
  const marks = new Array<number>(agents.length * count).fill(0);
  agents.forEach((agent, a) => agent.marks(starts, duration, query.serviceId, before, after, marks, a * count));
  const mostTaken = query.capacity - (query.attendees ?? 1);
  const isFree = (mark: number) => mark >= 0 && mark <= mostTaken;
  const slots: FreeSlot[] = [];
  for (let i = 0; i < count; i++) {
    let free = 0;
    let leastTaken = Infinity;
    for (let a = 0; a < agents.length; a++) {
      const mark = marks[a * count + i] as number;
      if (!isFree(mark)) continue;
      free++;
      leastTaken = Math.min(leastTaken, mark);
    }
    if (free === 0) continue;
    const agentIds = new Array<number>(free);
    free = 0;
    for (let a = 0; a < agents.length; a++) if (isFree(marks[a * count + i] as number)) agentIds[free++] = (agents[a] as SlotAgent).agentId;
    const start = starts[i] as number;
    slots.push({ start, end: start + duration, agentIds, seatsLeft: query.capacity - leastTaken });
  }
  return slots;
}

/**
 * Slot lists of several groups of agents as one: sorted by start and end, the agents of slots
 * with the same start and end joined (ascending ids), with the most seats any of them has left.
 */
export function joinSlots(lists: readonly (readonly FreeSlot[])[]): FreeSlot[] {
  if (lists.length === 1) return [...(lists[0] as readonly FreeSlot[])];
  const all = lists.flat().sort((a, b) => a.start - b.start || a.end - b.end);
  const joined: FreeSlot[] = [];
  for (const slot of all) {
    const last = joined[joined.length - 1];
    if (last && last.start === slot.start && last.end === slot.end) {
      last.agentIds = [...last.agentIds, ...slot.agentIds].sort((a, b) => a - b);
      last.seatsLeft = Math.max(last.seatsLeft, slot.seatsLeft);
    } else joined.push({ ...slot });
  }
  return joined;
}

/** A DateTime of an instant in `zone`, for rendering. */
export function inZone(instant: number, zone: string): DateTime {
  return DateTime.fromMillis(instant, { zone });
}

/** Calendar days from one local date to another (YYYY-MM-DD), both counted. */
export function daysBetweenInclusive(from: string, to: string): number {
  return Math.round((wallClockMs(to, 0) - wallClockMs(from, 0)) / DAY_MS) + 1;
}

/** The local date after `date` (YYYY-MM-DD). */
export function nextDate(date: string): string {
  return dateTextOf(wallClockMs(date, 24 * 60));
}

/** Every date from `from` to `to` (YYYY-MM-DD), both included. */
export function datesBetween(from: string, to: string): string[] {
  const dates: string[] = [];
  const last = wallClockMs(to, 0);
  for (let day = wallClockMs(from, 0); day <= last; day += DAY_MS) dates.push(dateTextOf(day));
  return dates;
}

