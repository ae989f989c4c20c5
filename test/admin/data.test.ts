import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import { parsePeriods, parseWeeklyForm, usageChart } from '../../src/modules/admin/service.js';
import {
  countEntries,
  insertEntries,
  requestsPerKeySince,
  searchEntries,
  usagePerKeyHour,
  type NewAuditEntry,
} from '../../src/modules/audit/repository.js';
import { DIALECTS, useTestApp } from '../helper.js';

const entry = (at: string, keyId: number | null, path: string, status: number): NewAuditEntry => ({
  at,
  key_id: keyId,
  method: 'GET',
  path,
  status,
  ip: '127.0.0.1',
  duration_ms: 2.5,
});

describe.each(DIALECTS)('audit queries for the request log (%s)', (dialect) => {
  const t = useTestApp(dialect);
  beforeAll(async () => {
    await insertEntries(t.db, [
      entry('2026-03-01T10:05:00.000Z', 1, '/booking-api/v1/bookings', 200),
      entry('2026-03-01T10:45:00.000Z', 1, '/booking-api/v1/bookings/7', 404),
      entry('2026-03-01T11:10:00.000Z', 2, '/booking-api/v1/Customers', 201),
      entry('2026-03-01T11:20:00.000Z', null, '/booking-api/v1/status', 401),
      entry('2026-03-01T12:00:00.000Z', 2, '/booking-api/v1/100%_off', 500),
      entry('2026-03-02T09:00:00.000Z', 1, '/booking-api/v1/bookings', 200),
    ]);
  });

  const paths = async (filter: Parameters<typeof searchEntries>[1]) =>
    (await searchEntries(t.db, filter, { limit: 100, offset: 0 })).map((e) => e.path);

  it('filters by key (or no key), status class, path and time range', async () => {
    expect(await countEntries(t.db, { keyId: 1 })).toBe(3);
    expect(await paths({ keyId: null })).toEqual(['/booking-api/v1/status']);
    expect(await paths({ statusClass: 4 })).toEqual(['/booking-api/v1/status', '/booking-api/v1/bookings/7']);
    expect(await paths({ statusClass: 5 })).toEqual(['/booking-api/v1/100%_off']);
    expect(await paths({ pathContains: 'customers' })).toEqual(['/booking-api/v1/Customers']);
    expect(await paths({ from: '2026-03-01T10:45:00.000Z', to: '2026-03-01T11:20:00.000Z' })).toEqual([
      '/booking-api/v1/Customers',
      '/booking-api/v1/bookings/7',
    ]);
    expect(await countEntries(t.db, { keyId: 1, statusClass: 2, from: '2026-03-02T00:00:00.000Z' })).toBe(1);
  });

  it('takes % and _ in a path filter literally', async () => {
    expect(await paths({ pathContains: '%' })).toEqual(['/booking-api/v1/100%_off']);
    expect(await paths({ pathContains: '0%_o' })).toEqual(['/booking-api/v1/100%_off']);
    expect(await countEntries(t.db, { pathContains: '_' })).toBe(1);
  });

  it('pages newest first', async () => {
    const first = await searchEntries(t.db, {}, { limit: 4, offset: 0 });
    const second = await searchEntries(t.db, {}, { limit: 4, offset: 4 });
    expect(first.map((e) => e.at)).toEqual([...first.map((e) => e.at)].sort().reverse());
    expect(second).toHaveLength(2);
    expect(second[1]!.at).toBe('2026-03-01T10:05:00.000Z');
  });

  it('counts requests per key and UTC hour, and per key since an instant', async () => {
    expect(await usagePerKeyHour(t.db, { from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' })).toEqual(
      expect.arrayContaining([
        { key_id: 1, hour: '2026-03-01T10', requests: 2 },
        { key_id: 2, hour: '2026-03-01T11', requests: 1 },
        { key_id: null, hour: '2026-03-01T11', requests: 1 },
        { key_id: 2, hour: '2026-03-01T12', requests: 1 },
      ]),
    );
    expect(await usagePerKeyHour(t.db, { from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' })).toHaveLength(4);
    expect(await requestsPerKeySince(t.db, '2026-03-01T11:00:00.000Z')).toEqual(
      new Map([
        [1, 1],
        [2, 2],
      ]),
    );
  });
});

describe('request log chart buckets', () => {
  const rows = [
    { key_id: 1, hour: '2026-03-01T10', requests: 2 },
    { key_id: 2, hour: '2026-03-01T11', requests: 5 },
    { key_id: 1, hour: '2026-03-01T23', requests: 1 },
  ];

  it('per local hour for up to two days, busiest key first', () => {
    const from = DateTime.fromISO('2026-03-01T09:00:00Z');
    const chart = usageChart(rows, from, from.plus({ hours: 24 }), 'Europe/Berlin');
    expect(chart.unit).toBe('hour');
    expect(chart.buckets).toHaveLength(24);
    expect(chart.buckets[0]!.toISO()).toBe('2026-03-01T10:00:00.000+01:00');
    expect(chart.series.map((s) => [s.keyId, s.total])).toEqual([
      [2, 5],
      [1, 3],
    ]);
    expect(chart.series[1]!.counts[1]).toBe(2); // 10:00 UTC is 11:00 in Berlin
  });

  it('per local day for longer ranges, days split at local midnight', () => {
    const chart = usageChart(rows, DateTime.fromISO('2026-02-27T00:00:00Z'), DateTime.fromISO('2026-03-05T00:00:00Z'), 'Europe/Berlin');
    expect(chart.unit).toBe('day');
    const march1 = chart.buckets.findIndex((b) => b.toISODate() === '2026-03-01');
    const key1 = chart.series.find((s) => s.keyId === 1)!;
    // 23:00 UTC on 1 March is already 2 March in Berlin.
    expect(key1.counts[march1]).toBe(2);
    expect(key1.counts[march1 + 1]).toBe(1);
  });
});

describe('weekly hours form', () => {
  it('reads comma-separated periods, sorted', () => {
    expect(parsePeriods('13:00-17:00, 09:00 – 12:00')).toEqual({
      periods: [
        { start: '09:00', end: '12:00' },
        { start: '13:00', end: '17:00' },
      ],
    });
    expect(parsePeriods('  ')).toEqual({ periods: [] });
  });

  it('names the problem of each bad weekday', () => {
    const { problems } = parseWeeklyForm({ monday: '10:00-09:00', tuesday: '09:00-11:00,10:30-12:00', wednesday: '9:00-17:00', friday: 'all day' });
    expect(problems).toEqual({
      monday: '10:00-09:00: the start must be before the end',
      tuesday: '09:00-11:00 and 10:30-12:00 overlap',
      wednesday: 'times must be HH:MM (00:00 to 23:59; an end may be 24:00), got "9:00-17:00"',
      friday: '"all day" is not a period such as 09:00-17:00',
    });
    expect(parseWeeklyForm({ monday: '09:00-12:00,12:00-13:00' }).problems).toEqual({});
  });
});
