import { describe, expect, it } from 'vitest';
import { newSite, requester } from '../bookings/setup.js';
import { insertBooking } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

/**
 * Bookings are shown, filtered and changed in the site's zone: a new zone re-expresses every
 * booking's local date and time in it, at the same instants.
 */
describe.each(DIALECTS)("changing the site's zone (%s)", (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);

  it('shows, lists and reads changes of a booking in the new zone, at the same instant', async () => {
    const site = await newSite(t.db);
    await call('PUT', `/agents/${site.agentId}/schedule`, { weekly: { sunday: [{ start: '00:00', end: '24:00' }], monday: [{ start: '00:00', end: '24:00' }] } });
    const created = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: '2030-06-03', start_time: '02:00' });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id as number;

    expect((await call('PUT', '/settings', { timezone: 'America/New_York' })).statusCode).toBe(200);
    const read = async (): Promise<Json> => (await call('GET', `/bookings/${id}`)).json().data;
    expect(await read()).toMatchObject({
      start_date: '2030-06-02',
      start_time: '20:00',
      end_date: '2030-06-02',
      end_time: '21:00',
      timezone: 'America/New_York',
      start_datetime: '2030-06-02T20:00:00-04:00',
      end_datetime: '2030-06-02T21:00:00-04:00',
    });
    const listed = async (date: string) =>
      ((await call('GET', `/bookings?agent_id=${site.agentId}&date_from=${date}&date_to=${date}`)).json().data as Json[]).map((b) => b.id as number);
    expect(await listed('2030-06-02')).toEqual([id]);
    expect(await listed('2030-06-03')).toEqual([]);
    const item = await t.db.selectFrom('order_items').select('item_data').where('booking_id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.parse(item.item_data)).toMatchObject({ start_date: '2030-06-02', start_time: '20:00' });

    // Sending back what was shown moves nothing.
    const echoed = await call('PUT', `/bookings/${id}`, { start_date: '2030-06-02', start_time: '20:00', notes: 'echo' });
    expect(echoed.statusCode).toBe(200);
    expect(echoed.json().data.start_datetime).toBe('2030-06-02T20:00:00-04:00');
    await call('PUT', '/settings', { timezone: 'Europe/Berlin' });
    expect(await read()).toMatchObject({ start_date: '2030-06-03', start_time: '02:00', timezone: 'Europe/Berlin' });
  });

  it('re-expresses every booking, however many, batch by batch', async () => {
    const site = await newSite(t.db);
    const count = 1_050;
    for (let i = 0; i < count; i++) {
      const start = Date.parse('2031-01-06T09:00:00Z') + i * 3_600_000;
      await insertBooking(t.db, site, { start_at: new Date(start).toISOString(), end_at: new Date(start + 3_600_000).toISOString(), timezone: 'UTC' });
    }
    expect((await call('PUT', '/settings', { timezone: 'Asia/Kathmandu' })).statusCode).toBe(200);
    const rows = await t.db.selectFrom('bookings').select(['start_at', 'start_date', 'start_time', 'end_time', 'timezone']).where('agent_id', '=', site.agentId).execute();
    expect(rows).toHaveLength(count);
    expect(rows.filter((r) => r.timezone !== 'Asia/Kathmandu')).toEqual([]);
    const first = rows.find((r) => r.start_at === '2031-01-06T09:00:00.000Z');
    expect(first).toMatchObject({ start_date: '2031-01-06', start_time: '14:45', end_time: '15:45' });
    await call('PUT', '/settings', { timezone: 'Europe/Berlin' });
  });

  it('refuses a zone in which a booking would end after the year 9999, and changes nothing', async () => {
    const site = await newSite(t.db);
    const id = await insertBooking(t.db, site, { start_at: '9999-12-31T20:00:00.000Z', end_at: '9999-12-31T21:00:00.000Z', timezone: 'Europe/Berlin' });
    const refused = await call('PUT', '/settings', { timezone: 'Pacific/Kiritimati' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'validation_failed', details: { timezone: expect.stringContaining(`booking ${id}`) } });
    expect((await call('GET', '/settings')).json().data.timezone).toBe('Europe/Berlin');
    const row = await t.db.selectFrom('bookings').select(['start_date', 'timezone']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ start_date: '2030-01-07', timezone: 'Europe/Berlin' });
    await t.db.deleteFrom('bookings').where('id', '=', id).execute();
  });
});
