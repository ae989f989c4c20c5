import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { freeSlots, localClock, localTime, slotAgent, workingSpans } from '../../src/modules/availability/engine.js';
import { WEEKDAYS, type Schedule } from '../../src/modules/schedules/model.js';
import { zoneOffset } from '../../src/lib/time.js';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC', 'America/St_Johns'];

describe('cached zone offsets and local clock times', () => {
  it('agree with Luxon at the instants around DST transitions', () => {
    const transitions: [string, string][] = [
      ['Europe/Berlin', '2026-03-29T01:00:00Z'],
      ['Europe/Berlin', '2026-10-25T01:00:00Z'],
      ['America/New_York', '2026-03-08T07:00:00Z'],
      ['America/New_York', '2026-11-01T06:00:00Z'],
      ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
      ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'],
    ];
    for (const [zone, at] of transitions) {
      const transition = Date.parse(at);
      for (let delta = -3 * 3_600_000; delta <= 3 * 3_600_000; delta += 60_000) {
        const instant = transition + delta;
        const expected = DateTime.fromMillis(instant, { zone });
        expect(zoneOffset(IANAZone.create(zone), instant)).toBe(expected.offset);
        expect(localClock(instant, zone)).toEqual({ time: expected.toFormat('HH:mm'), iso: expected.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ") });
        expect(localTime(instant, zone)).toBe(expected.toFormat('HH:mm'));
      }
    }
  });

  it('agree with Luxon at any whole-minute instant in any zone (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 60 * 24 * 366 * 30 }), (zone, minutes) => {
        const instant = Date.UTC(2010, 0, 1) + minutes * 60_000;
        const expected = DateTime.fromMillis(instant, { zone });
        expect(zoneOffset(IANAZone.create(zone), instant)).toBe(expected.offset);
        expect(localClock(instant, zone).iso).toBe(expected.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ"));
        expect(localTime(instant, zone)).toBe(expected.toFormat('HH:mm'));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('local clock times off the whole minute, far from now, or in local mean time', () => {
  it('agree with Luxon', () => {
    const instants = [Date.UTC(2026, 2, 29, 0, 59, 59, 999), Date.UTC(2026, 2, 29, 1, 0, 30), Date.UTC(1850, 5, 1, 12, 0), Date.UTC(-5, 0, 1), Date.UTC(12000, 0, 1)];
    for (const zone of ZONES) {
      for (const instant of instants) {
        const expected = DateTime.fromMillis(instant, { zone });
        expect(localClock(instant, zone)).toEqual({ time: expected.toFormat('HH:mm'), iso: expected.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ") });
        expect(localTime(instant, zone)).toBe(expected.toFormat('HH:mm'));
      }
    }
  });
});

describe('slots through the hour the clocks repeat (property)', () => {
  const fallBack: [string, string][] = [
    ['Europe/Berlin', '2026-10-25'],
    ['America/New_York', '2026-11-01'],
    ['Australia/Lord_Howe', '2026-04-05'],
  ];
  const nights: Schedule = { weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, [{ start: '00:00', end: '06:00' }]])) as Schedule['weekly'], exceptions: [] };

  it('step in elapsed time, offer both occurrences of a repeated time, and render each with its own offset', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fallBack), fc.constantFrom(10, 15, 20, 30, 45, 60), fc.integer({ min: 5, max: 120 }), ([zone, date], interval, duration) => {
        const [span] = workingSpans(nights, date, null, zone);
        if (!span) throw new Error('no working span');
        const starts = freeSlots({ spans: [span], durationMinutes: duration, intervalMinutes: interval, earliest: 0, serviceId: 1, capacity: 1 }, [slotAgent(1, [])]).map((s) => s.start);
        expect(starts).toHaveLength(Math.floor((span.end - span.start - duration * 60_000) / (interval * 60_000)) + 1);
        starts.forEach((start, i) => {
          if (i > 0) expect(start - (starts[i - 1] as number)).toBe(interval * 60_000);
          expect(localClock(start, zone).iso).toBe(DateTime.fromMillis(start, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ"));
        });
        // With a grid that meets the repeated half hour (Lord Howe repeats 30 minutes), some clock
        // time shows twice among the starts: once per offset.
        const times = starts.map((start) => localTime(start, zone));
        if ([10, 15, 30].includes(interval)) expect(new Set(times).size).toBeLessThan(times.length);
      }),
      { numRuns: 200 },
    );
  });
});
