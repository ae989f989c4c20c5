import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conflictOf, datesBetween, daySpan, freeSlots, inZone, isWithin, joinSlots, localInstant, nextDate, slotAgent, weekdayOf, workingMinutes, workingSpans, type BusyBooking, type SlotQuery, type Span } from '../../src/modules/availability/engine.js';
import { DEFAULT_SITE_SCHEDULE, type Schedule, type Weekly } from '../../src/modules/schedules/model.js';
import { isCalendarDate } from '../../src/lib/time.js';

const H = 3_600_000;
const M = 60_000;
const utc = (iso: string): number => Date.parse(iso);
const local = (instant: number, zone: string): string => inZone(instant, zone).toFormat("yyyy-MM-dd'T'HH:mmZZ");

function weekly(periods: { start: string; end: string }[]): Weekly {
  return { monday: periods, tuesday: periods, wednesday: periods, thursday: periods, friday: periods, saturday: periods, sunday: periods };
}
/** The free starts of one agent with these bookings. */
const freeStarts = (query: SlotQuery & { bookings: readonly BusyBooking[] }): number[] =>
  freeSlots(query, [slotAgent(1, query.bookings)]).map((slot) => slot.start);
const allWeek = (start: string, end: string): Schedule => ({ weekly: weekly([{ start, end }]), exceptions: [] });

describe('localInstant', () => {
  it('converts a local time with the zone rules of that date', () => {
    expect(localInstant('2026-01-15', '09:00', 'Europe/Berlin')).toBe(utc('2026-01-15T08:00:00Z'));
    expect(localInstant('2026-07-15', '09:00', 'Europe/Berlin')).toBe(utc('2026-07-15T07:00:00Z'));
  });

  it('reads years below 100 as themselves', () => {
    expect(localInstant('0050-06-01', '12:00', 'UTC')).toBe(Date.parse('0050-06-01T12:00:00Z'));
  });

  it('refuses local times inside a DST gap', () => {
    expect(localInstant('2026-03-29', '02:30', 'Europe/Berlin')).toBeUndefined();
    expect(localInstant('2026-03-08', '02:00', 'America/New_York')).toBeUndefined();
    // Lord Howe moves its clocks by half an hour: 02:00 → 02:30.
    expect(localInstant('2026-10-04', '02:15', 'Australia/Lord_Howe')).toBeUndefined();
    expect(localInstant('2026-10-04', '02:30', 'Australia/Lord_Howe')).toBe(utc('2026-10-03T15:30:00Z'));
  });

  it('takes the first occurrence of an ambiguous local time', () => {
    expect(localInstant('2026-10-25', '02:30', 'Europe/Berlin')).toBe(utc('2026-10-25T00:30:00Z'));
    expect(localInstant('2026-11-01', '01:30', 'America/New_York')).toBe(utc('2026-11-01T05:30:00Z'));
    // Lord Howe falls back from +11:00 to +10:30 at 02:00: 01:30–02:00 happens twice.
    expect(localInstant('2026-04-05', '01:45', 'Australia/Lord_Howe')).toBe(utc('2026-04-04T14:45:00Z'));
  });
});

describe('working periods', () => {
  it('uses the weekday hours, or the date exception instead', () => {
    const schedule: Schedule = {
      weekly: { ...DEFAULT_SITE_SCHEDULE.weekly, monday: [{ start: '13:00', end: '17:00' }, { start: '09:00', end: '12:00' }] },
      exceptions: [
        { date: '2026-12-08', periods: [{ start: '10:00', end: '11:00' }] },
        { date: '2026-12-25', periods: [] },
      ],
    };
    expect(workingMinutes(schedule, '2026-12-07', null)).toEqual([
      { start: 540, end: 720 },
      { start: 780, end: 1020 },
    ]);
    expect(workingMinutes(schedule, '2026-12-08', null)).toEqual([{ start: 600, end: 660 }]);
    expect(workingMinutes(schedule, '2026-12-25', null)).toEqual([]);
    expect(workingMinutes(schedule, '2026-12-12', null)).toEqual([]);
  });

  it('joins touching periods so that a booking may run across the seam, keeping the later period’s start', () => {
    const schedule = { weekly: weekly([{ start: '09:00', end: '12:00' }, { start: '12:00', end: '14:00' }]), exceptions: [] };
    expect(workingMinutes(schedule, '2026-12-07', null)).toEqual([{ start: 540, end: 840, seams: [720] }]);
  });

  it('steps slot starts anew from the start of each joined period (contract §6)', () => {
    const schedule = { weekly: weekly([{ start: '09:00', end: '10:10' }, { start: '10:10', end: '12:00' }]), exceptions: [] };
    const spans = workingSpans(schedule, '2026-12-07', null, 'Europe/Berlin');
    expect(spans).toEqual([{ start: utc('2026-12-07T08:00:00Z'), end: utc('2026-12-07T11:00:00Z'), seams: [utc('2026-12-07T09:10:00Z')] }]);
    const starts = freeStarts({ spans, durationMinutes: 30, intervalMinutes: 30, earliest: 0, serviceId: 1, capacity: 1, bookings: [] });
    // 10:00 runs across the seam; the second period's grid starts at 10:10.
    expect(starts.map((s) => local(s, 'Europe/Berlin').slice(11, 16))).toEqual(['09:00', '09:30', '10:00', '10:10', '10:40', '11:10']);
    // Narrowed by custom hours, the seam stays where it falls inside them.
    const custom: Weekly = { ...weekly([]), monday: [{ start: '09:30', end: '11:00' }] };
    expect(workingMinutes(schedule, '2026-12-07', custom)).toEqual([{ start: 570, end: 660, seams: [610] }]);
  });

  it('narrows to the custom hours of a service, and a weekday they leave out is not worked', () => {
    const custom: Weekly = { ...weekly([]), monday: [{ start: '08:00', end: '10:30' }, { start: '16:00', end: '20:00' }] };
    expect(workingMinutes(DEFAULT_SITE_SCHEDULE, '2026-12-07', custom)).toEqual([
      { start: 540, end: 630 },
      { start: 960, end: 1020 },
    ]);
    expect(workingMinutes(DEFAULT_SITE_SCHEDULE, '2026-12-08', custom)).toEqual([]);
  });
});

describe('DST days', () => {
  it('Europe/Berlin spring forward: a 00:00–06:00 day has five hours', () => {
    const spans = workingSpans(allWeek('00:00', '06:00'), '2026-03-29', null, 'Europe/Berlin');
    expect(spans).toEqual([{ start: utc('2026-03-28T23:00:00Z'), end: utc('2026-03-29T04:00:00Z') }]);
    const starts = freeStarts({ spans, durationMinutes: 60, intervalMinutes: 60, earliest: 0, serviceId: 1, capacity: 1, bookings: [] });
    expect(starts.map((s) => local(s, 'Europe/Berlin'))).toEqual([
      '2026-03-29T00:00+01:00',
      '2026-03-29T01:00+01:00',
      '2026-03-29T03:00+02:00',
      '2026-03-29T04:00+02:00',
      '2026-03-29T05:00+02:00',
    ]);
  });

  it('Europe/Berlin fall back: a 00:00–06:00 day has seven hours, 02:00 twice', () => {
    const spans = workingSpans(allWeek('00:00', '06:00'), '2026-10-25', null, 'Europe/Berlin');
    expect(spans[0]!.end - spans[0]!.start).toBe(7 * H);
    const starts = freeStarts({ spans, durationMinutes: 60, intervalMinutes: 60, earliest: 0, serviceId: 1, capacity: 1, bookings: [] });
    expect(starts.map((s) => local(s, 'Europe/Berlin'))).toEqual([
      '2026-10-25T00:00+02:00',
      '2026-10-25T01:00+02:00',
      '2026-10-25T02:00+02:00',
      '2026-10-25T02:00+01:00',
      '2026-10-25T03:00+01:00',
      '2026-10-25T04:00+01:00',
      '2026-10-25T05:00+01:00',
    ]);
  });

  it('a working period that starts inside the gap starts when the clocks jump', () => {
    const spans = workingSpans(allWeek('02:30', '05:00'), '2026-03-29', null, 'Europe/Berlin');
    expect(spans).toEqual([{ start: utc('2026-03-29T01:00:00Z'), end: utc('2026-03-29T03:00:00Z') }]);
  });

  it('America/New_York: the spring day is 23 hours, the autumn day 25', () => {
    const spring = daySpan('2026-03-08', 'America/New_York');
    const autumn = daySpan('2026-11-01', 'America/New_York');
    expect(spring.end - spring.start).toBe(23 * H);
    expect(autumn.end - autumn.start).toBe(25 * H);
    const spans = workingSpans(allWeek('00:00', '04:00'), '2026-03-08', null, 'America/New_York');
    const starts = freeStarts({ spans, durationMinutes: 30, intervalMinutes: 30, earliest: 0, serviceId: 1, capacity: 1, bookings: [] });
    expect(starts.map((s) => inZone(s, 'America/New_York').toFormat('HH:mm'))).toEqual([
      '00:00',
      '00:30',
      '01:00',
      '01:30',
      '03:00',
      '03:30',
    ]);
  });

  it('Australia/Lord_Howe: half-hour shifts on both DST days', () => {
    const spring = daySpan('2026-10-04', 'Australia/Lord_Howe');
    const autumn = daySpan('2026-04-05', 'Australia/Lord_Howe');
    expect(spring.end - spring.start).toBe(23.5 * H);
    expect(autumn.end - autumn.start).toBe(24.5 * H);

    const springStarts = freeStarts({
      spans: workingSpans(allWeek('01:00', '04:00'), '2026-10-04', null, 'Australia/Lord_Howe'),
      durationMinutes: 30,
      intervalMinutes: 30,
      earliest: 0,
      serviceId: 1,
      capacity: 1,
      bookings: [],
    });
    expect(springStarts.map((s) => local(s, 'Australia/Lord_Howe'))).toEqual([
      '2026-10-04T01:00+10:30',
      '2026-10-04T01:30+10:30',
      '2026-10-04T02:30+11:00',
      '2026-10-04T03:00+11:00',
      '2026-10-04T03:30+11:00',
    ]);

    const autumnStarts = freeStarts({
      spans: workingSpans(allWeek('01:00', '03:00'), '2026-04-05', null, 'Australia/Lord_Howe'),
      durationMinutes: 30,
      intervalMinutes: 30,
      earliest: 0,
      serviceId: 1,
      capacity: 1,
      bookings: [],
    });
    expect(autumnStarts.map((s) => local(s, 'Australia/Lord_Howe'))).toEqual([
      '2026-04-05T01:00+11:00',
      '2026-04-05T01:30+11:00',
      '2026-04-05T01:30+10:30',
      '2026-04-05T02:00+10:30',
      '2026-04-05T02:30+10:30',
    ]);
  });

  it('a booking ends its duration in elapsed minutes after its start, across the jump', () => {
    const start = localInstant('2026-03-29', '01:30', 'Europe/Berlin')!;
    expect(local(start + 60 * M, 'Europe/Berlin')).toBe('2026-03-29T03:30+02:00');
  });
});

describe('slots', () => {
  const day = (hour: number, minute = 0): number => Date.UTC(2026, 11, 7, hour, minute);
  const span: Span = { start: day(9), end: day(17) };
  const base = { spans: [span], durationMinutes: 60, intervalMinutes: 30, earliest: 0, serviceId: 1, capacity: 1, bookings: [] };

  it('step by the interval from the start of each period, and the whole duration fits', () => {
    const starts = freeStarts({ ...base, spans: [{ start: day(9), end: day(11) }, { start: day(13, 15), end: day(14, 30) }] });
    expect(starts).toEqual([day(9), day(9, 30), day(10), day(13, 15)]);
  });

  it('leave out starts before the lead time', () => {
    expect(freeStarts({ ...base, earliest: day(15, 10) })).toEqual([day(15, 30), day(16)]);
  });

  it('leave out every start overlapping a booking; touching is fine', () => {
    const booking: BusyBooking = { id: 1, serviceId: 2, start: day(12), end: day(13) };
    const starts = freeStarts({ ...base, bookings: [booking] });
    expect(starts).not.toContain(day(11, 30));
    expect(starts).not.toContain(day(12));
    expect(starts).not.toContain(day(12, 30));
    expect(starts).toContain(day(11));
    expect(starts).toContain(day(13));
  });

  it('let up to capacity bookings of the same service share one start', () => {
    const group = (id: number): BusyBooking => ({ id, serviceId: 1, start: day(10), end: day(11) });
    const capacity = 3;
    expect(freeStarts({ ...base, capacity, bookings: [group(1), group(2)] })).toContain(day(10));
    expect(freeStarts({ ...base, capacity, bookings: [group(1), group(2), group(3)] })).not.toContain(day(10));
    // A group slot is never joined at another start, nor by another service.
    expect(freeStarts({ ...base, capacity, bookings: [group(1)] })).not.toContain(day(10, 30));
    expect(conflictOf({ start: day(10), end: day(11) }, 2, capacity, [group(1)])).toEqual(group(1));
    expect(conflictOf({ start: day(10), end: day(11) }, 1, capacity, [group(1)])).toBeUndefined();
  });

  it('isWithin needs the whole span inside one working span', () => {
    expect(isWithin({ start: day(16), end: day(17) }, [span])).toBe(true);
    expect(isWithin({ start: day(16, 30), end: day(17, 30) }, [span])).toBe(false);
  });
});

describe('scheduling rules', () => {
  const day = (hour: number, minute = 0): number => Date.UTC(2026, 11, 7, hour, minute);
  const base = { spans: [{ start: day(9), end: day(17) }], durationMinutes: 60, intervalMinutes: 30, earliest: 0, serviceId: 1, capacity: 1, bookings: [] };

  it("keep a booking's buffers free: its own, and the new slot's", () => {
    const booking: BusyBooking = { id: 1, serviceId: 2, start: day(12), end: day(13), bufferBefore: 30 * M, bufferAfter: 60 * M };
    const starts = freeStarts({ ...base, bookings: [booking] });
    // 11:00–12:00 ends inside the 30 minutes kept before; 13:00 and 13:30 start inside the hour after.
    expect(starts).toContain(day(10, 30));
    expect(starts).not.toContain(day(11));
    expect(starts).not.toContain(day(13, 30));
    expect(starts).toContain(day(14));
    // The slot's own buffers: 45 minutes after an 10:30–11:30 slot reach the 12:00 booking.
    const own = freeStarts({ ...base, bufferAfterMinutes: 45, bookings: [{ ...booking, bufferBefore: 0, bufferAfter: 0 }] });
    expect(own).not.toContain(day(10, 30));
    expect(own).toContain(day(10));
    expect(conflictOf({ start: day(13), end: day(14) }, 1, 1, [booking])).toEqual(booking);
    expect(conflictOf({ start: day(14), end: day(15) }, 1, 1, [booking])).toBeUndefined();
    expect(conflictOf({ start: day(14), end: day(15) }, 1, 1, [booking], { bufferBefore: 61 * M, bufferAfter: 0, attendees: 1 })).toEqual(booking);
  });

  it('count seats: bookings sharing a start take their attendees, a slot needs the seats asked', () => {
    const group = (id: number, seats: number): BusyBooking => ({ id, serviceId: 1, start: day(10), end: day(11), seats });
    const slotAt10 = (query: Partial<SlotQuery>, bookings: BusyBooking[]) =>
      freeSlots({ ...base, capacity: 4, ...query }, [slotAgent(1, bookings)]).find((slot) => slot.start === day(10));
    expect(slotAt10({}, [group(1, 1), group(2, 2)])?.seatsLeft).toBe(1);
    expect(slotAt10({ attendees: 2 }, [group(1, 1), group(2, 2)])).toBeUndefined();
    expect(slotAt10({}, [group(1, 4)])).toBeUndefined();
    expect(slotAt10({}, [])?.seatsLeft).toBe(4);
    expect(conflictOf({ start: day(10), end: day(11) }, 1, 4, [group(1, 3)], { bufferBefore: 0, bufferAfter: 0, attendees: 2 })).toEqual(group(1, 3));
    expect(conflictOf({ start: day(10), end: day(11) }, 1, 4, [group(1, 3)])).toBeUndefined();
  });

  it('offer nothing after the far edge of the booking window', () => {
    expect(freeStarts({ ...base, latest: day(10) })).toEqual([day(9), day(9, 30), day(10)]);
    expect(freeStarts({ ...base, latest: day(8) })).toEqual([]);
  });

  it("let a site exception close, or shorten, the day of an agent on its own hours, whose own exception narrows further", () => {
    const own = allWeek('08:00', '18:00');
    const site: Schedule = { weekly: weekly([{ start: '09:00', end: '17:00' }]), exceptions: [{ date: '2026-12-24', periods: [] }, { date: '2026-12-31', periods: [{ start: '09:00', end: '13:00' }] }] };
    expect(workingMinutes(own, '2026-12-24', null, site)).toEqual([]);
    expect(workingMinutes(own, '2026-12-31', null, site)).toEqual([{ start: 540, end: 780 }]);
    expect(workingMinutes(own, '2026-12-30', null, site)).toEqual([{ start: 480, end: 1080 }]);
    const ownException: Schedule = { ...own, exceptions: [{ date: '2026-12-31', periods: [{ start: '11:00', end: '15:00' }] }] };
    expect(workingMinutes(ownException, '2026-12-31', null, site)).toEqual([{ start: 660, end: 780 }]);
    // The site's own schedule is not narrowed by itself.
    expect(workingMinutes(site, '2026-12-31', null, site)).toEqual([{ start: 540, end: 780 }]);
  });

  it('let a break inside a DST gap take no time: 00:00–02:15 and 02:45–06:00 take a 60-minute slot at 01:30', () => {
    const hours: Schedule = { weekly: weekly([{ start: '00:00', end: '02:15' }, { start: '02:45', end: '06:00' }]), exceptions: [] };
    const spans = workingSpans(hours, '2026-03-29', null, 'Europe/Berlin');
    const jump = utc('2026-03-29T01:00:00Z');
    expect(spans).toEqual([{ start: utc('2026-03-28T23:00:00Z'), end: utc('2026-03-29T04:00:00Z'), seams: [jump] }]);
    const start = localInstant('2026-03-29', '01:30', 'Europe/Berlin') as number;
    expect(isWithin({ start, end: start + 60 * M }, spans)).toBe(true);
    const starts = freeStarts({ ...base, spans, durationMinutes: 60, intervalMinutes: 30 });
    expect(starts).toContain(start);
    // The later period's grid starts anew when the clocks jump.
    expect(starts).toContain(jump);
    // Any other day the break is a break.
    expect(workingSpans(hours, '2026-03-22', null, 'Europe/Berlin')).toHaveLength(2);
  });
});

describe('property: a site exception binds an agent on its own hours', () => {
  const time = fc.integer({ min: 0, max: 48 }).map((half) => (half === 48 ? '24:00' : `${String(Math.floor(half / 2)).padStart(2, '0')}:${half % 2 ? '30' : '00'}`));
  const periods = fc.array(
    fc.tuple(time, time).filter(([a, b]) => a < b).map(([start, end]) => ({ start, end })),
    { maxLength: 3 },
  );

  it('offers nothing outside the site exception nor outside the agent’s own hours', () => {
    fc.assert(
      fc.property(fc.constantFrom('Europe/Berlin', 'America/New_York', 'UTC'), fc.constantFrom('2026-03-29', '2026-10-25', '2026-12-24'), periods, periods, (zone, date, own, closure) => {
        const agent: Schedule = { weekly: weekly(own), exceptions: [] };
        const site: Schedule = { weekly: weekly([]), exceptions: [{ date, periods: closure }] };
        const spans = workingSpans(agent, date, null, zone, site);
        const siteSpans = workingSpans(site, date, null, zone);
        const ownSpans = workingSpans(agent, date, null, zone);
        const slots = freeSlots({ spans, durationMinutes: 30, intervalMinutes: 15, earliest: 0, serviceId: 1, capacity: 1 }, [slotAgent(1, [])]);
        for (const slot of slots) {
          expect(isWithin(slot, siteSpans)).toBe(true);
          expect(isWithin(slot, ownSpans)).toBe(true);
        }
        if (closure.length === 0) expect(spans).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('property: no free slot meets a booking or its buffers, leaves working hours or the window, or overfills seats; none is missed', () => {
  const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'UTC', 'Asia/Kolkata'];
  const dates = ['2026-03-08', '2026-03-29', '2026-04-05', '2026-10-04', '2026-10-25', '2026-11-01', '2026-06-15'];
  const time = fc.integer({ min: 0, max: 47 }).map((half) => `${String(Math.floor(half / 2)).padStart(2, '0')}:${half % 2 ? '30' : '00'}`);
  const period = fc.tuple(time, time).filter(([a, b]) => a < b).map(([start, end]) => ({ start, end }));
  const buffer = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 240 }));

  it('holds for random hours, bookings, durations and intervals on DST days', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...dates),
        fc.array(period, { maxLength: 3 }),
        fc.array(
          fc.record({
            offset: fc.integer({ min: -8, max: 100 }).map((quarter) => quarter * 15),
            length: fc.integer({ min: 5, max: 240 }),
            shared: fc.boolean(),
            before: buffer,
            after: buffer,
            seats: fc.integer({ min: 1, max: 3 }),
          }),
          { maxLength: 6 },
        ),
        fc.integer({ min: 5, max: 180 }),
        // Booking starts and steps on a quarter-hour grid often meet, so group sharing is exercised.
        fc.constantFrom(5, 10, 15, 30, 45, 60),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 1440 }),
        fc.integer({ min: 0, max: 1440 }),
        fc.record({ before: buffer, after: buffer, attendees: fc.integer({ min: 1, max: 2 }) }),
        (zone, date, periods, rawBookings, duration, interval, capacity, earliestOffset, latestOffset, need) => {
          const schedule: Schedule = { weekly: weekly(periods), exceptions: [] };
          const spans = workingSpans(schedule, date, null, zone);
          const day = daySpan(date, zone);
          const bookings: BusyBooking[] = rawBookings.map((b, i) => ({
            id: i + 1,
            serviceId: b.shared ? 1 : 2,
            start: day.start + b.offset * M,
            end: day.start + (b.offset + b.length) * M,
            bufferBefore: b.before * M,
            bufferAfter: b.after * M,
            seats: b.seats,
          }));
          const earliest = day.start + earliestOffset * M;
          const latest = day.start + latestOffset * M;
          const query = {
            spans,
            durationMinutes: duration,
            intervalMinutes: interval,
            earliest,
            latest,
            serviceId: 1,
            capacity,
            bufferBeforeMinutes: need.before,
            bufferAfterMinutes: need.after,
            attendees: need.attendees,
          };
          const slots = freeSlots(query, [slotAgent(1, bookings)]);
          const starts = slots.map((slot) => slot.start);
          /** Whether the slot, or the time it keeps free, meets the booking or the time the booking keeps free. */
          const meets = (b: BusyBooking, start: number, end: number) =>
            (start - need.before * M < b.end && b.start < end + need.after * M) ||
            (start < b.end + (b.bufferAfter ?? 0) && b.start - (b.bufferBefore ?? 0) < end);
          const shares = (b: BusyBooking, start: number) => b.serviceId === 1 && b.start === start;
          for (const slot of slots) {
            expect(slot.start).toBeGreaterThanOrEqual(earliest);
            expect(slot.start).toBeLessThanOrEqual(latest);
            expect(isWithin(slot, spans)).toBe(true);
            for (const b of bookings) if (!shares(b, slot.start)) expect(meets(b, slot.start, slot.end)).toBe(false);
            const taken = bookings.filter((b) => shares(b, slot.start)).reduce((sum, b) => sum + (b.seats ?? 1), 0);
            expect(taken + need.attendees).toBeLessThanOrEqual(capacity);
            expect(slot.seatsLeft).toBe(capacity - taken);
          }
          // Every working span lies inside the local day.
          for (const s of spans) expect(s.start >= day.start && s.end <= day.end).toBe(true);
          // And no free grid start is missing: a start is left out only for a reason. Each
          // configured period's grid runs from its start to the next period's (contract §6).
          const grid = new Set<number>();
          for (const span of spans) {
            const origins = [span.start, ...(span.seams ?? [])];
            origins.forEach((origin, k) => {
              for (let start = origin; start < (origins[k + 1] ?? span.end) && start + duration * M <= span.end; start += interval * M) {
                grid.add(start);
                const end = start + duration * M;
                const taken = bookings.filter((b) => shares(b, start)).reduce((sum, b) => sum + (b.seats ?? 1), 0);
                const blocked = bookings.some((b) => !shares(b, start) && meets(b, start, end));
                const free = start >= earliest && start <= latest && !blocked && taken + need.attendees <= capacity;
                expect(starts.includes(start)).toBe(free);
              }
            });
          }
          for (const start of starts) expect(grid.has(start)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('property: several agents at once, day after day, find what conflictOf finds for each', () => {
  const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'];
  const firstDates = ['2026-03-06', '2026-03-27', '2026-04-03', '2026-10-02', '2026-10-23', '2026-10-30'];
  const buffer = fc.oneof(fc.constant(0), fc.constantFrom(15, 30, 60, 240));
  const booking = fc.record({
    day: fc.integer({ min: -1, max: 4 }),
    quarter: fc.integer({ min: 0, max: 95 }),
    length: fc.integer({ min: 1, max: 120 }).map((quarters) => quarters * 15),
    shared: fc.boolean(),
    before: buffer,
    after: buffer,
    seats: fc.integer({ min: 1, max: 2 }),
  });

  it('holds for random bookings of up to four agents over four days around DST changes, in order or not', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...firstDates),
        fc.array(fc.array(booking, { maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(15, 30, 45, 60, 90),
        fc.constantFrom(15, 30, 60),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.record({ before: buffer, after: buffer }),
        (zone, firstDate, perAgent, duration, interval, capacity, reversed, own) => {
          const dates = datesBetween(firstDate, nextDate(nextDate(nextDate(firstDate))));
          const start0 = daySpan(firstDate, zone).start;
          let id = 0;
          const bookings: BusyBooking[][] = perAgent.map((raw) =>
            raw.map((b) => {
              const start = start0 + b.day * 24 * H + b.quarter * 15 * M;
              return { id: ++id, serviceId: b.shared ? 1 : 2, start, end: start + b.length * M, bufferBefore: b.before * M, bufferAfter: b.after * M, seats: b.seats };
            }),
          );
          const agents = bookings.map((own, i) => slotAgent(i + 10, own));
          const schedule = allWeek('07:00', '21:30');
          const asked = reversed ? [...dates].reverse() : dates;
          for (const date of asked) {
            const query = {
              spans: workingSpans(schedule, date, null, zone),
              durationMinutes: duration,
              intervalMinutes: interval,
              earliest: 0,
              serviceId: 1,
              capacity,
              bufferBeforeMinutes: own.before,
              bufferAfterMinutes: own.after,
            };
            const slots = freeSlots(query, agents);
            const need = { bufferBefore: own.before * M, bufferAfter: own.after * M, attendees: 1 };
            const expected: { start: number; end: number; agentIds: number[]; seatsLeft: number }[] = [];
            for (const span of query.spans) {
              for (let start = span.start; start + duration * M <= span.end; start += interval * M) {
                const end = start + duration * M;
                const free = bookings.flatMap((mine, i) => (conflictOf({ start, end }, 1, capacity, mine, need) ? [] : [{ id: i + 10, mine }]));
                const taken = (mine: BusyBooking[]) => mine.filter((b) => b.serviceId === 1 && b.start === start).reduce((sum, b) => sum + (b.seats ?? 1), 0);
                const seatsLeft = Math.max(...free.map(({ mine }) => capacity - taken(mine)));
                if (free.length > 0) expected.push({ start, end, agentIds: free.map((f) => f.id), seatsLeft });
              }
            }
            expect(slots).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('joinSlots', () => {
  it('sorts the slots of several groups by start and end, joining the agents of equal ones and keeping the most seats left', () => {
    const a = [
      { start: 10, end: 20, agentIds: [1, 4], seatsLeft: 1 },
      { start: 30, end: 40, agentIds: [4], seatsLeft: 2 },
    ];
    const b = [
      { start: 10, end: 20, agentIds: [2], seatsLeft: 3 },
      { start: 10, end: 30, agentIds: [3], seatsLeft: 1 },
      { start: 20, end: 30, agentIds: [2], seatsLeft: 1 },
    ];
    expect(joinSlots([a, b])).toEqual([
      { start: 10, end: 20, agentIds: [1, 2, 4], seatsLeft: 3 },
      { start: 10, end: 30, agentIds: [3], seatsLeft: 1 },
      { start: 20, end: 30, agentIds: [2], seatsLeft: 1 },
      { start: 30, end: 40, agentIds: [4], seatsLeft: 2 },
    ]);
    expect(a[0]?.agentIds).toEqual([1, 4]);
    expect(joinSlots([a])).toEqual(a);
    expect(joinSlots([])).toEqual([]);
  });
});

describe('calendar dates', () => {
  it('counts dates across month, year and leap-day ends, in years below 100 too', () => {
    expect(datesBetween('2028-02-27', '2028-03-01')).toEqual(['2028-02-27', '2028-02-28', '2028-02-29', '2028-03-01']);
    expect(datesBetween('2026-12-31', '2027-01-01')).toEqual(['2026-12-31', '2027-01-01']);
    expect(datesBetween('2026-01-02', '2026-01-01')).toEqual([]);
    expect(nextDate('0099-12-31')).toBe('0100-01-01');
    expect(nextDate('1900-02-28')).toBe('1900-03-01');
    expect(nextDate('2000-02-28')).toBe('2000-02-29');
  });

  it('knows the weekday of any date of the proleptic Gregorian calendar', () => {
    const cases: [string, string][] = [
      ['0001-01-01', 'monday'],
      ['1969-12-31', 'wednesday'],
      ['1970-01-01', 'thursday'],
      ['2000-02-29', 'tuesday'],
      ['2026-03-29', 'sunday'],
      ['9999-12-31', 'friday'],
    ];
    for (const [date, weekday] of cases) expect(weekdayOf(date)).toBe(weekday);
  });

  it('tells real calendar dates from others', () => {
    for (const date of ['2026-01-31', '2028-02-29', '0001-01-01', '9999-12-31']) expect(isCalendarDate(date)).toBe(true);
    for (const text of ['2026-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-01-00', '2026-1-01', '20260101', '2026-01-01T00:00', 'tomorrow', '']) {
      expect(isCalendarDate(text)).toBe(false);
    }
  });
});
