import { afterAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/core/app.js';
import { MONDAY, newSite, requester, TUESDAY, type Site } from '../bookings/setup.js';
import { buildTestApp, DIALECTS, useTestApp, type Json } from '../helper.js';

/**
 * GET /availability keeps the days it worked out (DaySlots): whatever a day depends on, changed
 * by this instance or another, shows in the next answer.
 */
describe.each(DIALECTS)('kept availability days follow every change (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);
  let other: App | undefined;
  afterAll(async () => other?.close());

  async function monday(site: Site, agent: number | 'any' = 'any'): Promise<Json> {
    const res = await call('GET', `/availability?service_id=${site.serviceId}&agent_id=${agent}&date_from=${MONDAY}&date_to=${TUESDAY}`);
    expect(res.statusCode).toBe(200);
    return res.json().data.days[0].slots;
  }
  const starts = (slots: Json[]) => slots.map((s) => s.start_time as string);
  const book = (site: Site, start_time: string, app?: App) =>
    app
      ? t.key().then((key) =>
          app.inject({
            method: 'POST',
            url: '/booking-api/v1/bookings',
            headers: { 'x-api-key': key },
            payload: { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time },
          }),
        )
      : call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time });

  it('bookings made or cancelled here or by another instance', async () => {
    const site = await newSite(t.db);
    expect(starts(await monday(site))).toContain('10:00');
    const here = await book(site, '10:00');
    expect(here.statusCode).toBe(201);
    expect(starts(await monday(site))).not.toContain('10:00');

    other = await buildTestApp(t.databaseUrl);
    expect((await book(site, '14:00', other)).statusCode).toBe(201);
    expect(starts(await monday(site))).not.toContain('14:00');

    expect((await call('PUT', `/bookings/${here.json().data.id}`, { status: 'cancelled' })).statusCode).toBe(200);
    expect(starts(await monday(site))).toContain('10:00');
  });

  it("the site's and the agent's hours, the slot interval and the site's zone", async () => {
    const site = await newSite(t.db);
    expect(starts(await monday(site))[0]).toBe('09:00');

    expect((await call('PUT', '/schedule', { weekly: { monday: [{ start: '08:00', end: '12:00' }] } })).statusCode).toBe(200);
    expect(starts(await monday(site))[0]).toBe('08:00');
    expect((await call('PUT', `/agents/${site.agentId}/schedule`, { weekly: { monday: [{ start: '13:00', end: '15:00' }] } })).statusCode).toBe(200);
    expect(starts(await monday(site))).toEqual(['13:00', '13:30', '14:00']);

    expect((await call('PUT', '/settings', { slot_interval_minutes: 60 })).statusCode).toBe(200);
    expect(starts(await monday(site))).toEqual(['13:00', '14:00']);
    expect((await call('PUT', '/settings', { timezone: 'America/New_York' })).statusCode).toBe(200);
    expect((await monday(site))[0].start_datetime).toBe('2030-01-07T13:00:00-05:00');

    await call('PUT', '/settings', { slot_interval_minutes: 30, timezone: 'Europe/Berlin' });
    await call('PUT', '/schedule', { weekly: { monday: [{ start: '09:00', end: '17:00' }], tuesday: [{ start: '09:00', end: '17:00' }], wednesday: [{ start: '09:00', end: '17:00' }], thursday: [{ start: '09:00', end: '17:00' }], friday: [{ start: '09:00', end: '17:00' }] } });
  });

  it("the service's capacity and duration, and the agent's own duration for it", async () => {
    const site = await newSite(t.db);
    expect((await book(site, '10:00')).statusCode).toBe(201);
    expect(starts(await monday(site))).not.toContain('10:00');

    expect((await call('PUT', `/services/${site.serviceId}`, { capacity_max: 2 })).statusCode).toBe(200);
    expect(starts(await monday(site))).toContain('10:00');

    expect((await call('PUT', `/services/${site.serviceId}`, { duration: 120 })).statusCode).toBe(200);
    expect((await monday(site)).find((s: Json) => s.start_time === '13:00')?.end_time).toBe('15:00');
    expect((await call('PUT', `/agents/${site.agentId}`, { services: [{ service_id: site.serviceId, custom_duration: 30 }] })).statusCode).toBe(200);
    expect((await monday(site, site.agentId)).find((s: Json) => s.start_time === '09:00')?.end_time).toBe('09:30');
  });

  it('the lead time: a day it comes to cover is no longer offered', async () => {
    const site = await newSite(t.db);
    const everyDay = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, [{ start: '09:00', end: '17:00' }]]));
    expect((await call('PUT', `/agents/${site.agentId}/schedule`, { weekly: everyDay })).statusCode).toBe(200);
    const date = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const day = async (): Promise<Json> => (await call('GET', `/availability?service_id=${site.serviceId}&date=${date}`)).json().data.days[0].slots;
    expect(await day()).toHaveLength(15);
    expect((await call('PUT', '/settings', { min_lead_minutes: 10 * 24 * 60 })).statusCode).toBe(200);
    try {
      expect(await day()).toEqual([]);
    } finally {
      await call('PUT', '/settings', { min_lead_minutes: 0 });
    }
  });
});
