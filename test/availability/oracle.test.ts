import { DateTime } from 'luxon';
import { describe, expect, it, vi } from 'vitest';
import { insertBooking, insertCustomer } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { API } from '../bookings/setup.js';

/**
 * GET /availability against an oracle written from contract §6 and §7 and issue 24 alone: for
 * seeded pseudo-random sites (zone, slot interval, lead time, booking windows, site and agent
 * hours with exceptions, custom hours and durations, buffers, capacity, bookings with their
 * buffers and attendees, a duration override) over date ranges that cross DST changes, the
 * slots the API offers, with the seats they have left, must be exactly those the oracle finds.
 *
 * The oracle walks each local day minute by minute with Luxon and knows nothing of src/.
 * Where the contract is silent it assumes:
 * - a period boundary HH:MM is the first instant of the day whose clocks show HH:MM or later
 *   (in a DST gap: the moment the clocks jump; in an overlap: the first occurrence; 24:00:
 *   the next day's first instant);
 * - "inside A's working periods": inside one run of the day's periods, periods that touch in
 *   instants making one run that a slot may cross: on the clock (09:00-10:10 and 10:10-12:00),
 *   or because the break between them lies inside a DST gap (01:00-02:15 and 02:45-05:00 on a
 *   spring-forward day in Berlin: issue 24, such a break takes no time);
 * - starts step by the interval in elapsed minutes from each period's start and lie inside that
 *   period; on a day whose clocks go back, both occurrences of a repeated time may be offered;
 * - a site exception (a closure, short hours) binds every agent: an agent with hours of its own
 *   works the overlap of its day (its own exception, else its weekday) with the site's exception;
 * - the booking window: no start before now + the service's min_notice_minutes (else the site's
 *   min_lead_minutes), none after now + its max_advance_days (else the site's) × 24 hours;
 * - buffers (the connection's, else the service's; a booking's own, as stored): a slot is taken
 *   when it, widened by its buffers, meets a booking, or it meets a booking widened by its own;
 * - custom_hours narrow the day's periods: each overlap of a working period with a custom one
 *   is a period of its own (its start is an origin of the grid); date exceptions replace the
 *   weekday's periods of the schedule they belong to (an agent's own schedule replaces the
 *   site's, exceptions included) and do not apply to custom_hours, which are weekly only;
 * - a booking of the same service with exactly the same start shares the slot whatever its
 *   length or buffers, taking its attendees' seats; a slot is offered while one seat is left,
 *   and shows `seats_left` (the most any of its agents has) for a service of capacity_max > 1;
 *   bookings of any status but `cancelled` occupy time.
 *
 * ORACLE_SCENARIOS (default 30 per dialect) and ORACLE_SEED (default 1) change the sample.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SCENARIOS = Number(process.env.ORACLE_SCENARIOS ?? 30);
const FIRST_SEED = Number(process.env.ORACLE_SEED ?? 1);

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kolkata', 'UTC'] as const;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
type Weekday = (typeof WEEKDAYS)[number];

interface Period {
  start: string;
  end: string;
}
type Weekly = Partial<Record<Weekday, Period[]>>;
interface Schedule {
  weekly: Weekly;
  exceptions: { date: string; periods: Period[] }[];
}
interface AgentSpec {
  active: boolean;
  /** Connected to the scenario's service (every agent is connected to the other service). */
  connected: boolean;
  /** Indexes into the scenario's locations. */
  locations: number[];
  own: Schedule | null;
  customDuration: number | null;
  customHours: Weekly | null;
  /** The connection's buffers (minutes); null: the service's. */
  bufferBefore: number | null;
  bufferAfter: number | null;
}
interface BookingSpec {
  agent: number;
  /** A booking of another service, which never shares a slot. */
  otherService: boolean;
  /** UTC ISO instant. */
  start: string;
  minutes: number;
  status: 'pending' | 'approved' | 'cancelled' | 'completed' | 'no_show';
  /** As stored with the booking: minutes kept free around it, seats it takes. */
  bufferBefore: number;
  bufferAfter: number;
  attendees: number;
}
interface Scenario {
  seed: number;
  zone: string;
  interval: number;
  lead: number;
  /** The site setting max_advance_days. */
  advance: number;
  /** UTC ISO instant that Date.now() answers while the scenario is asked about. */
  now: string;
  from: string;
  to: string;
  site: Schedule;
  service: { duration: number; capacity: number; bufferBefore: number; bufferAfter: number; minNotice: number | null; maxAdvance: number | null };
  locations: number;
  agents: AgentSpec[];
  bookings: BookingSpec[];
  /** The `duration` query parameter of the queries that send one. */
  override: number;
  /** Asked again after these bookings are added, at a later now (cached days must not go stale). */
  later: { now: string; bookings: BookingSpec[] };
}
interface Query {
  agent: number | 'any';
  location?: number;
  duration?: number;
}
interface Slot {
  start_time: string;
  end_time: string;
  start_datetime: string;
  agent_ids: number[];
  seats_left?: number;
}

// ---------------------------------------------------------------- pseudo-random numbers

function rng(seed: number) {
  let a = seed >>> 0 || 1;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const chance = (p: number): boolean => next() < p;
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  return { next, int, chance, pick };
}
type Rng = ReturnType<typeof rng>;

// ---------------------------------------------------------------- the oracle

const hhmm = (minutes: number): string => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
const weekdayOf = (date: string): Weekday => WEEKDAYS[DateTime.fromISO(date, { zone: 'utc' }).weekday - 1] as Weekday;
const addDays = (date: string, days: number): string => DateTime.fromISO(date, { zone: 'utc' }).plus({ days }).toISODate() as string;

/** Every minute of one local date, in order: its instant and the minute after midnight the clocks show. */
interface LocalDay {
  start: number;
  /** The next date's first instant. */
  end: number;
  clock: number[];
}

const localDays = new Map<string, LocalDay>();

/** Walks the instants around a date minute by minute and keeps those whose local date it is. */
function localDay(date: string, zone: string): LocalDay {
  const cacheKey = `${zone} ${date}`;
  const known = localDays.get(cacheKey);
  if (known) return known;
  const midnightUtc = DateTime.fromISO(date, { zone: 'utc' }).toMillis();
  const instants: number[] = [];
  const clock: number[] = [];
  for (let t = midnightUtc - 15 * HOUR; t < midnightUtc + 39 * HOUR; t += MINUTE) {
    const local = DateTime.fromMillis(t, { zone });
    if (local.toISODate() === date) {
      instants.push(t);
      clock.push(local.hour * 60 + local.minute);
    }
  }
  const start = instants[0] as number;
  // A local date is one run of instants in these zones.
  instants.forEach((t, i) => {
    if (t !== start + i * MINUTE) throw new Error(`${date} in ${zone} is not one run of minutes`);
  });
  const day = { start, end: start + instants.length * MINUTE, clock };
  localDays.set(cacheKey, day);
  return day;
}

/** The first instant of the day whose clocks show `minutes` or later; the day's end when none does. */
function boundary(day: LocalDay, minutes: number): number {
  const index = day.clock.findIndex((shown) => shown >= minutes);
  return index < 0 ? day.end : day.start + index * MINUTE;
}

interface Span {
  start: number;
  end: number;
}

/**
 * An agent's working periods for the service on a date, as instants (contract §6, §7), and the
 * runs of time they make where one period ends at the clock time the next one starts: a slot
 * must lie inside one run, and its start steps from the start of one period, inside it.
 */
function workingPeriods(scenario: Scenario, agent: AgentSpec, date: string): { periods: Span[]; runs: Span[] } {
  const schedule = agent.own ?? scenario.site;
  const weekday = weekdayOf(date);
  const exception = schedule.exceptions.find((e) => e.date === date);
  const inMinutes = (list: readonly Period[]) => list.map((p) => ({ start: minutesOf(p.start), end: minutesOf(p.end) }));
  const overlaps = (periods: readonly Span[], allowed: readonly Span[]) =>
    periods.flatMap((p) => allowed.map((a) => ({ start: Math.max(p.start, a.start), end: Math.min(p.end, a.end) })));
  let periods = inMinutes(exception ? exception.periods : (schedule.weekly[weekday] ?? []));
  const closure = agent.own ? scenario.site.exceptions.find((e) => e.date === date) : undefined;
  if (closure) periods = overlaps(periods, inMinutes(closure.periods));
  if (agent.customHours) periods = overlaps(periods, inMinutes(agent.customHours[weekday] ?? []));
  const day = localDay(date, scenario.zone);
  const instants = periods
    .filter((p) => p.end > p.start)
    .map((p) => ({ start: boundary(day, p.start), end: boundary(day, p.end) }))
    .filter((p) => p.end > p.start)
    .sort((a, b) => a.start - b.start);
  const runs: Span[] = [];
  for (const period of instants) {
    const last = runs[runs.length - 1];
    if (last && period.start <= last.end) last.end = Math.max(last.end, period.end);
    else runs.push({ ...period });
  }
  return { periods: instants, runs };
}

/** Grid starts (elapsed minutes from each period's start, inside it) whose whole span lies in one run. */
function gridStarts(hours: { periods: readonly Span[]; runs: readonly Span[] }, interval: number, duration: number): number[] {
  const starts: number[] = [];
  for (const period of hours.periods) {
    for (let start = period.start; start < period.end; start += interval * MINUTE) {
      const end = start + duration * MINUTE;
      if (hours.runs.some((run) => run.start <= start && end <= run.end)) starts.push(start);
    }
  }
  return starts.sort((a, b) => a - b);
}

/** Whether the clocks of the day show the local time of `instant` for the first time then. */
function firstOccurrence(day: LocalDay, instant: number): boolean {
  const index = (instant - day.start) / MINUTE;
  return day.clock.indexOf(day.clock[index] as number) === index;
}

function effectiveDuration(scenario: Scenario, agent: AgentSpec, query: Query): number {
  return query.duration ?? agent.customDuration ?? scenario.service.duration;
}

function isCandidate(agent: AgentSpec, query: Query): boolean {
  if (!agent.active || !agent.connected) return false;
  return query.location === undefined ? agent.locations.length > 0 : agent.locations.includes(query.location);
}

/** The expected `data` of GET /availability; `ids` are the agents' ids, `serviceId` the scenario's service. */
/** What the sample covered, so that a generator gone dull does not pass unnoticed. */
interface Coverage {
  slots: number;
  dstDaySlots: number;
  repeatedTimesOffered: number;
  sharedSlots: number;
  leadCut: number;
  windowCut: number;
  bufferTaken: number;
  closedForOwnHours: number;
  seatsShown: number;
}

function expectedAvailability(scenario: Scenario, query: Query, ids: readonly number[], serviceId: number, coverage?: Coverage): Json {
  const now = Date.parse(scenario.now);
  const earliest = now + (scenario.service.minNotice ?? scenario.lead) * MINUTE;
  const latest = now + (scenario.service.maxAdvance ?? scenario.advance) * DAY;
  const busy = scenario.bookings
    .filter((b) => b.status !== 'cancelled')
    .map((b) => ({
      agent: b.agent,
      same: !b.otherService,
      start: Date.parse(b.start),
      end: Date.parse(b.start) + b.minutes * MINUTE,
      before: b.bufferBefore * MINUTE,
      after: b.bufferAfter * MINUTE,
      seats: b.attendees,
    }));
  const capacity = scenario.service.capacity;
  const asked = scenario.agents.map((agent, index) => ({ agent, index })).filter(({ index }) => query.agent === 'any' || ids[index] === query.agent);
  const candidates = asked.filter(({ agent }) => isCandidate(agent, query));
  const days = [];
  for (let date = scenario.from; date <= scenario.to; date = addDays(date, 1)) {
    const day = localDay(date, scenario.zone);
    const slots = new Map<string, { start: number; end: number; agents: number[]; seatsLeft: number }>();
    for (const { agent, index } of candidates) {
      const duration = effectiveDuration(scenario, agent, query);
      const before = (agent.bufferBefore ?? scenario.service.bufferBefore) * MINUTE;
      const after = (agent.bufferAfter ?? scenario.service.bufferAfter) * MINUTE;
      if (coverage && agent.own && scenario.site.exceptions.some((e) => e.date === date)) {
        // What the agent's own hours alone would offer, against what the site's exception leaves.
        const ownAlone = { ...scenario, site: { ...scenario.site, exceptions: [] } };
        const count = (s: Scenario) => gridStarts(workingPeriods(s, agent, date), scenario.interval, duration).length;
        if (count(ownAlone) > count(scenario)) coverage.closedForOwnHours++;
      }
      for (const start of gridStarts(workingPeriods(scenario, agent, date), scenario.interval, duration)) {
        const end = start + duration * MINUTE;
        if (start < earliest) {
          if (coverage && start + DAY > earliest) coverage.leadCut++;
          continue;
        }
        if (start > latest) {
          if (coverage && start - DAY < latest) coverage.windowCut++;
          continue;
        }
        const own = busy.filter((b) => b.agent === index);
        const sharing = own.filter((b) => b.same && b.start === start);
        const meets = (b: (typeof own)[number]) => (start - before < b.end && b.start < end + after) || (start < b.end + b.after && b.start - b.before < end);
        const blocking = own.filter((b) => !(b.same && b.start === start) && meets(b));
        const taken = sharing.reduce((sum, b) => sum + b.seats, 0);
        if (blocking.length > 0 || taken + 1 > capacity) {
          if (coverage && taken + 1 <= capacity && !blocking.some((b) => b.start < end && start < b.end)) coverage.bufferTaken++;
          continue;
        }
        if (coverage) {
          coverage.slots++;
          if (day.end - day.start !== DAY) coverage.dstDaySlots++;
          if (!firstOccurrence(day, start)) coverage.repeatedTimesOffered++;
          if (sharing.length > 0) coverage.sharedSlots++;
          if (capacity > 1) coverage.seatsShown++;
        }
        const key = `${start} ${end}`;
        const slot = slots.get(key) ?? { start, end, agents: [], seatsLeft: 0 };
        slot.agents.push(ids[index] as number);
        slot.seatsLeft = Math.max(slot.seatsLeft, capacity - taken);
        slots.set(key, slot);
      }
    }
    const sorted = [...slots.values()].sort((a, b) => a.start - b.start || a.end - b.end);
    days.push({
      date,
      slots: sorted.map((slot): Slot => {
        const start = DateTime.fromMillis(slot.start, { zone: scenario.zone });
        return {
          start_time: start.toFormat('HH:mm'),
          end_time: DateTime.fromMillis(slot.end, { zone: scenario.zone }).toFormat('HH:mm'),
          start_datetime: start.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ"),
          agent_ids: slot.agents.sort((a, b) => a - b),
          ...(capacity > 1 ? { seats_left: slot.seatsLeft } : {}),
        };
      }),
    });
  }
  const one = query.agent === 'any' ? undefined : candidates[0];
  return {
    timezone: scenario.zone,
    service_id: serviceId,
    duration: query.duration ?? (one ? effectiveDuration(scenario, one.agent, query) : scenario.service.duration),
    days,
  };
}

// ---------------------------------------------------------------- scenarios

/** Times where DST changes happen in the zones above, midnight and the day's end, and some office hours. */
const EDGE_TIMES = [0, 0, 30, 60, 90, 100, 120, 130, 135, 150, 165, 180, 210, 240, 540, 720, 1020, 1380, 1410, 1425, 1440, 1440];

function randomTime(r: Rng): number {
  if (r.chance(0.5)) return r.pick(EDGE_TIMES);
  if (r.chance(0.6)) return r.int(0, 288) * 5;
  return r.int(0, 1440);
}

/** Up to three periods of one day, sorted, not overlapping, some touching. */
function randomPeriods(r: Rng): Period[] {
  if (r.chance(0.1)) return [{ start: '00:00', end: '24:00' }];
  const count = r.pick([0, 1, 1, 2, 2, 3]);
  const points = [...new Set(Array.from({ length: count * 2 }, () => randomTime(r)))].sort((a, b) => a - b);
  const periods: Period[] = [];
  let i = 0;
  while (i + 1 < points.length && periods.length < count) {
    const start = points[i] as number;
    const end = points[i + 1] as number;
    if (start < 1440) periods.push({ start: hhmm(start), end: end === 1440 ? '24:00' : hhmm(end) });
    // Touching periods share the point: the next one starts where this one ends.
    i += r.chance(0.35) ? 1 : 2;
  }
  return periods;
}

function randomWeekly(r: Rng, offered: number): Weekly {
  const weekly: Weekly = {};
  for (const day of WEEKDAYS) if (r.chance(offered)) weekly[day] = randomPeriods(r);
  return weekly;
}

function randomSchedule(r: Rng, dates: readonly string[]): Schedule {
  const exceptions = dates.filter(() => r.chance(0.2)).map((date) => ({ date, periods: r.chance(0.4) ? [] : randomPeriods(r) }));
  return { weekly: randomWeekly(r, 0.9), exceptions };
}

/** Local dates (2031) whose noon offset differs from the next date's: a DST change lies between. */
const transitions = new Map<string, string[]>();
function dstDates(zone: string): string[] {
  let found = transitions.get(zone);
  if (!found) {
    found = [];
    for (let date = '2031-01-01'; date < '2032-01-01'; date = addDays(date, 1)) {
      const next = addDays(date, 1);
      if (DateTime.fromISO(`${date}T12:00`, { zone }).offset !== DateTime.fromISO(`${next}T12:00`, { zone }).offset) found.push(date);
    }
    transitions.set(zone, found);
  }
  return found;
}

function scenarioOf(seed: number): Scenario {
  const r = rng(seed * 7919 + 17);
  const zone = r.pick(ZONES);
  const changes = dstDates(zone);
  const around = changes.length > 0 && r.chance(0.85) ? r.pick(changes) : addDays('2031-01-01', r.int(0, 360));
  const from = addDays(around, -r.int(0, 3));
  // Now and then a longer range: up to three weeks, asked in one request.
  const to = addDays(around, r.chance(0.1) ? r.int(4, 20) : r.int(1, 3));
  const dates: string[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) dates.push(date);

  const locations = 2;
  const service = {
    duration: r.chance(0.7) ? r.pick([15, 20, 30, 45, 60, 90, 120]) : r.int(5, 240),
    capacity: r.pick([1, 1, 1, 2, 3, 4]),
    bufferBefore: randomBuffer(r),
    bufferAfter: randomBuffer(r),
    minNotice: r.chance(0.7) ? null : r.int(0, 3000),
    maxAdvance: r.chance(0.7) ? null : r.int(1, 6),
  };
  const agents: AgentSpec[] = Array.from({ length: r.int(1, 3) }, () => ({
    active: r.chance(0.85),
    connected: r.chance(0.9),
    locations: r.chance(0.5) ? [0, 1] : [r.int(0, 1)],
    own: r.chance(0.45) ? randomSchedule(r, dates) : null,
    customDuration: r.chance(0.3) ? r.int(5, 180) : null,
    customHours: r.chance(0.3) ? randomWeekly(r, 0.7) : null,
    bufferBefore: r.chance(0.3) ? randomBuffer(r) : null,
    bufferAfter: r.chance(0.3) ? randomBuffer(r) : null,
  }));
  const midnight = Date.parse(`${from}T00:00:00Z`);
  const scenario: Scenario = {
    seed,
    zone,
    interval: r.int(5, 60),
    lead: r.chance(0.5) ? 0 : r.int(1, 4000),
    advance: r.chance(0.6) ? 365 : r.int(1, 6),
    now: new Date(midnight + r.int(-3 * 1440, 2 * 1440) * MINUTE + (r.chance(0.3) ? 30_000 : 0)).toISOString(),
    from,
    to,
    site: randomSchedule(r, dates),
    service,
    locations,
    agents,
    bookings: [],
    override: r.int(5, 240),
    later: { now: '', bookings: [] },
  };

  scenario.bookings = randomBookings(r, scenario, dates, 7);
  scenario.later = {
    now: new Date(Date.parse(scenario.now) + r.int(0, 2 * 1440) * MINUTE).toISOString(),
    bookings: randomBookings(r, scenario, dates, 2),
  };
  return scenario;
}

const STATUSES = ['approved', 'approved', 'pending', 'completed', 'no_show', 'cancelled', 'cancelled'] as const;

/** Minutes kept free: mostly none, up to the longest a service may keep (240). */
function randomBuffer(r: Rng): number {
  return r.chance(0.5) ? 0 : r.pick([5, 10, 15, 30, 45, 60, 240]);
}

/** Up to `most` bookings per agent: some on the grid (so that capacity and exact starts matter), some anywhere near the range. */
function randomBookings(r: Rng, scenario: Scenario, dates: readonly string[], most: number): BookingSpec[] {
  const bookings: BookingSpec[] = [];
  const rangeStart = localDay(scenario.from, scenario.zone).start;
  const rangeEnd = localDay(scenario.to, scenario.zone).end;
  scenario.agents.forEach((agent, index) => {
    const duration = agent.customDuration ?? scenario.service.duration;
    const grid = dates.flatMap((date) => gridStarts(workingPeriods(scenario, agent, date), scenario.interval, duration));
    const count = r.int(0, most);
    for (let n = 0; n < count; n++) {
      const previous = bookings[bookings.length - 1] ?? scenario.bookings.findLast((b) => b.agent === index);
      if (previous?.agent === index && r.chance(0.3)) {
        // Another booking of exactly the same start: a group slot filling up.
        bookings.push({ ...previous, minutes: r.chance(0.7) ? previous.minutes : r.int(5, 180), status: r.pick(STATUSES), attendees: r.int(1, 2) });
        continue;
      }
      const onGrid = grid.length > 0 && r.chance(0.6);
      const start = onGrid ? r.pick(grid) : rangeStart - 6 * HOUR + r.int(0, (rangeEnd - rangeStart + 6 * HOUR) / MINUTE) * MINUTE;
      bookings.push({
        agent: index,
        otherService: r.chance(0.2),
        start: new Date(start).toISOString(),
        minutes: onGrid && r.chance(0.7) ? duration : r.int(5, 240),
        status: r.pick(STATUSES),
        bufferBefore: randomBuffer(r),
        bufferAfter: randomBuffer(r),
        attendees: r.chance(0.7) ? 1 : r.int(1, 3),
      });
    }
  });
  return bookings;
}

// ---------------------------------------------------------------- comparison

/** The slots only one side has, per date, for a readable failure. */
function differences(actual: Json, expected: Json): Json[] {
  const text = (slot: Slot): string =>
    `${slot.start_datetime} → ${slot.end_time} [${slot.agent_ids.join(',')}]${slot.seats_left === undefined ? '' : ` seats ${slot.seats_left}`}`;
  const out: Json[] = [];
  (expected.days as { date: string; slots: Slot[] }[]).forEach((day, i) => {
    const got = new Set(((actual.days?.[i]?.slots ?? []) as Slot[]).map(text));
    const want = new Set(day.slots.map(text));
    const onlyEngine = [...got].filter((s) => !want.has(s));
    const onlyOracle = [...want].filter((s) => !got.has(s));
    if (onlyEngine.length > 0 || onlyOracle.length > 0) out.push({ date: day.date, onlyEngine, onlyOracle });
  });
  return out;
}

// ---------------------------------------------------------------- the test

describe('the oracle itself', () => {
  it('knows the DST days of 2031 and their lengths', () => {
    const length = (date: string, zone: string): number => {
      const day = localDay(date, zone);
      return (day.end - day.start) / MINUTE;
    };
    expect(length('2031-03-30', 'Europe/Berlin')).toBe(23 * 60);
    expect(length('2031-10-26', 'Europe/Berlin')).toBe(25 * 60);
    expect(length('2031-10-05', 'Australia/Lord_Howe')).toBe(23.5 * 60);
    expect(length('2031-04-06', 'Australia/Lord_Howe')).toBe(24.5 * 60);
    expect(length('2031-04-05', 'America/Santiago')).toBe(25 * 60);
    expect(localDay('2031-09-07', 'America/Santiago').clock[0]).toBe(60);
    expect(dstDates('Asia/Kolkata')).toEqual([]);
    expect(dstDates('America/New_York')).toEqual(['2031-03-08', '2031-11-01']);
  });

  it('builds periods, grids and first occurrences as the contract describes', () => {
    const zone = 'Europe/Berlin';
    const spring = localDay('2031-03-30', zone);
    // 02:30 does not exist: the period starts when the clocks jump to 03:00.
    expect(boundary(spring, minutesOf('02:30'))).toBe(Date.parse('2031-03-30T01:00:00Z'));
    expect(boundary(spring, 1440)).toBe(Date.parse('2031-03-30T22:00:00Z'));
    const autumn = localDay('2031-10-26', zone);
    expect(boundary(autumn, minutesOf('02:30'))).toBe(Date.parse('2031-10-26T00:30:00Z'));
    expect(firstOccurrence(autumn, Date.parse('2031-10-26T00:30:00Z'))).toBe(true);
    expect(firstOccurrence(autumn, Date.parse('2031-10-26T01:30:00Z'))).toBe(false);
    const periods = [
      { start: Date.parse('2031-01-06T09:00:00Z'), end: Date.parse('2031-01-06T10:10:00Z') },
      { start: Date.parse('2031-01-06T10:10:00Z'), end: Date.parse('2031-01-06T12:00:00Z') },
    ];
    const hours = { periods, runs: [{ start: Date.parse('2031-01-06T09:00:00Z'), end: Date.parse('2031-01-06T12:00:00Z') }] };
    expect(gridStarts(hours, 30, 30).map((t) => new Date(t).toISOString().slice(11, 16))).toEqual(['09:00', '09:30', '10:00', '10:10', '10:40', '11:10']);
    // A slot may run across the point where two periods touch.
    expect(gridStarts(hours, 30, 90).map((t) => new Date(t).toISOString().slice(11, 16))).toEqual(['09:00', '09:30', '10:00', '10:10']);
  });

  it('joins periods whose break lies inside a DST gap, and lets a site exception close an agent on its own hours', () => {
    const weekly = { sunday: [{ start: '00:00', end: '02:15' }, { start: '02:45', end: '06:00' }] };
    const agent: AgentSpec = { active: true, connected: true, locations: [0], own: null, customDuration: null, customHours: null, bufferBefore: null, bufferAfter: null };
    const scenario = { zone: 'Europe/Berlin', site: { weekly, exceptions: [{ date: '2031-03-23', periods: [] }] } } as unknown as Scenario;
    const spring = workingPeriods(scenario, agent, '2031-03-30');
    expect(spring.runs).toEqual([{ start: Date.parse('2031-03-29T23:00:00Z'), end: Date.parse('2031-03-30T04:00:00Z') }]);
    // 01:30 for 60 minutes runs across the vanished break.
    expect(gridStarts(spring, 30, 60)).toContain(Date.parse('2031-03-30T00:30:00Z'));
    expect(workingPeriods(scenario, { ...agent, own: { weekly, exceptions: [] } }, '2031-03-23').runs).toEqual([]);
  });
});

describe.each(DIALECTS)('GET /availability against the oracle (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const coverage: Coverage = {
    slots: 0,
    dstDaySlots: 0,
    repeatedTimesOffered: 0,
    sharedSlots: 0,
    leadCut: 0,
    windowCut: 0,
    bufferTaken: 0,
    closedForOwnHours: 0,
    seatsShown: 0,
  };
  let key: string | undefined;
  let customerId = 0;

  async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object): Promise<Json> {
    key ??= await t.key({ perMinute: 100_000, perHour: 100_000 });
    const res = await t.app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload }) });
    if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
    return res.json();
  }

  interface Built {
    serviceId: number;
    otherId: number;
    agentIds: number[];
    locationIds: number[];
  }

  /** Builds the scenario's site through the API; bookings come later, as rows. */
  async function build(scenario: Scenario): Promise<Built> {
    await call('PUT', '/settings', {
      timezone: scenario.zone,
      slot_interval_minutes: scenario.interval,
      min_lead_minutes: scenario.lead,
      max_advance_days: scenario.advance,
    });
    await call('PUT', '/schedule', scenario.site);
    const service = await call('POST', '/services', {
      name: `Oracle ${scenario.seed}`,
      duration: scenario.service.duration,
      capacity_max: scenario.service.capacity,
      buffer_before: scenario.service.bufferBefore,
      buffer_after: scenario.service.bufferAfter,
      min_notice_minutes: scenario.service.minNotice,
      max_advance_days: scenario.service.maxAdvance,
    });
    const other = await call('POST', '/services', { name: `Oracle other ${scenario.seed}`, duration: 30 });
    const serviceId = service.data.id as number;
    const otherId = other.data.id as number;
    const locationIds: number[] = [];
    for (let i = 0; i < scenario.locations; i++) locationIds.push((await call('POST', '/locations', { name: `Oracle ${scenario.seed}.${i}` })).data.id as number);
    const agentIds: number[] = [];
    for (const [i, agent] of scenario.agents.entries()) {
      const created = await call('POST', '/agents', {
        first_name: 'Oracle',
        last_name: `Agent${i}`,
        email: `oracle-${dialect}-${scenario.seed}-${i}@example.test`,
        status: agent.active ? 'active' : 'disabled',
        location_ids: agent.locations.map((l) => locationIds[l]),
        services: [
          { service_id: otherId },
          ...(agent.connected
            ? [
                {
                  service_id: serviceId,
                  custom_duration: agent.customDuration,
                  custom_hours: agent.customHours,
                  buffer_before: agent.bufferBefore,
                  buffer_after: agent.bufferAfter,
                },
              ]
            : []),
        ],
      });
      const agentId = created.data.id as number;
      agentIds.push(agentId);
      if (agent.own) await call('PUT', `/agents/${agentId}/schedule`, agent.own);
    }
    return { serviceId, otherId, agentIds, locationIds };
  }

  async function book(scenario: Scenario, built: Built, bookings: readonly BookingSpec[]): Promise<void> {
    if (customerId === 0) customerId = await insertCustomer(t.db);
    for (const booking of bookings) {
      const start = DateTime.fromISO(booking.start, { zone: scenario.zone });
      const end = start.plus({ minutes: booking.minutes });
      await insertBooking(
        t.db,
        {
          serviceId: booking.otherService ? built.otherId : built.serviceId,
          agentId: built.agentIds[booking.agent] as number,
          locationId: built.locationIds[0] as number,
          customerId,
        },
        {
          status: booking.status,
          start_at: start.toUTC().toISO() as string,
          end_at: end.toUTC().toISO() as string,
          start_date: start.toISODate() as string,
          start_time: start.toFormat('HH:mm'),
          end_date: end.toISODate() as string,
          end_time: end.toFormat('HH:mm'),
          timezone: scenario.zone,
          duration: booking.minutes,
          buffer_before: booking.bufferBefore,
          buffer_after: booking.bufferAfter,
          attendees: booking.attendees,
        },
      );
    }
  }

  /** Asks every query at the scenario's now; answers the queries whose slots differ from the oracle's. */
  async function compare(scenario: Scenario, built: Built, queries: readonly Query[]): Promise<Json[]> {
    const mismatches: Json[] = [];
    const now = vi.spyOn(Date, 'now').mockReturnValue(Date.parse(scenario.now));
    try {
      for (const query of queries) {
        const params = new URLSearchParams({ service_id: String(built.serviceId), date_from: scenario.from, date_to: scenario.to, agent_id: String(query.agent) });
        if (query.location !== undefined) params.set('location_id', String(built.locationIds[query.location]));
        if (query.duration !== undefined) params.set('duration', String(query.duration));
        const body = await call('GET', `/availability?${params.toString()}`);
        const expected = expectedAvailability(scenario, query, built.agentIds, built.serviceId, coverage);
        const diff = differences(body.data, expected);
        if (diff.length > 0 || body.data.duration !== expected.duration) {
          const agentIndex = query.agent === 'any' ? 'any' : built.agentIds.indexOf(query.agent);
          mismatches.push({ now: scenario.now, query: { ...query, agentIndex }, diff, duration: { engine: body.data.duration, oracle: expected.duration } });
        } else {
          // Same slots: the rest of the body (zone, service, day order) must match too.
          expect(body.data).toEqual(expected);
        }
      }
    } finally {
      now.mockRestore();
    }
    return mismatches;
  }

  const seeds = Array.from({ length: SCENARIOS }, (_, i) => FIRST_SEED + i);

  it.each(seeds)('scenario %i: every query answers the slots of the oracle', async (seed) => {
    const scenario = scenarioOf(seed);
    const built = await build(scenario);
    await book(scenario, built, scenario.bookings);
    const queries: Query[] = [
      ...built.agentIds.map((id, i): Query => (i % 2 === 1 ? { agent: id, duration: scenario.override } : { agent: id })),
      { agent: 'any' },
      { agent: 'any', location: 1 },
      { agent: 'any', duration: scenario.override },
    ];
    const mismatches = await compare(scenario, built, queries);
    // More bookings and a later now: nothing the instance kept of the first answers may show.
    await book(scenario, built, scenario.later.bookings);
    const later = { ...scenario, now: scenario.later.now, bookings: [...scenario.bookings, ...scenario.later.bookings] };
    mismatches.push(...(await compare(later, built, queries)));
    expect(mismatches, JSON.stringify({ scenario, mismatches }, null, 1)).toEqual([]);
  });

  it.runIf(SCENARIOS >= 30)('compared a sample that reaches DST days, repeated clock times, group slots, the window, buffers and closures', () => {
    expect(coverage.slots).toBeGreaterThan(2000);
    expect(coverage.dstDaySlots).toBeGreaterThan(200);
    expect(coverage.repeatedTimesOffered).toBeGreaterThan(0);
    expect(coverage.sharedSlots).toBeGreaterThan(0);
    expect(coverage.leadCut).toBeGreaterThan(0);
    expect(coverage.windowCut).toBeGreaterThan(0);
    expect(coverage.bufferTaken).toBeGreaterThan(0);
    expect(coverage.closedForOwnHours).toBeGreaterThan(0);
    expect(coverage.seatsShown).toBeGreaterThan(0);
  });
});
