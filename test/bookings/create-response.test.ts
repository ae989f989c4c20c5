import { describe, expect, it } from 'vitest';
import { connectAgent, insertAgent, insertCustomer, insertLocation } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { addAgent, MONDAY, newSite, requester, TUESDAY, type Site } from './setup.js';

/**
 * Creates answer with the booking built from what they wrote, not read back: it must be exactly
 * what GET /bookings/{id} shows, key order included.
 */
describe.each(DIALECTS)('POST /bookings and /bookings/bulk answer as GET /bookings/{id} (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);

  const stored = async (id: number): Promise<Json> => {
    const res = await call('GET', `/bookings/${id}`);
    expect(res.statusCode).toBe(200);
    return res.json().data;
  };

  const expectAsStored = async (data: Json) => {
    const read = await stored(data.id);
    expect(data).toStrictEqual(read);
    expect(JSON.stringify(data)).toBe(JSON.stringify(read));
  };

  /** A site whose location has a category and whose agent has a display name, phone and custom price. */
  const richSite = async (): Promise<Site> => {
    const site = await newSite(t.db);
    const category = await t.db
      .insertInto('location_categories')
      .values({ name: 'Clinics', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db.updateTable('locations').set({ category_id: category.id }).where('id', '=', site.locationId).execute();
    await t.db.updateTable('agents').set({ display_name: 'Dr. Who', phone: '+44 1' }).where('id', '=', site.agentId).execute();
    await t.db.updateTable('agent_services').set({ custom_price_cents: 6150 }).where('agent_id', '=', site.agentId).execute();
    return site;
  };

  it('with an existing customer, a location with a category, notes, metadata and a confirmation', async () => {
    const site = await richSite();
    const res = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      location_id: site.locationId,
      start_date: MONDAY,
      start_time: '10:00',
      customer_id: site.customerId,
      notes: 'window seat',
      meta: { source: 'kiosk', Campaign: 'winter', a_b: 'x', '2': 'two' },
    });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data.location.category).toHaveLength(1);
    expect(data.price).toBe('61.50');
    await expectAsStored(data);
    const mail = await t.db.selectFrom('outbox').select('payload').where('recipient', '=', data.customer.email).executeTakeFirstOrThrow();
    expect(JSON.parse(mail.payload)).toMatchObject({ booking_id: data.id, agent_name: data.agent.full_name, location_name: data.location.name });
  });

  it('with a new customer, without a location, for any agent, and created cancelled', async () => {
    const site = await newSite(t.db);
    await addAgent(t.db, site);
    const nested = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: 'any',
      start_date: MONDAY,
      start_time: '11:00',
      customer: { first_name: ' Ada ', last_name: 'Lovelace', email: 'Ada.Response@Example.test', phone: '+44 20 7946 0000' },
      price: '12.5',
      duration: 30,
    });
    expect(nested.statusCode).toBe(201);
    expect(nested.json().data.customer.first_name).toBe('Ada');
    await expectAsStored(nested.json().data);

    const cancelled = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      start_date: TUESDAY,
      start_time: '09:00',
      customer_id: site.customerId,
      status: 'cancelled',
      send_confirmation: false,
    });
    expect(cancelled.statusCode).toBe(201);
    await expectAsStored(cancelled.json().data);
  });

  it('for an agent tied to no location: the site’s first', async () => {
    const site = await newSite(t.db);
    const unbound = await insertAgent(t.db);
    await connectAgent(t.db, unbound, { serviceIds: [site.serviceId] });
    await insertLocation(t.db, { order_number: -5 });
    const res = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: unbound, start_date: MONDAY, start_time: '12:00', customer_id: site.customerId });
    expect(res.statusCode).toBe(201);
    await expectAsStored(res.json().data);
  });

  it('bulk: each created booking and its confirmation show what GET /bookings/{id} shows', async () => {
    const site = await richSite();
    const other = await newSite(t.db);
    const customerWithoutEmail = await insertCustomer(t.db, { email: null });
    const elements = [
      { service_id: site.serviceId, agent_id: site.agentId, location_id: site.locationId, start_date: MONDAY, start_time: '09:00', customer_id: site.customerId, meta: { b: '2', a: '1' } },
      { service_id: other.serviceId, agent_id: 'any', start_date: MONDAY, start_time: '09:00', customer: { first_name: 'Bulk', last_name: 'New', email: 'bulk.new@example.test' } },
      { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '09:30', customer_id: site.customerId },
      { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '11:00', customer_id: customerWithoutEmail, notes: 'no mail' },
    ];
    const res = await call('POST', '/bookings/bulk', { bookings: elements, send_confirmation: true });
    expect(res.statusCode).toBe(207);
    const body: Json = res.json();
    expect(body.results.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([[2, 'time_slot_unavailable']]);
    expect(body.results.success.map((s: { index: number; confirmation_sent: boolean }) => [s.index, s.confirmation_sent])).toEqual([
      [0, true],
      [1, true],
      [3, false],
    ]);
    for (const success of body.results.success) {
      const read = await stored(success.booking_id);
      expect(success.data).toStrictEqual({
        id: read.id,
        booking_code: read.booking_code,
        service: { id: read.service.id, name: read.service.name },
        agent: { id: read.agent.id, full_name: read.agent.full_name },
        customer: { id: read.customer.id, full_name: read.customer.full_name, email: read.customer.email },
        start_date: read.start_date,
        start_time: read.start_time,
        status: read.status,
      });
      const mails = await t.db.selectFrom('outbox').select('payload').where('kind', '=', 'booking_confirmation').execute();
      const mail = mails.map((m): Json => JSON.parse(m.payload)).find((p) => p.booking_id === read.id);
      if (read.customer.email === null) {
        expect(mail).toBeUndefined();
      } else {
        expect(mail).toEqual({
          booking_id: read.id,
          booking_code: read.booking_code,
          status: read.status,
          customer_name: read.customer.full_name,
          service_name: read.service_name,
          agent_name: read.agent.full_name,
          recipient_name: read.customer.full_name,
          location_name: read.location.name,
          location_address: read.location.full_address,
          start_date: read.start_date,
          start_time: read.start_time,
          end_time: read.end_time,
          timezone: read.timezone,
          starts_at: new Date(read.start_datetime).toISOString(),
          ends_at: new Date(read.end_datetime).toISOString(),
          price: read.price,
          currency: 'USD',
          manage_link_version: 1,
          manage_role: 'customer',
          calendar_sequence: 0,
        });
      }
    }
    expect((await stored(body.results.success[0].booking_id)).meta).toEqual({ a: '1', b: '2' });
  });
});
