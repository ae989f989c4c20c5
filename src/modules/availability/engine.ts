import { DateTime, IANAZone } from 'luxon';
import { offsetText, wallClockAt, zoneOffset } from '../../lib/time.js';
import { weekdayName, type Period, type Schedule, type Weekly } from '../schedules/model.js';

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

/** A booking that occupies its agent's time (anything not cancelled). */
export interface BusyBooking extends Span {
  id: number;
  serviceId: number;
}

/** "HH:MM" (00:00 … 24:00) → minutes after midnight. */
export function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':');
  return Number(hours) * 60 + Number(minutes);
}

function wallClockMs(date: string, minutes: number): number {
  const [year, month, day] = date.split('-').map(Number);
  // setUTCFullYear, unlike Date.UTC, does not read years 0 to 99 as 1900 to 1999.
  return new Date(0).setUTCFullYear(year ?? 0, (month ?? 1) - 1, day ?? 1) + minutes * MINUTE_MS;
}

/** An instant's local wall-clock time in the zone: `HH:MM`, and ISO 8601 with its offset (`+01:00`). */
export function localClock(instant: number, zoneName: string): { time: string; iso: string } {
  const wall = wallClockAt(instant, zoneName);
  if (wall) return { time: wall.local.slice(11, 16), iso: `${wall.local}${offsetText(wall.offset)}` };
  const dateTime = inZone(instant, zoneName);
  return { time: dateTime.toFormat('HH:mm'), iso: dateTime.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ") };
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
const boundaryCache = new Map<string, number>();
const BOUNDARY_CACHE_LIMIT = 100_000;

/**
 * Like localInstant, but a time inside a DST gap means the moment the clocks jump: the working
 * day then keeps every instant it has, neither gaining nor losing time around the gap.
 */
function boundaryInstant(date: string, minutes: number, zone: IANAZone): number {
  const key = `${zone.name}|${date}|${minutes}`;
  let instant = boundaryCache.get(key);
  if (instant === undefined) {
    instant = computeBoundaryInstant(date, minutes, zone);
    if (boundaryCache.size >= BOUNDARY_CACHE_LIMIT) boundaryCache.clear();
    boundaryCache.set(key, instant);
  }
  return instant;
}

function computeBoundaryInstant(date: string, minutes: number, zone: IANAZone): number {
  const wall = wallClockMs(date, minutes);
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

/** Sorted, with overlapping or touching periods joined (a booking may run across the seam). */
function mergePeriods(periods: readonly { start: number; end: number }[]): { start: number; end: number }[] {
  const sorted = periods.filter((p) => p.end > p.start).sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const period of sorted) {
    const last = merged[merged.length - 1];
    if (last && period.start <= last.end) last.end = Math.max(last.end, period.end);
    else merged.push({ ...period });
  }
  return merged;
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
 */
export function workingMinutes(schedule: Schedule, date: string, customHours: Weekly | null): { start: number; end: number }[] {
  const weekday = weekdayOf(date);
  const exception = schedule.exceptions.find((e) => e.date === date);
  const worked = mergePeriods(toMinutes(exception ? exception.periods : (schedule.weekly[weekday] ?? [])));
  if (!customHours) return worked;
  const allowed = mergePeriods(toMinutes(customHours[weekday] ?? []));
  const narrowed: { start: number; end: number }[] = [];
  for (const w of worked) {
    for (const a of allowed) {
      const start = Math.max(w.start, a.start);
      const end = Math.min(w.end, a.end);
      if (end > start) narrowed.push({ start, end });
    }
  }
  return narrowed;
}

/** The working spans of one local date as instants in `zone`. */
export function workingSpans(schedule: Schedule, date: string, customHours: Weekly | null, zone: string): Span[] {
  const ianaZone = zoneOf(zone);
  return workingMinutes(schedule, date, customHours)
    .map((p) => ({ start: boundaryInstant(date, p.start, ianaZone), end: boundaryInstant(date, p.end, ianaZone) }))
    .filter((s) => s.end > s.start);
}

/** The instants a local date covers in `zone`: [its first instant, the next date's first instant). */
export function daySpan(date: string, zone: string): Span {
  const ianaZone = zoneOf(zone);
  return { start: boundaryInstant(date, 0, ianaZone), end: boundaryInstant(date, 24 * 60, ianaZone) };
}

export function overlaps(a: Span, b: Span): boolean {
  return a.start < b.end && b.start < a.end;
}

export function isWithin(span: Span, spans: readonly Span[]): boolean {
  return spans.some((s) => s.start <= span.start && span.end <= s.end);
}

/**
 * The booking that keeps `span` from being booked for `serviceId`, or undefined when it is free.
 * Up to `capacity` bookings of the same service may share exactly the same start; any other
 * overlap conflicts.
 */
export function conflictOf<B extends BusyBooking>(span: Span, serviceId: number, capacity: number, bookings: readonly B[]): B | undefined {
  // One pass, no allocation: this runs for every candidate start of every agent and day.
  let first: B | undefined;
  let sharing = 0;
  for (const booking of bookings) {
    if (booking.start >= span.end || span.start >= booking.end) continue;
    if (booking.serviceId !== serviceId || booking.start !== span.start) return booking;
    first ??= booking;
    sharing++;
  }
  return sharing >= capacity ? first : undefined;
}

export interface SlotQuery {
  /** The agent's working spans of the day (workingSpans). */
  spans: readonly Span[];
  durationMinutes: number;
  intervalMinutes: number;
  /** No slot starts before this instant (now plus the lead time). */
  earliest: number;
  serviceId: number;
  capacity: number;
  /** The agent's bookings that are not cancelled; only those near the spans matter. */
  bookings: readonly BusyBooking[];
}

/**
 * Free slot starts: stepping by the interval (elapsed minutes) from the start of each working
 * span, every start whose whole duration fits in the span, is not before `earliest`, and does
 * not conflict with a booking.
 */
export function freeSlots(query: SlotQuery): number[] {
  const duration = query.durationMinutes * MINUTE_MS;
  const step = query.intervalMinutes * MINUTE_MS;
  const starts: number[] = [];
  for (const span of query.spans) {
    const nearby = query.bookings.filter((b) => overlaps(b, span));
    for (let start = span.start; start + duration <= span.end; start += step) {
      if (start < query.earliest) continue;
      if (!conflictOf({ start, end: start + duration }, query.serviceId, query.capacity, nearby)) starts.push(start);
    }
  }
  return starts;
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
  return new Date(wallClockMs(date, 24 * 60)).toISOString().slice(0, 10);
}

/** True for a YYYY-MM-DD text that names a real calendar date (not 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  const date = DateTime.fromISO(text, { zone: 'UTC' });
  return date.isValid && date.toISODate() === text;
}
