import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { AvailabilityResponse } from '../../src/modules/availability/schemas.js';
import { setSettings } from '../../src/modules/settings/service.js';
import { connectAgent, insertBooking, insertLocation } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { addAgent, MONDAY, newSite, requester, type Site } from '../bookings/setup.js';

describe.each(DIALECTS)('GET /availability (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);

  async function availability(query: string, key?: string): Promise<Json> {
    const res = await call('GET', `/availability?${query}`, undefined, key);
    expect(res.statusCode).toBe(200);
    return res.json();
  }
  const startsOf = (day: Json): string[] => (day.slots as { start_time: string }[]).map((s) => s.start_time);
  const booked = (site: Site, agentId: number, startUtc: string, endUtc: string, values: Parameters<typeof insertBooking>[2] = {}) =>
    insertBooking(t.db, { serviceId: site.serviceId, agentId, locationId: site.locationId, customerId: site.customerId }, { start_at: startUtc, end_at: endUtc, ...values });

  it('answers one day in envelope B with the free slots of every agent', async () => {
    const site = await newSite(t.db);
    const second = await addAgent(t.db, site);
    await booked(site, site.agentId, '2030-01-07T09:00:00.000Z', '2030-01-07T10:00:00.000Z');
    const body = await availability(`service_id=${site.serviceId}&date=${MONDAY}`);
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({ timezone: 'Europe/Berlin', service_id: site.serviceId, duration: 60 });
    const [day] = body.data.days;
    expect(day.date).toBe(MONDAY);
    expect(day.slots[0]).toEqual({ start_time: '09:00', end_time: '10:00', start_datetime: '2030-01-07T09:00:00+01:00', agent_ids: [site.agentId, second] });
    // 10:00 Berlin is booked for the first agent: 09:30, 10:00 and 10:30 are the second's alone.
    const only = (day.slots as { start_time: string; agent_ids: number[] }[]).filter((s) => s.agent_ids.length === 1).map((s) => s.start_time);
    expect(only).toEqual(['09:30', '10:00', '10:30']);
    expect(startsOf(day)).toHaveLength(15);
    expect(startsOf(day).at(-1)).toBe('16:00');
  });

  it('a working period may end at 24:00: the last hour of the day is offered and bookable, nothing past midnight', async () => {
    const site = await newSite(t.db);
    const hours = await call('PUT', `/agents/${site.agentId}/schedule`, { weekly: { monday: [{ start: '21:00', end: '24:00' }] } });
    expect(hours.statusCode).toBe(200);
    expect(hours.json().data.weekly.monday).toEqual([{ start: '21:00', end: '24:00' }]);
    const [day] = (await availability(`service_id=${site.serviceId}&agent_id=${site.agentId}&date=${MONDAY}`)).data.days;
    expect(startsOf(day)).toEqual(['21:00', '21:30', '22:00', '22:30', '23:00']);
    expect(day.slots.at(-1)).toMatchObject({ end_time: '00:00', start_datetime: '2030-01-07T23:00:00+01:00' });

    const book = (start_time: string) =>
      call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time });
    expect((await book('23:30')).statusCode).toBe(422);
    const last = await book('23:00');
    expect(last.statusCode).toBe(201);
    expect(last.json().data).toMatchObject({ end_date: '2030-01-08', end_time: '00:00', end_datetime: '2030-01-08T00:00:00+01:00' });

    const past = await call('PUT', `/agents/${site.agentId}/schedule`, { weekly: { monday: [{ start: '21:00', end: '24:01' }] } });
    expect(past.statusCode).toBe(422);
    expect(past.json().error.details).toEqual({ 'weekly.monday.0.end': 'must be a time HH:MM from 00:00 to 24:00' });
  });

  it('writes its body exactly as JSON.stringify would, in the shape of its response schema', async () => {
    const site = await newSite(t.db);
    await addAgent(t.db, site);
    await booked(site, site.agentId, '2030-01-07T09:00:00.000Z', '2030-01-07T10:00:00.000Z');
    const res = await call('GET', `/availability?service_id=${site.serviceId}&date_from=${MONDAY}&date_to=2030-01-13`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body: unknown = JSON.parse(res.body);
    expect(res.body).toBe(JSON.stringify(body));
    expect(Value.Check(AvailabilityResponse, body)).toBe(true);
    expect(Value.Clean(AvailabilityResponse, structuredClone(body))).toEqual(body);
  });

  it('answers a range day by day, days off included, and narrows to one agent, a location or a duration', async () => {
    const site = await newSite(t.db);
    const second = await addAgent(t.db, site);
    const body = await availability(`service_id=${site.serviceId}&date_from=2030-01-11&date_to=2030-01-14&agent_id=${second}`);
    expect(body.data.days.map((d: { date: string; slots: unknown[] }) => [d.date, d.slots.length])).toEqual([
      ['2030-01-11', 15],
      ['2030-01-12', 0],
      ['2030-01-13', 0],
      ['2030-01-14', 15],
    ]);
    expect(body.data.days[0].slots.every((s: Json) => s.agent_ids.length === 1 && s.agent_ids[0] === second)).toBe(true);

    const elsewhere = await insertLocation(t.db);
    await connectAgent(t.db, second, { locationIds: [elsewhere] });
    const atLocation = await availability(`service_id=${site.serviceId}&date=${MONDAY}&location_id=${elsewhere}&agent_id=any`);
    expect(atLocation.data.days[0].slots[0].agent_ids).toEqual([second]);

    const long = await availability(`service_id=${site.serviceId}&date=${MONDAY}&duration=240&agent_id=-1`);
    expect(long.data.duration).toBe(240);
    expect(startsOf(long.data.days[0])).toEqual(['09:00', '09:30', '10:00', '10:30', '11:00', '11:30', '12:00', '12:30', '13:00']);
    expect(long.data.days[0].slots[0].end_time).toBe('13:00');
  });

  it('keeps a group slot open until capacity_max bookings share it', async () => {
    const site = await newSite(t.db, { capacity_max: 2 });
    await booked(site, site.agentId, '2030-01-07T09:00:00.000Z', '2030-01-07T10:00:00.000Z');
    expect(startsOf((await availability(`service_id=${site.serviceId}&date=${MONDAY}`)).data.days[0])).toContain('10:00');
    await booked(site, site.agentId, '2030-01-07T09:00:00.000Z', '2030-01-07T10:00:00.000Z');
    const starts = startsOf((await availability(`service_id=${site.serviceId}&date=${MONDAY}`)).data.days[0]);
    expect(starts).not.toContain('10:00');
    expect(starts).not.toContain('09:30');
    expect(starts).toContain('11:00');
  });

  it('ignores cancelled bookings and shows nothing in the past or inside the lead time', async () => {
    const site = await newSite(t.db);
    await booked(site, site.agentId, '2030-01-07T09:00:00.000Z', '2030-01-07T10:00:00.000Z', { status: 'cancelled' });
    expect(startsOf((await availability(`service_id=${site.serviceId}&date=${MONDAY}`)).data.days[0])).toContain('10:00');
    expect((await availability(`service_id=${site.serviceId}&date=2020-01-06`)).data.days[0].slots).toEqual([]);
    await setSettings(t.db, { min_lead_minutes: 525600 });
    try {
      expect((await availability(`service_id=${site.serviceId}&date=2027-01-04`)).data.days[0].slots).toEqual([]);
    } finally {
      await setSettings(t.db, { min_lead_minutes: 0 });
    }
  });

  it('steps slot starts from the start of each working period, also where two periods touch', async () => {
    const site = await newSite(t.db, { duration: 30 });
    const split = await addAgent(t.db, site, {
      schedule: JSON.stringify({
        weekly: { monday: [{ start: '09:00', end: '10:10' }, { start: '10:10', end: '12:00' }], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] },
        exceptions: [],
      }),
    });
    const day = (await availability(`service_id=${site.serviceId}&date=${MONDAY}&agent_id=${split}`)).data.days[0];
    expect(startsOf(day)).toEqual(['09:00', '09:30', '10:00', '10:10', '10:40', '11:10']);
  });

  /** An agent of the site who works Sundays only, from `start` to 05:00 (DST changes happen at night). */
  const sundayNightAgent = (site: Site, start: string) =>
    addAgent(t.db, site, {
      schedule: JSON.stringify({
        weekly: { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [{ start, end: '05:00' }] },
        exceptions: [],
      }),
    });

  it('steps over the DST change of the site zone', async () => {
    const site = await newSite(t.db);
    const night = await sundayNightAgent(site, '00:00');
    await setSettings(t.db, { slot_interval_minutes: 60 });
    try {
      const body = await availability(`service_id=${site.serviceId}&date=2030-03-31&agent_id=${night}`);
      expect(body.data.days[0].slots.map((s: { start_datetime: string }) => s.start_datetime)).toEqual([
        '2030-03-31T00:00:00+01:00',
        '2030-03-31T01:00:00+01:00',
        '2030-03-31T03:00:00+02:00',
        '2030-03-31T04:00:00+02:00',
      ]);
    } finally {
      await setSettings(t.db, { slot_interval_minutes: 30 });
    }
  });

  it('steps through the hour the clocks show twice in elapsed time, offering both occurrences; a booking of that time takes the first', async () => {
    const site = await newSite(t.db);
    const night = await sundayNightAgent(site, '01:00');
    const day = async (): Promise<string[]> => ((await availability(`service_id=${site.serviceId}&date=2030-10-27&agent_id=${night}`)).data.days[0].slots as Json[]).map((s: Json) => s.start_datetime as string);
    // 02:00–03:00 happens twice (+02:00, then +01:00).
    expect(await day()).toEqual([
      '2030-10-27T01:00:00+02:00',
      '2030-10-27T01:30:00+02:00',
      '2030-10-27T02:00:00+02:00',
      '2030-10-27T02:30:00+02:00',
      '2030-10-27T02:00:00+01:00',
      '2030-10-27T02:30:00+01:00',
      '2030-10-27T03:00:00+01:00',
      '2030-10-27T03:30:00+01:00',
      '2030-10-27T04:00:00+01:00',
    ]);
    const booked = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: night, customer_id: site.customerId, start_date: '2030-10-27', start_time: '02:30' });
    expect(booked.statusCode).toBe(201);
    expect(booked.json().data.start_datetime).toBe('2030-10-27T02:30:00+02:00');
    // The hour from the first 02:30 runs to the second: the second 02:30 is still free.
    expect((await day()).filter((start: string) => start.includes('T02:30'))).toEqual(['2030-10-27T02:30:00+01:00']);
  });

  it('answers no slots for a disabled service or an inactive agent', async () => {
    const site = await newSite(t.db);
    const inactive = await addAgent(t.db, site, { status: 'disabled' });
    expect((await availability(`service_id=${site.serviceId}&date=${MONDAY}&agent_id=${inactive}`)).data.days[0].slots).toEqual([]);
    await t.db.updateTable('services').set({ status: 'disabled' }).where('id', '=', site.serviceId).execute();
    expect((await availability(`service_id=${site.serviceId}&date=${MONDAY}`)).data.days[0].slots).toEqual([]);
  });

  it('answers no slots at an inactive location, nor for an agent whose every location is inactive', async () => {
    const site = await newSite(t.db);
    const closed = await insertLocation(t.db, { status: 'inactive' });
    await connectAgent(t.db, site.agentId, { locationIds: [closed] });
    expect((await availability(`service_id=${site.serviceId}&date=${MONDAY}&location_id=${site.locationId}`)).data.days[0].slots).not.toEqual([]);
    expect((await availability(`service_id=${site.serviceId}&date=${MONDAY}&location_id=${closed}`)).data.days[0].slots).toEqual([]);

    await t.db.updateTable('locations').set({ status: 'inactive' }).where('id', '=', site.locationId).execute();
    expect((await availability(`service_id=${site.serviceId}&date=${MONDAY}&agent_id=${site.agentId}`)).data.days[0].slots).toEqual([]);
    expect((await availability(`service_id=${site.serviceId}&date=${MONDAY}`)).data.days[0].slots).toEqual([]);
    // An agent tied to no location works at the site's: there is an active one again.
    await t.db.deleteFrom('agent_locations').where('agent_id', '=', site.agentId).execute();
    await insertLocation(t.db);
    expect((await availability(`service_id=${site.serviceId}&date=${MONDAY}&agent_id=${site.agentId}`)).data.days[0].slots).not.toEqual([]);
  });

  it("names one agent's custom duration for the service, which its slots last", async () => {
    const site = await newSite(t.db);
    await t.db.updateTable('agent_services').set({ custom_duration: 45 }).where('agent_id', '=', site.agentId).execute();
    const one = await availability(`service_id=${site.serviceId}&date=${MONDAY}&agent_id=${site.agentId}`);
    expect(one.data.duration).toBe(45);
    expect(one.data.days[0].slots[0]).toMatchObject({ start_time: '09:00', end_time: '09:45' });
    expect((await availability(`service_id=${site.serviceId}&date=${MONDAY}`)).data.duration).toBe(60);
    expect((await availability(`service_id=${site.serviceId}&date=${MONDAY}&agent_id=${site.agentId}&duration=20`)).data.duration).toBe(20);
  });

  it('refuses a deleted service, agent or location with 400 invalid_request, as one that never existed', async () => {
    const own = requester(t);
    for (const [resource, field] of [
      ['agents', 'agent_id'],
      ['locations', 'location_id'],
      ['services', 'service_id'],
    ] as const) {
      const site = await newSite(t.db);
      const id = { agents: site.agentId, locations: site.locationId, services: site.serviceId }[resource];
      expect((await own('DELETE', `/${resource}/${id}`)).statusCode).toBe(200);
      const query = `service_id=${site.serviceId}&date=${MONDAY}${field === 'service_id' ? '' : `&${field}=${id}`}`;
      const res = await own('GET', `/availability?${query}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', details: { [field]: 'does not exist' } });
      const booking = await own('POST', '/bookings', {
        service_id: site.serviceId,
        agent_id: site.agentId,
        location_id: site.locationId,
        start_date: MONDAY,
        start_time: '10:00',
        customer_id: site.customerId,
      });
      expect(booking.statusCode).toBe(400);
      expect(booking.json().error.details).toHaveProperty(field);
    }
  });

  it('shows the bookings of the last days of year 9999 as busy', async () => {
    const site = await newSite(t.db);
    await t.db.updateTable('agents').set({ schedule: null }).where('id', '=', site.agentId).execute();
    const created = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      start_date: '9999-12-31',
      start_time: '10:00',
      customer_id: site.customerId,
    });
    expect(created.statusCode).toBe(201);
    const day = (await availability(`service_id=${site.serviceId}&date=9999-12-31&agent_id=${site.agentId}`)).data.days[0];
    expect(startsOf(day)).not.toContain('10:00');
    expect(startsOf(day)).toContain('11:00');
  });

  it('accepts a range of 62 days, both ends counted', async () => {
    const site = await newSite(t.db);
    const body = await availability(`service_id=${site.serviceId}&date_from=2030-01-01&date_to=2030-03-03`);
    expect(body.data.days).toHaveLength(62);
  });

  it.each([
    ['a range over 62 days', 'date_from=2030-01-01&date_to=2030-03-04', 'date_to'],
    ['a range of thousands of years', 'date_from=0001-01-01&date_to=9999-12-31', 'date_to'],
    ['no date', '', 'date_from'],
    ['only date_from', 'date_from=2030-01-01', 'date_to'],
    ['a range ending before it starts', 'date_from=2030-01-05&date_to=2030-01-04', 'date_to'],
    ['both forms, date and a range', 'date=2030-01-07&date_from=2030-01-01&date_to=2030-12-31', 'date'],
    ['a date that does not exist', 'date=2030-02-30', 'date'],
    ['a malformed date', 'date=tomorrow', 'date'],
    ['an unknown service', 'date=2030-01-07&service_id=999999', 'service_id'],
    ['an unknown agent', 'date=2030-01-07&agent_id=999999', 'agent_id'],
    ['an unknown location', 'date=2030-01-07&location_id=999999', 'location_id'],
    ['a zero duration', 'date=2030-01-07&duration=0', 'duration'],
  ])('refuses %s with 400 invalid_request', async (_name, query, field) => {
    const site = await newSite(t.db);
    const res = await call('GET', `/availability?service_id=${site.serviceId}&${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.details).toHaveProperty(field);
  });

  it('refuses a missing service_id, and needs availability:read', async () => {
    const res = await call('GET', `/availability?date=${MONDAY}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toHaveProperty('service_id');
    const site = await newSite(t.db);
    const key = await t.key({ permissions: ['bookings:read'] });
    expect((await call('GET', `/availability?service_id=${site.serviceId}&date=${MONDAY}`, undefined, key)).statusCode).toBe(403);
    const allowed = await t.key({ permissions: ['availability:read'] });
    await availability(`service_id=${site.serviceId}&date=${MONDAY}`, allowed);
  });
});
