import { describe, expect, it } from 'vitest';
import { insertCustomer } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

/**
 * `created_at` prefixes name the site's wall clock: an hour the clocks skip matches nothing, an
 * hour they repeat matches both times, a repeated minute its first occurrence (contract §6).
 */
describe.each(DIALECTS)('GET /customers?created_at= across DST changes (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });

  const found = async (prefix: string): Promise<number[]> => {
    const res = await t.app.inject({ url: `/booking-api/v1/customers?per_page=100&created_at=${encodeURIComponent(prefix)}`, headers: { 'x-api-key': await t.key() } });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().data as Json[]).map((c) => c.id as number).sort((a, b) => a - b);
  };
  const created = (at: string) => insertCustomer(t.db, { created_at: at, updated_at: at });

  it('matches what the clocks showed, on the day they went back and on the day they went forward', async () => {
    const firstTime = await created('2030-10-27T00:30:00.000Z'); // 02:30 +02:00
    const secondTime = await created('2030-10-27T01:30:00.000Z'); // 02:30 +01:00, the same wall clock again
    const afterGap = await created('2030-03-31T01:30:00.000Z'); // 03:30 +02:00; 02:00–03:00 never showed

    expect(await found('2030-10-27 02')).toEqual([firstTime, secondTime]);
    expect(await found('2030-10-27 02:30')).toEqual([firstTime]);
    expect(await found('2030-10-27')).toEqual([firstTime, secondTime]);
    expect(await found('2030-03-31 02')).toEqual([]);
    expect(await found('2030-03-31 03')).toEqual([afterGap]);
    expect(await found('2030-03')).toEqual([afterGap]);

    const jumpedTo = await created('2030-03-31T01:00:15.000Z'); // 03:00:15 +02:00, just after the jump
    expect(await found('2030-03-31 02:30:15')).toEqual([]);
    expect(await found('2030-03-31 02:00:15')).toEqual([]);
    expect(await found('2030-03-31 03:00:15')).toEqual([jumpedTo]);
    // The minute before the repeated hour is one minute, not the whole repeat after it.
    expect(await found('2030-10-27 02:59')).toEqual([]);
  });
});
