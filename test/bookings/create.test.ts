import { describe, expect, it } from 'vitest';
import { setSettings } from '../../src/modules/settings/service.js';
import { DEFAULT_SITE_SCHEDULE } from '../../src/modules/schedules/model.js';
import { writeSiteSchedule } from '../../src/modules/schedules/repository.js';
import { connectAgent, insertBooking, insertCustomer, insertLocation } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { addAgent, MONDAY, newSite, requester, SATURDAY, TUESDAY, type Site } from './setup.js';

describe.each(DIALECTS)('POST /bookings (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);

  const create = (site: Site, values: Record<string, unknown> = {}) =>
    call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      start_date: MONDAY,
      start_time: '10:00',
      customer_id: site.customerId,
      ...values,
    });

  const outboxOf = (recipient: string) => t.db.selectFrom('outbox').selectAll().where('recipient', '=', recipient).execute();

  it('creates a booking with its order, booking item, open invoice and confirmation mail', async () => {
    const site = await newSite(t.db);
    const res = await create(site, { notes: 'window seat' });
    expect(res.statusCode).toBe(201);
    const body: Json = res.json();
    expect(body.status).toBe('success');
    const data = body.data;
    expect(data).toMatchObject({
      status: 'pending',
      start_date: MONDAY,
      start_time: '10:00',
      end_time: '11:00',
      duration: 60,
      price: '45.00',
      notes: 'window seat',
      start_datetime: '2030-01-07T10:00:00+01:00',
      end_datetime: '2030-01-07T11:00:00+01:00',
      customer: { id: site.customerId },
      agent: { id: site.agentId },
      service: { id: site.serviceId, duration: 60, price: '45.00' },
      location: { id: site.locationId },
    });
    expect(data.booking_code).toMatch(/^[A-Z0-9]{6,}$/);
    expect(data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const row = await t.db.selectFrom('bookings').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
    expect(row.start_at).toBe('2030-01-07T09:00:00.000Z');
    expect(row.end_at).toBe('2030-01-07T10:00:00.000Z');
    expect(row.timezone).toBe('Europe/Berlin');
    const order = await t.db.selectFrom('orders').selectAll().where('id', '=', row.order_id!).executeTakeFirstOrThrow();
    expect(order).toMatchObject({ status: 'open', payment_status: 'not_paid', fulfillment_status: 'not_fulfilled', total_cents: 4500, customer_id: site.customerId });
    const items = await t.db.selectFrom('order_items').selectAll().where('order_id', '=', order.id).execute();
    expect(items).toMatchObject([{ variant: 'booking', booking_id: data.id, total_cents: 4500 }]);
    const invoices = await t.db.selectFrom('invoices').selectAll().where('order_id', '=', order.id).execute();
    expect(invoices).toMatchObject([{ status: 'open', charge_amount_cents: 4500 }]);
    expect(data.order).toMatchObject({ id: order.id, status: 'open', total: '45.00', subtotal: '45.00' });

    const mails = await outboxOf(data.customer.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.kind).toBe('booking_confirmation');
    expect(JSON.parse(mails[0]!.payload)).toMatchObject({ booking_code: data.booking_code, start_date: '2030-01-07', start_time: '10:00', end_time: '11:00' });
  });

  it('writes no mail when send_confirmation is false', async () => {
    const site = await newSite(t.db);
    const res = await create(site, { send_confirmation: false });
    expect(res.statusCode).toBe(201);
    expect(await outboxOf(res.json().data.customer.email)).toEqual([]);
  });

  it('creates the customer from dotted keys or a nested object, without a welcome mail', async () => {
    const site = await newSite(t.db);
    const dotted = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      start_date: MONDAY,
      start_time: '09:00',
      'customer.first_name': 'Ada',
      'customer.last_name': 'Lovelace',
      'customer.email': 'ada@example.test',
      'customer.phone': '+44 20 7946 0000',
    });
    expect(dotted.statusCode).toBe(201);
    expect(dotted.json().data.customer).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', full_name: 'Ada Lovelace', email: 'ada@example.test', phone: '+44 20 7946 0000' });

    const nested = await create(site, {
      customer_id: undefined,
      start_time: '11:00',
      customer: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.test' },
    });
    expect(nested.statusCode).toBe(201);
    const customer = await t.db.selectFrom('customers').selectAll().where('email_lower', '=', 'grace@example.test').executeTakeFirstOrThrow();
    expect(nested.json().data.customer.id).toBe(customer.id);
    expect(customer.customer_code).not.toBe('');
    const kinds = (await outboxOf('grace@example.test')).map((m) => m.kind);
    expect(kinds).toEqual(['booking_confirmation']);
  });

  it('refuses a customer field sent both ways with different values (400 naming it); the same value twice is fine', async () => {
    const site = await newSite(t.db);
    const conflicting = await create(site, {
      customer_id: undefined,
      start_time: '12:00',
      'customer.email': 'one@example.test',
      customer: { first_name: 'Two', last_name: 'Ways', email: 'two@example.test' },
    });
    expect(conflicting.statusCode).toBe(400);
    expect(conflicting.json().error).toMatchObject({ code: 'invalid_request', details: { 'customer.email': expect.any(String) } });
    expect(await t.db.selectFrom('customers').select('id').where('email_lower', 'in', ['one@example.test', 'two@example.test']).execute()).toEqual([]);
    const same = await create(site, {
      customer_id: undefined,
      start_time: '13:00',
      'customer.email': 'Same@Example.test',
      'customer.first_name': 'Same ',
      customer: { first_name: 'Same', last_name: 'Ways', email: 'same@example.test' },
    });
    expect(same.statusCode, same.body).toBe(201);
    const booking = same.json().data;
    const update = await call('PUT', `/bookings/${booking.id}`, { 'customer.first_name': 'Uno', customer: { first_name: 'Dos' } });
    expect(update.statusCode).toBe(400);
    expect(update.json().error.details).toHaveProperty('customer.first_name');
    // A key that may not change customers learns that first.
    const bookingsOnly = await t.key({ permissions: ['bookings:update'] });
    const refused = await t.app.inject({
      method: 'PUT',
      url: `/booking-api/v1/bookings/${booking.id}`,
      headers: { 'x-api-key': bookingsOnly },
      payload: { 'customer.first_name': 'Uno', customer: { first_name: 'Dos' } },
    });
    expect(refused.statusCode).toBe(403);
  });

  it('confirms nothing for a booking created cancelled', async () => {
    const site = await newSite(t.db);
    const res = await create(site, {
      customer_id: undefined,
      status: 'cancelled',
      customer: { first_name: 'Ada', last_name: 'Past', email: 'ada.cancelled@example.test' },
      send_confirmation: true,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.status).toBe('cancelled');
    expect(await outboxOf('ada.cancelled@example.test')).toEqual([]);
  });

  it('ignores the new-customer fields when customer_id is given', async () => {
    const site = await newSite(t.db);
    const res = await create(site, { customer: { first_name: 'Not', last_name: 'Used', email: 'unused@example.test' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.customer.id).toBe(site.customerId);
    expect(await t.db.selectFrom('customers').select('id').where('email_lower', '=', 'unused@example.test').execute()).toEqual([]);
  });

  it('refuses a new customer whose email is taken, whatever its case: 409 email_already_exists', async () => {
    const site = await newSite(t.db);
    const existing = await insertCustomer(t.db, { email: 'Taken@Example.test' });
    const before = await t.db.selectFrom('bookings').select('id').execute();
    const res = await create(site, {
      customer_id: undefined,
      customer: { first_name: 'Dup', last_name: 'Licate', email: 'taken@example.TEST' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'email_already_exists',
      details: { email: 'taken@example.TEST', existing_customer_id: existing },
    });
    expect(await t.db.selectFrom('bookings').select('id').execute()).toHaveLength(before.length);
  });

  it('takes the agent’s custom duration and price, else the service’s charge amount, else its minimum price', async () => {
    const site = await newSite(t.db, { duration: 45, charge_amount_cents: 0 });
    await t.db.updateTable('services').set({ price_min_cents: 3000 }).where('id', '=', site.serviceId).execute();
    const plain = await create(site, { start_time: '09:00' });
    expect(plain.json().data).toMatchObject({ duration: 45, end_time: '09:45', price: '30.00' });

    await t.db.updateTable('services').set({ charge_amount_cents: 4000 }).where('id', '=', site.serviceId).execute();
    expect((await create(site, { start_time: '10:00' })).json().data.price).toBe('40.00');

    await t.db
      .updateTable('agent_services')
      .set({ custom_duration: 90, custom_price_cents: 7550 })
      .where('agent_id', '=', site.agentId)
      .execute();
    const custom = await create(site, { start_time: '11:00' });
    expect(custom.json().data).toMatchObject({ duration: 90, end_time: '12:30', price: '75.50' });

    const given = await create(site, { start_time: '13:00', duration: 20, price: '12.5' });
    expect(given.json().data).toMatchObject({ duration: 20, end_time: '13:20', price: '12.50', status: 'pending' });
    const approved = await create(site, { start_time: '14:00', status: 'approved', price: 10 });
    expect(approved.json().data).toMatchObject({ status: 'approved', price: '10.00' });
  });

  it('without location_id: the agent’s first active location, else the site’s first for an agent tied to none', async () => {
    const site = await newSite(t.db);
    const closed = await insertLocation(t.db, { status: 'inactive' });
    const later = await insertLocation(t.db);
    await connectAgent(t.db, site.agentId, { locationIds: [closed, later] });
    expect((await create(site, { start_time: '09:00' })).json().data.location.id).toBe(Math.min(site.locationId, later));

    const first = await insertLocation(t.db, { order_number: -1 });
    const unbound = await addAgent(t.db, site);
    await t.db.deleteFrom('agent_locations').where('agent_id', '=', unbound).execute();
    const res = await create(site, { agent_id: unbound });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.location.id).toBe(first);

    const onlyClosed = await addAgent(t.db, site);
    await t.db.deleteFrom('agent_locations').where('agent_id', '=', onlyClosed).execute();
    await connectAgent(t.db, onlyClosed, { locationIds: [closed] });
    const refused = await create(site, { agent_id: onlyClosed });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.details).toHaveProperty('location_id');
  });

  it('agent any (or -1) picks the free agent with the fewest bookings that day, ties to the lowest id', async () => {
    const site = await newSite(t.db);
    const second = await addAgent(t.db, site);
    const third = await addAgent(t.db, site);
    const refs = { serviceId: site.serviceId, locationId: site.locationId, customerId: site.customerId };
    // The first agent has two bookings that day, the second one, the third none but is busy at 12:00.
    for (const [agentId, hour] of [
      [site.agentId, 8],
      [site.agentId, 9],
      [second, 13],
    ] as const) {
      await insertBooking(t.db, { ...refs, agentId }, { start_at: `2030-01-07T${String(hour).padStart(2, '0')}:00:00.000Z`, end_at: `2030-01-07T${String(hour + 1).padStart(2, '0')}:00:00.000Z` });
    }
    await insertBooking(t.db, { ...refs, agentId: third }, { start_at: '2030-01-07T11:00:00.000Z', end_at: '2030-01-07T12:00:00.000Z' });

    const at12 = await create(site, { agent_id: 'any', start_time: '12:00' });
    expect(at12.statusCode).toBe(201);
    expect(at12.json().data.agent.id).toBe(second);

    const at16 = await create(site, { agent_id: -1, start_time: '16:00' });
    expect(at16.statusCode).toBe(201);
    // First and second now have two bookings that day, the third one.
    expect(at16.json().data.agent.id).toBe(third);

    // Two each: the lowest id.
    const tie = await create(site, { agent_id: '-1', start_time: '15:00' });
    expect(tie.statusCode).toBe(201);
    expect(tie.json().data.agent.id).toBe(site.agentId);
  });

  it('agent any passes over an agent with no location to take a booking at, as availability does', async () => {
    const site = await newSite(t.db);
    const closed = await insertLocation(t.db, { status: 'inactive' });
    const nowhere = await addAgent(t.db, site);
    await t.db.deleteFrom('agent_locations').where('agent_id', '=', nowhere).execute();
    await connectAgent(t.db, nowhere, { locationIds: [closed] });
    // The agent with a location has a booking that day; the other, with none, would be picked first.
    const refs = { serviceId: site.serviceId, locationId: site.locationId, customerId: site.customerId };
    await insertBooking(t.db, { ...refs, agentId: site.agentId }, { start_at: '2030-01-07T08:00:00.000Z', end_at: '2030-01-07T09:00:00.000Z' });

    const slots = await call('GET', `/availability?service_id=${site.serviceId}&date=${MONDAY}`);
    expect(slots.json().data.days[0].slots.find((s: Json) => s.start_time === '11:00').agent_ids).toEqual([site.agentId]);
    const booked = await create(site, { agent_id: 'any', start_time: '11:00' });
    expect(booked.statusCode, booked.body).toBe(201);
    expect(booked.json().data).toMatchObject({ agent: { id: site.agentId }, location: { id: site.locationId } });

    const bulk = await call('POST', '/bookings/bulk', {
      bookings: [{ service_id: site.serviceId, agent_id: 'any', start_date: MONDAY, start_time: '13:00', customer_id: site.customerId }],
    });
    expect(bulk.statusCode, bulk.body).toBe(201);
    expect(bulk.json().results.success[0].data.agent.id).toBe(site.agentId);
  });

  it('agent any: 409 when every agent who works then is busy, 422 when none works then', async () => {
    const site = await newSite(t.db);
    const second = await addAgent(t.db, site);
    expect((await create(site, { agent_id: site.agentId, start_time: '10:00' })).statusCode).toBe(201);
    expect((await create(site, { agent_id: second, start_time: '10:00' })).statusCode).toBe(201);
    const busy = await create(site, { agent_id: 'any', start_time: '10:30' });
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error.code).toBe('time_slot_unavailable');
    expect(busy.json().error.details.available_slots.length).toBeGreaterThan(0);

    const nobody = await create(site, { agent_id: 'any', start_time: '19:00' });
    expect(nobody.statusCode).toBe(422);
    expect(nobody.json().error.code).toBe('validation_failed');

    const otherLocation = await insertLocation(t.db);
    const nowhere = await create(site, { agent_id: 'any', location_id: otherLocation });
    expect(nowhere.statusCode).toBe(422);
    expect(nowhere.json().error.details).toHaveProperty('agent_id');
  });

  it('refuses an overlap with time_slot_unavailable and its details; touching bookings are fine', async () => {
    const site = await newSite(t.db);
    const first = await create(site, { start_time: '10:10' });
    expect(first.statusCode).toBe(201);
    const res = await create(site, { start_time: '10:40' });
    expect(res.statusCode).toBe(409);
    const error = res.json().error;
    expect(error.code).toBe('time_slot_unavailable');
    expect(error.details).toMatchObject({ requested_time: '2030-01-07 10:40', agent_id: site.agentId, conflicting_booking_id: first.json().data.id });
    expect(error.details.available_slots).toEqual([
      '2030-01-07 09:00',
      '2030-01-07 11:30',
      '2030-01-07 12:00',
      '2030-01-07 12:30',
      '2030-01-07 13:00',
      '2030-01-07 13:30',
      '2030-01-07 14:00',
      '2030-01-07 14:30',
      '2030-01-07 15:00',
      '2030-01-07 15:30',
    ]);
    expect((await create(site, { start_time: '09:10' })).statusCode).toBe(201);
    expect((await create(site, { start_time: '11:10' })).statusCode).toBe(201);
  });

  it('suggests no local time the clocks show twice a second time: its text books the first', async () => {
    const own = requester(t);
    const site = await newSite(t.db);
    const night = { weekly: { sunday: [{ start: '00:00', end: '06:00' }] }, exceptions: [] };
    expect((await own('PUT', `/agents/${site.agentId}/schedule`, night)).statusCode).toBe(200);
    const sunday = { start_date: '2030-10-27', start_time: '02:00' };
    const first = await create(site, sunday);
    expect(first.json().data.start_datetime).toBe('2030-10-27T02:00:00+02:00');
    const taken = await create(site, sunday);
    expect(taken.statusCode).toBe(409);
    // 02:00 and 02:30 after the change (+01:00) are free, but "02:00" and "02:30" name the first ones.
    expect(taken.json().error.details.available_slots).toEqual([
      '2030-10-27 00:00',
      '2030-10-27 00:30',
      '2030-10-27 01:00',
      '2030-10-27 03:00',
      '2030-10-27 03:30',
      '2030-10-27 04:00',
      '2030-10-27 04:30',
      '2030-10-27 05:00',
      '2030-11-03 00:00',
      '2030-11-03 00:30',
    ]);
  });

  it('cancelled bookings free their time, and a booking created cancelled takes none', async () => {
    const site = await newSite(t.db);
    await insertBooking(
      t.db,
      { serviceId: site.serviceId, agentId: site.agentId, locationId: site.locationId, customerId: site.customerId },
      { status: 'cancelled', start_at: '2030-01-07T09:00:00.000Z', end_at: '2030-01-07T10:00:00.000Z' },
    );
    expect((await create(site, { status: 'cancelled' })).statusCode).toBe(201);
    const live = await create(site);
    expect(live.statusCode).toBe(201);
    expect((await create(site, { status: 'cancelled' })).statusCode).toBe(201);
    expect((await create(site)).statusCode).toBe(409);
  });

  it('lets capacity_max bookings of a group service share one start, and no more', async () => {
    const site = await newSite(t.db, { capacity_max: 3 });
    for (let i = 0; i < 3; i++) expect((await create(site)).statusCode).toBe(201);
    expect((await create(site)).statusCode).toBe(409);
    // Another start that overlaps the group is a conflict, not a share.
    expect((await create(site, { start_time: '10:30' })).statusCode).toBe(409);
    // So is another service at the group's start.
    const other = await newSite(t.db);
    await connectAgent(t.db, site.agentId, { serviceIds: [other.serviceId] });
    const res = await create(site, { service_id: other.serviceId, start_time: '10:00' });
    expect(res.statusCode).toBe(409);
  });

  it.each([
    ['a past date', { start_date: '2020-01-06' }, 'start_date'],
    ['a time outside working hours', { start_time: '16:30' }, 'start_time'],
    ['a time before opening', { start_time: '08:00' }, 'start_time'],
    ['a day off', { start_date: SATURDAY }, 'start_date'],
    ['a local time the DST change skips', { start_date: '2030-03-31', start_time: '02:30' }, 'start_time'],
  ])('refuses %s with 422 validation_failed', async (_name, values, field) => {
    const site = await newSite(t.db);
    const res = await create(site, values);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('validation_failed');
    expect(res.json().error.details).toHaveProperty(field);
  });

  it('refuses an inactive agent, an agent without the service or location, a disabled service or an inactive location (422)', async () => {
    const site = await newSite(t.db);
    const expect422 = async (values: Record<string, unknown>, field: string) => {
      const res = await create(site, values);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_failed' });
      expect(res.json().error.details).toHaveProperty(field);
    };
    const unconnected = await addAgent(t.db, site);
    await t.db.deleteFrom('agent_services').where('agent_id', '=', unconnected).execute();
    await expect422({ agent_id: unconnected }, 'agent_id');
    const elsewhere = await insertLocation(t.db);
    await expect422({ location_id: elsewhere }, 'location_id');
    const inactive = await addAgent(t.db, site, { status: 'disabled' });
    await expect422({ agent_id: inactive }, 'agent_id');
    const closed = await insertLocation(t.db, { status: 'inactive' });
    await connectAgent(t.db, site.agentId, { locationIds: [closed] });
    await expect422({ location_id: closed }, 'location_id');
    await t.db.updateTable('services').set({ status: 'disabled' }).where('id', '=', site.serviceId).execute();
    await expect422({}, 'service_id');
  });

  it('refuses a start inside the lead time', async () => {
    const site = await newSite(t.db);
    await setSettings(t.db, { min_lead_minutes: 525600 });
    try {
      const res = await create(site, { start_date: '2027-01-04' });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.details.start_time).toMatch(/525600 minutes/);
    } finally {
      await setSettings(t.db, { min_lead_minutes: 0 });
    }
  });

  it.each([
    ['an unknown service', { service_id: 999999 }, 'service_id'],
    ['an unknown agent', { agent_id: 999999 }, 'agent_id'],
    ['an unknown location', { location_id: 999999 }, 'location_id'],
    ['an unknown customer', { customer_id: 999999 }, 'customer_id'],
    ['agent id 0', { agent_id: 0 }, 'agent_id'],
    ['a missing service', { service_id: undefined }, 'service_id'],
    ['a malformed time', { start_time: '9:00' }, 'start_time'],
    ['a date that does not exist', { start_date: '2030-02-30' }, 'start_date'],
    ['an unknown status', { status: 'completed' }, 'status'],
    ['a price that is not an amount', { price: 'cheap' }, 'price'],
    ['no customer at all', { customer_id: undefined }, 'customer.email'],
  ])('refuses %s with 400 invalid_request', async (_name, values, field) => {
    const site = await newSite(t.db);
    const res = await create(site, values);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.details).toHaveProperty(field);
  });

  it('refuses new-customer fields that POST /customers would refuse, with 422 validation_failed and nothing written', async () => {
    const site = await newSite(t.db);
    const res = await create(site, {
      customer_id: undefined,
      customer: { first_name: 'A', last_name: 'B2', email: 'not-an-email', phone: '12' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'validation_failed',
      details: {
        'customer.first_name': expect.stringContaining('2 to 50'),
        'customer.last_name': expect.stringContaining('letters'),
        'customer.email': expect.any(String),
        'customer.phone': expect.any(String),
      },
    });
    const dotted = await create(site, { customer_id: undefined, 'customer.first_name': 'Al', 'customer.last_name': 'X', 'customer.email': 'al@example.test' });
    expect(dotted.statusCode).toBe(422);
    expect(Object.keys(dotted.json().error.details)).toEqual(['customer.last_name']);
    expect(await t.db.selectFrom('bookings').select('id').where('agent_id', '=', site.agentId).execute()).toEqual([]);
  });

  it('uses the agent’s own hours and exceptions within the site’s exceptions, and custom service hours', async () => {
    const site = await newSite(t.db);
    await writeSiteSchedule(t.db, {
      weekly: { monday: [{ start: '09:00', end: '17:00' }], tuesday: [{ start: '09:00', end: '17:00' }], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] },
      exceptions: [{ date: TUESDAY, periods: [{ start: '12:00', end: '14:00' }] }],
    });
    try {
      expect((await create(site, { start_date: TUESDAY, start_time: '10:00' })).statusCode).toBe(422);
      expect((await create(site, { start_date: TUESDAY, start_time: '12:00' })).statusCode).toBe(201);

      const own = await addAgent(t.db, site, {
        schedule: JSON.stringify({
          weekly: { monday: [], tuesday: [{ start: '07:00', end: '09:00' }], wednesday: [], thursday: [], friday: [], saturday: [{ start: '10:00', end: '12:00' }], sunday: [] },
          exceptions: [{ date: '2030-01-19', periods: [] }],
        }),
      });
      // Own weekly hours, within the site's exception (issue 24: a site exception binds every agent).
      expect((await create(site, { agent_id: own, start_date: TUESDAY, start_time: '07:30' })).statusCode).toBe(422);
      expect((await create(site, { agent_id: own, start_date: TUESDAY, start_time: '12:00' })).statusCode).toBe(422);
      expect((await create(site, { agent_id: own, start_date: SATURDAY, start_time: '10:00' })).statusCode).toBe(201);
      expect((await create(site, { agent_id: own, start_date: '2030-01-19', start_time: '10:00' })).statusCode).toBe(422);

      await t.db
        .updateTable('agent_services')
        .set({ custom_hours: JSON.stringify({ monday: [{ start: '15:00', end: '20:00' }] }) })
        .where('agent_id', '=', site.agentId)
        .execute();
      expect((await create(site, { start_time: '11:00' })).statusCode).toBe(422);
      expect((await create(site, { start_time: '15:00' })).statusCode).toBe(201);
      // 16:30 + 60 min leaves the agent's 17:00 hours even though the service hours run on.
      expect((await create(site, { start_time: '16:30' })).statusCode).toBe(422);
    } finally {
      await writeSiteSchedule(t.db, DEFAULT_SITE_SCHEDULE);
    }
  });

  it('stores booking metadata', async () => {
    const site = await newSite(t.db);
    const res = await create(site, { meta: { source: 'kiosk', campaign: 'winter' } });
    expect(res.json().data.meta).toEqual({ campaign: 'winter', source: 'kiosk' });
  });

  it('needs bookings:create (403 forbidden)', async () => {
    const site = await newSite(t.db);
    const key = await t.key({ permissions: ['bookings:read'] });
    const res = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId }, key);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
  });
});
