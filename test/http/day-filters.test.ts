import { describe, expect, it } from 'vitest';
import { insertAgent, insertCustomer, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { API } from '../bookings/setup.js';

/**
 * created_after/created_before name local dates of the site's zone. In America/Santiago,
 * 2030-09-08 starts at 01:00 (the clocks skip midnight), so 2030-09-09 00:30 (03:30Z) is the next
 * date's, and 2030-09-08 01:00 (04:00Z) is its date's first instant.
 */
describe.each(DIALECTS)('date filters on days that do not start at midnight (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'America/Santiago' });

  const ids = async (path: string): Promise<number[]> => {
    const res = await t.app.inject({ url: `${API}${path}`, headers: { 'x-api-key': await t.key() } });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().data as Json[]).map((r) => r.id as number);
  };

  it.each([
    ['/customers', (at: string) => insertCustomer(t.db, { created_at: at, updated_at: at })],
    ['/agents', (at: string) => insertAgent(t.db, { created_at: at, updated_at: at })],
    ['/services', (at: string) => insertService(t.db, { created_at: at, updated_at: at })],
  ])('%s', async (path, insert) => {
    const firstInstant = await insert('2030-09-08T04:00:00.000Z');
    const nextDay = await insert('2030-09-09T03:30:00.000Z');
    const before = await ids(`${path}?created_before=2030-09-08&per_page=100`);
    expect(before).toContain(firstInstant);
    expect(before).not.toContain(nextDay);
    const after = await ids(`${path}?created_after=2030-09-09&per_page=100`);
    expect(after).toContain(nextDay);
    expect(after).not.toContain(firstInstant);
  });
});
