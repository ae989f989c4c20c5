import { describe, expect, it, vi } from 'vitest';
import { insertBooking } from '../fixtures.js';
import { cli, DIALECTS, useTestApp, type Json } from '../helper.js';
import { addAgent, MONDAY, newSite, requester, type Site } from '../bookings/setup.js';
import { DEFAULT_SITE_SCHEDULE } from '../../src/modules/schedules/model.js';

/**
 * The scheduling rules a business sets (issue 24): buffers, booking windows, closures that reach
 * every agent, DST breaks and repeated hours, suggestions with their agents, seats. Through
 * HTTP, on both engines. The site's zone is UTC unless a test says otherwise.
 */
describe.each(DIALECTS)('scheduling rules (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = requester(t);

  const startsOf = async (site: Site, date: string, agent: number | 'any' = 'any'): Promise<string[]> => {
    const res = await call('GET', `/availability?service_id=${site.serviceId}&date=${date}&agent_id=${agent}`);
    expect(res.statusCode).toBe(200);
    return (res.json().data.days[0].slots as Json[]).map((s) => s.start_time as string);
  };
  const book = (site: Site, values: object) =>
    call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, ...values });
  const bookedAt = (site: Site, agentId: number, start: string, end: string) =>
    insertBooking(t.db, { serviceId: site.serviceId, agentId, locationId: site.locationId, customerId: site.customerId }, { start_at: start, end_at: end });

  describe('buffers', () => {
    it('keep time free around bookings in availability, create, reschedule, bulk and the suggestions of a 409', async () => {
      const site = await newSite(t.db);
      const set = await call('PUT', `/services/${site.serviceId}`, { buffer_before: 30, buffer_after: 30 });
      expect(set.statusCode).toBe(200);
      expect(set.json().data).toMatchObject({ buffer_before: 30, buffer_after: 30 });
      const noon = await book(site, { start_time: '12:00' });
      expect(noon.statusCode).toBe(201);

      const starts = await startsOf(site, MONDAY);
      // 10:30–11:30 ends where the 30 minutes before 12:00 begin; 13:30 starts where the 30 after end.
      expect(starts).toEqual(['09:00', '09:30', '10:00', '10:30', '13:30', '14:00', '14:30', '15:00', '15:30', '16:00']);

      const refused = await book(site, { start_time: '13:00' });
      expect(refused.statusCode).toBe(409);
      const details = refused.json().error.details;
      expect(details.conflicting_booking_id).toBe(noon.json().data.id);
      expect(details.available_slots.slice(0, 5)).toEqual(['2030-01-07 09:00', '2030-01-07 09:30', '2030-01-07 10:00', '2030-01-07 10:30', '2030-01-07 13:30']);
      expect(details.suggestions.map((s: { start: string }) => s.start)).toEqual(details.available_slots);

      const later = await book(site, { start_time: '15:00' });
      expect(later.statusCode).toBe(201);
      const moveTo = (start_time: string) => call('PUT', `/bookings/${later.json().data.id}`, { start_time });
      expect((await moveTo('13:00')).statusCode).toBe(409);
      expect((await moveTo('13:30')).statusCode).toBe(200);

      // 13:30–14:30 keeps 14:30–15:00 free: a bulk element at 15:00 fits, one at 16:00 then meets its buffer.
      const element = (start_time: string) => ({ service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time });
      const bulk = await call('POST', '/bookings/bulk', { bookings: [element('15:00'), element('16:00')] });
      expect(bulk.statusCode).toBe(207);
      expect(bulk.json().results.success.map((s: { index: number }) => s.index)).toEqual([0]);
      expect(bulk.json().results.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([[1, 'time_slot_unavailable']]);
    });

    it('follow the connection before the service, and a changed buffer never invalidates a booking already made', async () => {
      const site = await newSite(t.db);
      const other = await addAgent(t.db, site);
      expect((await call('PUT', `/services/${site.serviceId}`, { buffer_before: 60, buffer_after: 60 })).statusCode).toBe(200);
      const agent = await call('PUT', `/agents/${site.agentId}`, { services: [{ service_id: site.serviceId, buffer_before: 0, buffer_after: 0 }] });
      expect(agent.statusCode).toBe(200);
      const shown = await call('GET', `/agents/${site.agentId}?include=services`);
      expect(shown.json().data.services[0]).toMatchObject({ id: site.serviceId, buffer_before: 0, buffer_after: 0 });

      await bookedAt(site, site.agentId, '2030-01-07T10:00:00.000Z', '2030-01-07T11:00:00.000Z');
      await bookedAt(site, other, '2030-01-07T10:00:00.000Z', '2030-01-07T11:00:00.000Z');
      // Without buffers of its own, the first agent takes 09:00 and 11:00; the other keeps an hour free either side.
      expect(await startsOf(site, MONDAY, site.agentId)).toEqual(expect.arrayContaining(['09:00', '11:00']));
      const others = await startsOf(site, MONDAY, other);
      expect(others).not.toContain('09:00');
      expect(others).not.toContain('11:30');
      expect(others[0]).toBe('12:00');

      const made = await book(site, { start_time: '12:00' });
      expect(made.statusCode).toBe(201);
      const next = await book(site, { start_time: '13:00' });
      expect(next.statusCode).toBe(201);
      // Buffers grow: the bookings made stay, change in place and come back from cancelled with
      // the buffers they were made with (12:00 and 13:00 touch, which 240 minutes would forbid).
      expect((await call('PUT', `/services/${site.serviceId}`, { buffer_before: 240, buffer_after: 240 })).statusCode).toBe(200);
      expect((await call('PUT', `/agents/${site.agentId}`, { services: [{ service_id: site.serviceId }] })).statusCode).toBe(200);
      const change = (values: object) => call('PUT', `/bookings/${made.json().data.id}`, values);
      expect((await change({ notes: 'still here' })).statusCode).toBe(200);
      expect((await change({ status: 'cancelled' })).statusCode).toBe(200);
      expect((await change({ status: 'approved' })).statusCode).toBe(200);
      expect((await call('GET', `/bookings/${next.json().data.id}`)).json().data.status).toBe('pending');
      // Moved, it takes the buffers of now: from 16:00, 240 minutes before reach the 13:00 booking.
      expect((await change({ start_time: '16:00' })).statusCode).toBe(409);
    });

    it('refuse values out of range, naming the field', async () => {
      const site = await newSite(t.db);
      const service = await call('PUT', `/services/${site.serviceId}`, { buffer_before: 241, buffer_after: -1 });
      expect(service.statusCode).toBe(422);
      expect(Object.keys(service.json().error.details).sort()).toEqual(['buffer_after', 'buffer_before']);
      const agent = await call('PUT', `/agents/${site.agentId}`, { services: [{ service_id: site.serviceId, buffer_after: 1000 }] });
      expect(agent.statusCode).toBe(422);
      expect(agent.json().error.details).toHaveProperty('services.0.buffer_after');
    });
  });

  describe('booking window', () => {
    // Tuesday 2030-01-01 12:00 UTC: MONDAY is six days ahead.
    const NOW = Date.parse('2030-01-01T12:00:00.000Z');

    it('refuses a start beyond max_advance_days or sooner than min_notice_minutes with 422 naming the rule; availability stops at the edges', async () => {
      const site = await newSite(t.db);
      expect((await call('PUT', '/settings', { max_advance_days: 3 })).json().data.max_advance_days).toBe(3);
      const now = vi.spyOn(Date, 'now').mockReturnValue(NOW);
      try {
        const far = await book(site, { start_time: '10:00' });
        expect(far.statusCode).toBe(422);
        expect(far.json().error).toMatchObject({ code: 'validation_failed', details: { rule: 'max_advance_days' } });
        expect(far.json().error.details.start_date).toMatch(/3 days/);
        // 2030-01-04 12:00 is three days from now: the last start offered.
        expect((await startsOf(site, '2030-01-04')).at(-1)).toBe('12:00');
        expect(await startsOf(site, MONDAY)).toEqual([]);

        expect((await call('PUT', `/services/${site.serviceId}`, { min_notice_minutes: 2880, max_advance_days: 10 })).statusCode).toBe(200);
        const soon = await book(site, { start_date: '2030-01-02', start_time: '10:00' });
        expect(soon.statusCode).toBe(422);
        expect(soon.json().error.details).toMatchObject({ rule: 'min_notice_minutes' });
        expect(soon.json().error.details.start_time).toMatch(/2880 minutes/);
        expect(await startsOf(site, '2030-01-02')).toEqual([]);
        expect((await startsOf(site, '2030-01-03'))[0]).toBe('12:00');
        // The service's own window reaches further than the site's.
        expect((await book(site, { start_time: '10:00' })).statusCode).toBe(201);
      } finally {
        now.mockRestore();
        await call('PUT', '/settings', { max_advance_days: 3_660_000 });
      }
    });

    it('is set through the settings API and the CLI, and refuses values out of range', async () => {
      expect((await call('PUT', '/settings', { max_advance_days: 0 })).json().error.details).toHaveProperty('max_advance_days');
      const set = await cli(t.databaseUrl, ['settings', 'set', 'max_advance_days', '30']);
      expect(set.code).toBe(0);
      expect((await call('GET', '/settings')).json().data.max_advance_days).toBe(30);
      await call('PUT', '/settings', { max_advance_days: 3_660_000 });
      const site = await newSite(t.db);
      const res = await call('PUT', `/services/${site.serviceId}`, { min_notice_minutes: -5, max_advance_days: 0 });
      expect(res.statusCode).toBe(422);
      expect(Object.keys(res.json().error.details).sort()).toEqual(['max_advance_days', 'min_notice_minutes']);
    });
  });

  describe('closures', () => {
    it('a site exception closes or shortens the day of an agent on its own hours; its own exception narrows further', async () => {
      const site = await newSite(t.db);
      const weekday = [{ start: '08:00', end: '18:00' }];
      const own = await call('PUT', `/agents/${site.agentId}/schedule`, {
        weekly: { monday: weekday, tuesday: weekday, wednesday: weekday },
        exceptions: [{ date: '2030-01-16', periods: [{ start: '11:00', end: '15:00' }] }],
      });
      expect(own.statusCode).toBe(200);
      expect(await startsOf(site, '2030-01-14')).toHaveLength(19);
      const closures = await call('PUT', '/schedule', {
        weekly: { monday: [{ start: '09:00', end: '17:00' }], tuesday: [{ start: '09:00', end: '17:00' }], wednesday: [{ start: '09:00', end: '17:00' }] },
        exceptions: [{ date: '2030-01-14' }, { date: '2030-01-15', periods: [{ start: '09:00', end: '12:00' }] }, { date: '2030-01-16', periods: [{ start: '09:00', end: '12:00' }] }],
      });
      expect(closures.statusCode).toBe(200);
      try {
        expect(await startsOf(site, '2030-01-14')).toEqual([]);
        expect(await startsOf(site, '2030-01-15')).toEqual(['09:00', '09:30', '10:00', '10:30', '11:00']);
        expect(await startsOf(site, '2030-01-16')).toEqual(['11:00']);
        const closed = await book(site, { start_date: '2030-01-14', start_time: '10:00' });
        expect(closed.statusCode).toBe(422);
        expect(closed.json().error.details).toHaveProperty('start_date');
        expect((await book(site, { start_date: '2030-01-15', start_time: '13:00' })).statusCode).toBe(422);
        expect((await book(site, { start_date: '2030-01-15', start_time: '11:00' })).statusCode).toBe(201);
      } finally {
        await call('PUT', '/schedule', DEFAULT_SITE_SCHEDULE);
      }
    });
  });

  describe('suggestions with their agents', () => {
    it('for any, name for each suggested start an agent free then', async () => {
      const site = await newSite(t.db);
      const second = await addAgent(t.db, site);
      await bookedAt(site, site.agentId, '2030-01-07T09:00:00.000Z', '2030-01-07T17:00:00.000Z');
      await bookedAt(site, second, '2030-01-07T09:00:00.000Z', '2030-01-07T12:00:00.000Z');
      const res = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: 'any', customer_id: site.customerId, start_date: MONDAY, start_time: '10:00' });
      expect(res.statusCode).toBe(409);
      const { suggestions, available_slots } = res.json().error.details;
      expect(available_slots).toEqual(suggestions.map((s: { start: string }) => s.start));
      expect(suggestions).toHaveLength(10);
      expect(suggestions.slice(0, 2)).toEqual([
        { start: '2030-01-07 12:00', agent_id: second },
        { start: '2030-01-07 12:30', agent_id: second },
      ]);
      // Each is bookable with its agent.
      const [first] = suggestions;
      const taken = await call('POST', '/bookings', {
        service_id: site.serviceId,
        agent_id: first.agent_id,
        customer_id: site.customerId,
        start_date: first.start.slice(0, 10),
        start_time: first.start.slice(11),
      });
      expect(taken.statusCode).toBe(201);
    });
  });

  describe('seats', () => {
    it('attendees take seats of capacity_max; availability shows seats_left; no booking takes more than remain', async () => {
      const site = await newSite(t.db, { capacity_max: 3 });
      const pair = await book(site, { start_time: '10:00', attendees: 2 });
      expect(pair.statusCode).toBe(201);
      expect(pair.json().data.attendees).toBe(2);
      const day = async () => {
        const res = await call('GET', `/availability?service_id=${site.serviceId}&date=${MONDAY}`);
        return res.json().data.days[0].slots as { start_time: string; seats_left?: number }[];
      };
      const slots = await day();
      expect(slots.find((s) => s.start_time === '10:00')?.seats_left).toBe(1);
      expect(slots.find((s) => s.start_time === '09:00')?.seats_left).toBe(3);
      expect(slots.find((s) => s.start_time === '10:30')).toBeUndefined();

      expect((await book(site, { start_time: '10:00', attendees: 2 })).statusCode).toBe(409);
      const tooMany = await book(site, { start_time: '10:00', attendees: 4 });
      expect(tooMany.statusCode).toBe(422);
      expect(tooMany.json().error.details).toHaveProperty('attendees');
      const one = await book(site, { start_time: '10:00' });
      expect(one.statusCode).toBe(201);
      expect(one.json().data.attendees).toBe(1);
      expect((await day()).find((s) => s.start_time === '10:00')).toBeUndefined();

      const resize = (attendees: number) => call('PUT', `/bookings/${pair.json().data.id}`, { attendees });
      expect((await resize(3)).statusCode).toBe(409);
      expect((await resize(1)).json().data.attendees).toBe(1);
      expect((await day()).find((s) => s.start_time === '10:00')?.seats_left).toBe(1);

      const element = { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time: '14:00', attendees: 2 };
      const bulk = await call('POST', '/bookings/bulk', { bookings: [element, element] });
      expect(bulk.json().results.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([[1, 'time_slot_unavailable']]);
    });

    it('shows no seats_left for a service of one seat', async () => {
      const site = await newSite(t.db);
      const res = await call('GET', `/availability?service_id=${site.serviceId}&date=${MONDAY}`);
      expect(res.json().data.days[0].slots[0]).not.toHaveProperty('seats_left');
      expect((await book(site, { start_time: '10:00', attendees: 2 })).statusCode).toBe(422);
    });
  });
});

describe.each(DIALECTS)('DST rules (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);

  it('a break inside the spring-forward gap takes no time: 00:00–02:15 and 02:45–06:00 take a 60-minute 01:30', async () => {
    const site = await newSite(t.db);
    const sunday = [{ start: '00:00', end: '02:15' }, { start: '02:45', end: '06:00' }];
    expect((await call('PUT', `/agents/${site.agentId}/schedule`, { weekly: { sunday } })).statusCode).toBe(200);
    const res = await call('GET', `/availability?service_id=${site.serviceId}&date=2030-03-31&agent_id=${site.agentId}`);
    expect(res.json().data.days[0].slots.map((s: { start_datetime: string }) => s.start_datetime)).toContain('2030-03-31T01:30:00+01:00');
    const booked = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: '2030-03-31', start_time: '01:30' });
    expect(booked.statusCode).toBe(201);
    expect(booked.json().data).toMatchObject({ start_datetime: '2030-03-31T01:30:00+01:00', end_datetime: '2030-03-31T03:30:00+02:00' });
  });
});
