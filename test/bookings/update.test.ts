import { describe, expect, it } from 'vitest';
import type { BookingStatus } from '../../src/modules/bookings/table.js';
import { setSettings } from '../../src/modules/settings/service.js';
import { connectAgent, insertCustomer, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { addAgent, MONDAY, newSite, requester, TUESDAY, type Site } from './setup.js';

describe.each(DIALECTS)('GET, PUT and DELETE /bookings/{id} (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'America/New_York', PUBLIC_URL: 'https://book.example.test/' });
  const call = requester(t);

  async function book(site: Site, values: Record<string, unknown> = {}): Promise<Json> {
    const res = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      start_date: MONDAY,
      start_time: '10:00',
      customer_id: site.customerId,
      send_confirmation: false,
      ...values,
    });
    expect(res.statusCode).toBe(201);
    return res.json().data;
  }

  /** A booking in the given status: created as pending, approved or cancelled, or moved there in the database. */
  async function bookIn(site: Site, status: BookingStatus, values: Record<string, unknown> = {}): Promise<Json> {
    const created = await book(site, { ...values, status: status === 'pending' || status === 'cancelled' ? status : 'approved' });
    if (status === 'completed' || status === 'no_show') await t.db.updateTable('bookings').set({ status }).where('id', '=', created.id).execute();
    return created;
  }

  const put = (id: number, payload: object, key?: string) => call('PUT', `/bookings/${id}`, payload, key);
  const changeMails = (bookingId: number, kind: 'booking_change' | 'booking_cancellation' = 'booking_change') =>
    t.db
      .selectFrom('outbox')
      .selectAll()
      .where('kind', '=', kind)
      .execute()
      .then((rows) => rows.filter((r) => (JSON.parse(r.payload) as { booking_id: number }).booking_id === bookingId));

  describe('GET', () => {
    it('answers every documented field in envelope A with success: true', async () => {
      const site = await newSite(t.db);
      const category = await t.db
        .insertInto('location_categories')
        .values({ name: 'Downtown', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await t.db.updateTable('locations').set({ category_id: category.id }).where('id', '=', site.locationId).execute();
      const created = await book(site, { notes: 'n', meta: { k: 'v' } });
      await t.db
        .insertInto('transactions')
        .values({
          order_id: created.order.id,
          booking_id: created.id,
          invoice_id: null,
          customer_id: site.customerId,
          processor: 'manual',
          payment_method: 'cash',
          payment_portion: 'full',
          kind: 'capture',
          amount_cents: 1000,
          status: 'succeeded',
          token: null,
          notes: null,
          receipt_number: null,
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: '2026-01-01T00:00:00.000Z',
        })
        .execute();

      const res = await call('GET', `/bookings/${created.id}`);
      expect(res.statusCode).toBe(200);
      const body: Json = res.json();
      expect(body.status).toBe('success');
      expect(body.success).toBe(true);
      const data = body.data;
      expect(data).toMatchObject({
        id: created.id,
        status: 'pending',
        start_date: MONDAY,
        start_time: '10:00',
        end_time: '11:00',
        start_datetime: '2030-01-07T10:00:00-05:00',
        end_datetime: '2030-01-07T11:00:00-05:00',
        timezone: 'America/New_York',
        duration: 60,
        price: '45.00',
        currency: 'USD',
        payment_status: 'not_paid',
        notes: 'n',
        customer_comment: null,
        service_extras: [],
        meta: { k: 'v' },
        location: { id: site.locationId, category: [{ id: category.id, name: 'Downtown' }] },
        transactions: [{ amount: '10.00', status: 'succeeded', processor: 'manual', booking_id: created.id }],
      });
      expect(data.service_name).toBe(data.service.name);
      expect(Object.keys(data.agent).sort()).toEqual(['display_name', 'email', 'full_name', 'id', 'phone']);
      expect(Object.keys(data.customer).sort()).toEqual(['email', 'first_name', 'full_name', 'id', 'last_name', 'phone']);
      expect(Object.keys(data.order).sort()).toEqual(
        ['confirmation_code', 'created_datetime', 'currency', 'customer_comment', 'fulfillment_status', 'id', 'payment_status', 'source_id', 'source_url', 'status', 'subtotal', 'total'].sort(),
      );
      expect(data.created_datetime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-0[45]:00$/);
      const agentKey = t.app.manageLinks.key('agent', { id: created.id, manage_link_version: 1 });
      expect(data.manage_booking_for_agent).toBe(`https://book.example.test/manage-booking/${data.booking_code}?role=agent&key=${agentKey}`);
      expect(data.manage_booking_for_customer).toMatch(new RegExp(`^https://book\\.example\\.test/manage-booking/${data.booking_code}\\?role=customer&key=[\\w-]{32}$`));
      expect(data.manage_booking_for_customer).not.toContain(agentKey);
    });

    it('shows the manage links, which can cancel, only to a key that may change bookings', async () => {
      const site = await newSite(t.db);
      const made = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId }, await t.key());
      const created = made.json().data;
      const reader = await call('GET', `/bookings/${created.id}`, undefined, await t.key({ permissions: ['bookings:read'] }));
      expect(reader.statusCode).toBe(200);
      expect(reader.json().data).toMatchObject({ id: created.id, manage_booking_for_agent: null, manage_booking_for_customer: null });
      const editor = await call('GET', `/bookings/${created.id}`, undefined, await t.key({ permissions: ['bookings:read', 'bookings:update'] }));
      expect(editor.json().data.manage_booking_for_agent).toBe(created.manage_booking_for_agent);
      expect(editor.json().data.manage_booking_for_customer).toBe(created.manage_booking_for_customer);

      // Nor does a key that may only create bookings get them with the booking it creates.
      const creator = await call(
        'POST',
        '/bookings',
        { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '12:00', customer_id: site.customerId },
        await t.key({ permissions: ['bookings:create'] }),
      );
      expect(creator.statusCode).toBe(201);
      expect(creator.json().data).toMatchObject({ status: 'pending', manage_booking_for_agent: null, manage_booking_for_customer: null });
      expect(created.manage_booking_for_agent).toMatch(/role=agent&key=/);
    });

    it('answers 404 booking_not_found and 400 invalid_request for a malformed id', async () => {
      const missing = await call('GET', '/bookings/999999');
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('booking_not_found');
      const malformed = await call('GET', '/bookings/abc');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().error).toMatchObject({ code: 'invalid_request', details: { id: expect.any(String) } });
    });
  });

  describe('status transitions', () => {
    const valid: [BookingStatus, BookingStatus][] = [
      ['pending', 'approved'],
      ['pending', 'cancelled'],
      ['approved', 'completed'],
      ['approved', 'cancelled'],
      ['approved', 'no_show'],
      ['cancelled', 'pending'],
      ['cancelled', 'approved'],
      ['completed', 'cancelled'],
      ['no_show', 'approved'],
      ['no_show', 'cancelled'],
    ];
    it.each(valid)('%s → %s, with a change mail (a cancellation for cancelled) when send_notification is true', async (from, to) => {
      const site = await newSite(t.db);
      const booking = await bookIn(site, from);
      const res = await put(booking.id, { status: to, send_notification: true });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.status).toBe(to);
      const row = await t.db.selectFrom('bookings').select('status').where('id', '=', booking.id).executeTakeFirstOrThrow();
      expect(row.status).toBe(to);
      const mails = await changeMails(booking.id, to === 'cancelled' ? 'booking_cancellation' : 'booking_change');
      expect(mails).toHaveLength(1);
      expect(JSON.parse(mails[0]!.payload)).toMatchObject({ status: to });
    });

    const invalid: [BookingStatus, BookingStatus][] = [
      ['pending', 'completed'],
      ['pending', 'no_show'],
      ['approved', 'pending'],
      ['cancelled', 'completed'],
      ['cancelled', 'no_show'],
      ['completed', 'approved'],
      ['completed', 'pending'],
      ['completed', 'no_show'],
      ['no_show', 'pending'],
      ['no_show', 'completed'],
    ];
    it.each(invalid)('%s → %s is refused with 422 validation_failed', async (from, to) => {
      const site = await newSite(t.db);
      const booking = await bookIn(site, from);
      const res = await put(booking.id, { status: to, send_notification: true });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { status: expect.stringContaining(from) } });
      const row = await t.db.selectFrom('bookings').select('status').where('id', '=', booking.id).executeTakeFirstOrThrow();
      expect(row.status).toBe(from);
      expect(await changeMails(booking.id)).toEqual([]);
    });

    it('completed → cancelled needs bookings:manage_completed (403 forbidden without it)', async () => {
      const site = await newSite(t.db);
      const booking = await bookIn(site, 'completed');
      const plain = await t.key({ permissions: ['bookings:update'] });
      const refused = await put(booking.id, { status: 'cancelled' }, plain);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('forbidden');
      const manager = await t.key({ permissions: ['bookings:update', 'bookings:manage_completed'] });
      expect((await put(booking.id, { status: 'cancelled' }, manager)).statusCode).toBe(200);
    });

    it('bringing a cancelled booking back checks that its time is still free', async () => {
      const site = await newSite(t.db);
      const cancelled = await bookIn(site, 'cancelled');
      const taker = await book(site);
      const res = await put(cancelled.id, { status: 'approved' });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.details).toMatchObject({ conflicting_booking_id: taker.id });
    });

    it('writes no change mail without send_notification', async () => {
      const site = await newSite(t.db);
      const booking = await bookIn(site, 'pending');
      expect((await put(booking.id, { status: 'approved' })).statusCode).toBe(200);
      expect(await changeMails(booking.id)).toEqual([]);
    });

    it('writes no change mail for a change its customer does not see, even with send_notification', async () => {
      const site = await newSite(t.db);
      const booking = await bookIn(site, 'pending');
      expect((await put(booking.id, { status: 'pending', send_notification: true })).statusCode).toBe(200);
      expect((await put(booking.id, { notes: 'staff only', send_notification: true })).statusCode).toBe(200);
      expect(await changeMails(booking.id)).toEqual([]);
    });
  });

  describe('reschedule and agent change', () => {
    it('moves the booking to a free time and recomputes its span', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      const res = await put(booking.id, { start_date: TUESDAY, start_time: '14:15', duration: 30 });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ start_date: TUESDAY, start_time: '14:15', end_time: '14:45', duration: 30 });
      const row = await t.db.selectFrom('bookings').selectAll().where('id', '=', booking.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ start_at: '2030-01-08T19:15:00.000Z', end_at: '2030-01-08T19:45:00.000Z', end_date: TUESDAY });
    });

    it('reads a new date or time in the site zone of now, also for a booking made before the zone changed', async () => {
      const own = requester(t);
      const site = await newSite(t.db);
      const created = await own('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time: '10:00' });
      const id: number = created.json().data.id;
      const startAt = async () => (await t.db.selectFrom('bookings').select('start_at').where('id', '=', id).executeTakeFirstOrThrow()).start_at;
      expect(await startAt()).toBe('2030-01-07T15:00:00.000Z');
      await setSettings(t.db, { timezone: 'Europe/Berlin' });
      try {
        // 16:00 in Berlin now; "10:00" is 10:00 in Berlin, not the booking's old text in New York.
        const moved = await own('PUT', `/bookings/${id}`, { start_date: MONDAY, start_time: '10:00' });
        expect(moved.statusCode, moved.body).toBe(200);
        expect(await startAt()).toBe('2030-01-07T09:00:00.000Z');
        expect(moved.json().data).toMatchObject({ start_time: '10:00', timezone: 'Europe/Berlin' });
        expect((await own('PUT', `/bookings/${id}`, { start_time: '16:00' })).statusCode).toBe(200);
        expect(await startAt()).toBe('2030-01-07T15:00:00.000Z');
      } finally {
        await setSettings(t.db, { timezone: 'America/New_York' });
      }
    });

    it('may overlap its own old time', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      expect((await put(booking.id, { start_time: '10:30' })).statusCode).toBe(200);
    });

    it('refuses a taken time (409), a past date, a time outside hours or skipped by DST (422)', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      const other = await book(site, { start_time: '13:00' });
      const taken = await put(booking.id, { start_time: '12:30' });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().error).toMatchObject({
        code: 'time_slot_unavailable',
        details: { requested_time: `${MONDAY} 12:30`, agent_id: site.agentId, conflicting_booking_id: other.id },
      });
      expect((await put(booking.id, { duration: 240 })).statusCode).toBe(409);
      for (const change of [{ start_date: '2020-01-06' }, { start_time: '16:30' }, { start_date: '2030-03-10', start_time: '02:30' }]) {
        const res = await put(booking.id, change);
        expect(res.statusCode).toBe(422);
        expect(res.json().error.code).toBe('validation_failed');
      }
      const row = await t.db.selectFrom('bookings').select(['start_time', 'duration']).where('id', '=', booking.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ start_time: '10:00', duration: 60 });
    });

    it('changes the agent only to a free, connected, existing one', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      const busy = await addAgent(t.db, site);
      await book(site, { agent_id: busy, start_time: '10:30' });
      const conflict = await put(booking.id, { agent_id: busy });
      expect(conflict.statusCode).toBe(409);
      expect(conflict.json().error.details.agent_id).toBe(busy);

      const unconnected = await addAgent(t.db, site);
      await t.db.deleteFrom('agent_services').where('agent_id', '=', unconnected).execute();
      expect((await put(booking.id, { agent_id: unconnected })).statusCode).toBe(422);
      expect((await put(booking.id, { agent_id: 999999 })).statusCode).toBe(400);

      const free = await addAgent(t.db, site);
      const moved = await put(booking.id, { agent_id: free });
      expect(moved.statusCode).toBe(200);
      expect(moved.json().data.agent.id).toBe(free);
      // The old agent's time is free again.
      expect((await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId })).statusCode).toBe(201);
    });

    it('checks a new location and service', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      expect((await put(booking.id, { location_id: 999999 })).statusCode).toBe(400);
      expect((await put(booking.id, { service_id: 999999 })).statusCode).toBe(400);
      const other = await newSite(t.db);
      expect((await put(booking.id, { service_id: other.serviceId })).statusCode).toBe(422);
      await connectAgent(t.db, site.agentId, { serviceIds: [other.serviceId], locationIds: [other.locationId] });
      const res = await put(booking.id, { service_id: other.serviceId, location_id: other.locationId });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ service: { id: other.serviceId }, location: { id: other.locationId } });
    });
    it("a new service brings its own duration and price (the agent's custom ones first) unless the request gives them", async () => {
      const own = requester(t);
      const site = await newSite(t.db);
      const booking = await book(site);
      expect(booking).toMatchObject({ duration: 60, end_time: '11:00', price: '45.00' });
      const short = await insertService(t.db, { duration: 30, charge_amount_cents: 2500 });
      const custom = await insertService(t.db, { duration: 30 });
      await connectAgent(t.db, site.agentId, { serviceIds: [short] });
      await connectAgent(t.db, site.agentId, { serviceIds: [custom] });
      await t.db
        .updateTable('agent_services')
        .set({ custom_duration: 45, custom_price_cents: 6000 })
        .where('agent_id', '=', site.agentId)
        .where('service_id', '=', custom)
        .execute();

      expect((await own('PUT', `/bookings/${booking.id}`, { service_id: short })).json().data).toMatchObject({ duration: 30, end_time: '10:30', price: '25.00' });
      const moved = (await own('PUT', `/bookings/${booking.id}`, { service_id: custom })).json().data;
      expect(moved).toMatchObject({ duration: 45, end_time: '10:45', price: '60.00', order: { total: '60.00', subtotal: '60.00' } });
      const given = await own('PUT', `/bookings/${booking.id}`, { service_id: short, duration: 90, price: '70' });
      expect(given.json().data).toMatchObject({ duration: 90, end_time: '11:30', price: '70.00' });
      // Another change keeps the booking's length and price.
      expect((await own('PUT', `/bookings/${booking.id}`, { start_time: '13:00' })).json().data).toMatchObject({ duration: 90, end_time: '14:30', price: '70.00' });
    });

    it("a new agent brings their own duration and price for the service (else the service's) unless the request gives them", async () => {
      const own = requester(t);
      const site = await newSite(t.db);
      const alice = await addAgent(t.db, site);
      const bob = await addAgent(t.db, site);
      const custom = (agent: number, minutes: number, cents: number) =>
        t.db.updateTable('agent_services').set({ custom_duration: minutes, custom_price_cents: cents }).where('agent_id', '=', agent).where('service_id', '=', site.serviceId).execute();
      await custom(alice, 45, 15000);
      await custom(bob, 90, 10000);
      const booking = await book(site, { agent_id: alice });
      expect(booking).toMatchObject({ duration: 45, end_time: '10:45', price: '150.00' });

      const toBob = (await own('PUT', `/bookings/${booking.id}`, { agent_id: bob })).json().data;
      expect(toBob).toMatchObject({ agent: { id: bob }, duration: 90, end_time: '11:30', price: '100.00', order: { total: '100.00' } });
      // The site's agent has no custom values: the service's.
      expect((await own('PUT', `/bookings/${booking.id}`, { agent_id: site.agentId })).json().data).toMatchObject({ duration: 60, end_time: '11:00', price: '45.00' });
      const given = await own('PUT', `/bookings/${booking.id}`, { agent_id: alice, duration: 30, price: '20' });
      expect(given.json().data).toMatchObject({ agent: { id: alice }, duration: 30, end_time: '10:30', price: '20.00' });
    });

    it("the booking's order item records the booking as it now is", async () => {
      const own = requester(t);
      const site = await newSite(t.db);
      const created = await own('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId });
      const booking: Json = created.json().data;
      const other = await addAgent(t.db, site);
      const short = await insertService(t.db, { name: 'Short cut', duration: 30 });
      await connectAgent(t.db, other, { serviceIds: [short] });
      const moved = await own('PUT', `/bookings/${booking.id}`, { agent_id: other, service_id: short, start_date: TUESDAY, start_time: '14:00' });
      expect(moved.statusCode, moved.body).toBe(200);
      const itemData = async (): Promise<unknown> => {
        const order: Json = (await own('GET', `/orders/${moved.json().data.order.id}`)).json();
        return JSON.parse(order.items[0].item_data);
      };
      expect(await itemData()).toEqual({
        booking_id: booking.id,
        service_id: short,
        service_name: 'Short cut',
        agent_id: other,
        location_id: site.locationId,
        start_date: TUESDAY,
        start_time: '14:00',
        duration: 30,
      });
      expect((await own('PUT', `/bookings/${booking.id}`, { duration: 45 })).statusCode).toBe(200);
      expect(await itemData()).toMatchObject({ start_time: '14:00', duration: 45 });
    });
  });

  describe('customer, price, notes and metadata', () => {
    it("changes the customer's details only with customers:update as well (403 forbidden otherwise)", async () => {
      const site = await newSite(t.db);
      const made = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId }, await t.key());
      const booking = made.json().data;
      const bookingsOnly = await t.key({ permissions: ['bookings:read', 'bookings:update'] });
      for (const payload of [{ customer: { email: 'taken.over@example.test' } }, { 'customer.first_name': 'Renamed' }, { customer_id: site.customerId, customer: { phone: '555-0100' } }]) {
        const res = await put(booking.id, payload, bookingsOnly);
        expect(res.statusCode, JSON.stringify(payload)).toBe(403);
        expect(res.json().error.code).toBe('forbidden');
      }
      const customer = await t.db.selectFrom('customers').select(['email', 'first_name', 'phone']).where('id', '=', site.customerId).executeTakeFirstOrThrow();
      expect(customer.email).not.toBe('taken.over@example.test');
      expect(customer.first_name).not.toBe('Renamed');
      expect((await put(booking.id, { notes: 'booking fields need only bookings:update' }, bookingsOnly)).statusCode).toBe(200);
      const both = await t.key({ permissions: ['bookings:update', 'customers:update'] });
      expect((await put(booking.id, { customer: { first_name: 'Renamed' } }, both)).json().data.customer.first_name).toBe('Renamed');
    });

    it('updates the customer, refusing an email of another customer (409)', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      const res = await put(booking.id, { 'customer.first_name': 'Renamed', customer: { phone: '555-0100' } });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.customer).toMatchObject({ first_name: 'Renamed', phone: '555-0100' });
      const other = await insertCustomer(t.db, { email: 'someone@example.test' });
      const taken = await put(booking.id, { customer: { email: 'SOMEONE@example.test' } });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().error).toMatchObject({ code: 'email_already_exists', details: { existing_customer_id: other } });
      expect((await put(booking.id, { customer: { email: 'mine@example.test' } })).json().data.customer.email).toBe('mine@example.test');
    });

    it('moves the booking and its order to another customer', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      const other = await insertCustomer(t.db);
      expect((await put(booking.id, { customer_id: 999999 })).statusCode).toBe(400);
      const res = await put(booking.id, { customer_id: other });
      expect(res.json().data.customer.id).toBe(other);
      const order = await t.db.selectFrom('orders').select('customer_id').where('id', '=', booking.order.id).executeTakeFirstOrThrow();
      expect(order.customer_id).toBe(other);
    });

    it('refuses customer changes that PUT /customers would refuse, with 422 and nothing changed', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      const res = await put(booking.id, { 'customer.first_name': '1', notes: 'not saved' });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { 'customer.first_name': expect.any(String) } });
      expect((await call('GET', `/bookings/${booking.id}`)).json().data).toMatchObject({ notes: null, customer: { first_name: booking.customer.first_name } });
    });

    it('a new price flows into the order item, order totals and open invoice', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      const res = await put(booking.id, { price: '60.25', notes: 'changed' });
      expect(res.json().data).toMatchObject({ price: '60.25', notes: 'changed', order: { total: '60.25', subtotal: '60.25' } });
      const invoice = await t.db.selectFrom('invoices').select('charge_amount_cents').where('order_id', '=', booking.order.id).executeTakeFirstOrThrow();
      expect(invoice.charge_amount_cents).toBe(6025);
    });

    it("a new price moves the order's and the booking's payment_status with what the payments cover", async () => {
      // A key of its own: this file's requests together exceed one test key's rate limit.
      const own = requester(t);
      const site = await newSite(t.db);
      const booking = await book(site, { price: '45.00' });
      const orderOf = async (): Promise<Json> => (await own('GET', `/orders/${booking.order.id}`)).json();
      expect((await own('POST', '/payments', { order_id: booking.order.id, amount: 45 })).statusCode).toBe(201);
      expect((await orderOf()).payment_status).toBe('fully_paid');

      const raised = await own('PUT', `/bookings/${booking.id}`, { price: '100.00' });
      expect(raised.json().data).toMatchObject({ payment_status: 'partially_paid', order: { total: '100.00', payment_status: 'partially_paid' } });
      expect(await orderOf()).toMatchObject({ total: '100.00', payment_status: 'partially_paid' });

      const lowered = await own('PUT', `/bookings/${booking.id}`, { price: '40.00' });
      expect(lowered.json().data).toMatchObject({ payment_status: 'paid', order: { total: '40.00', payment_status: 'fully_paid' } });
    });

    it("refuses a price below the order's discounts with 422 and changes nothing", async () => {
      const own = requester(t);
      const site = await newSite(t.db);
      const booking = await book(site, { price: '45.00' });
      expect((await own('PUT', `/orders/${booking.order.id}`, { discount_total: 30 })).json().total).toBe('15.00');
      const res = await own('PUT', `/bookings/${booking.id}`, { price: '20.00', notes: 'not saved' });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { price: expect.stringContaining('-10.00') } });
      expect((await own('GET', `/bookings/${booking.id}`)).json().data).toMatchObject({ price: '45.00', notes: null, order: { total: '15.00' } });
      const invoice = await t.db.selectFrom('invoices').select('charge_amount_cents').where('order_id', '=', booking.order.id).executeTakeFirstOrThrow();
      expect(invoice.charge_amount_cents).toBe(1500);
    });

    it('bounds metadata: 50 keys a booking, keys of 100 and values of 1000 characters (422, nothing changed)', async () => {
      const own = requester(t);
      const site = await newSite(t.db);
      const keys = (from: number, count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${from + i}`, 'v']));
      const booking = await book(site, { meta: keys(0, 30) });
      const tooMany = await own('PUT', `/bookings/${booking.id}`, { meta: keys(100, 21), notes: 'not saved' });
      expect(tooMany.statusCode).toBe(422);
      expect(tooMany.json().error).toMatchObject({ code: 'validation_failed', details: { meta: expect.stringContaining('51') } });
      expect((await own('GET', `/bookings/${booking.id}`)).json().data).toMatchObject({ notes: null });
      expect(Object.keys((await own('GET', `/bookings/${booking.id}`)).json().data.meta)).toHaveLength(30);
      // Replacing keys and removing some keeps within the bound.
      expect((await own('PUT', `/bookings/${booking.id}`, { meta: { ...keys(100, 22), k0: null, k1: null } })).statusCode).toBe(200);
      expect((await own('PUT', `/bookings/${booking.id}`, { meta: { ['x'.repeat(101)]: 'v' } })).statusCode).toBe(422);
      const emptyKey = await own('PUT', `/bookings/${booking.id}`, { meta: { '': 'v' } });
      expect(emptyKey.statusCode).toBe(422);
      expect(emptyKey.json().error.details).toEqual({ meta: 'keys must be 1 to 100 characters' });
      expect((await own('PUT', `/bookings/${booking.id}`, { meta: { long: 'v'.repeat(1001) } })).statusCode).toBe(422);
      const created = await own('POST', '/bookings', {
        service_id: site.serviceId,
        agent_id: site.agentId,
        start_date: MONDAY,
        start_time: '14:00',
        customer_id: site.customerId,
        meta: keys(0, 51),
      });
      expect(created.statusCode).toBe(422);
      expect(created.json().error.details.meta).toContain('50');
    });

    it('merges metadata, removing keys set to null', async () => {
      const site = await newSite(t.db);
      const booking = await book(site, { meta: { a: '1', b: '2' } });
      const res = await put(booking.id, { meta: { b: null, c: '3' } });
      expect(res.json().data.meta).toEqual({ a: '1', c: '3' });
    });

    it('answers 404 for an unknown booking and 400 for a bad field', async () => {
      expect((await put(999999, { notes: 'x' })).json().error.code).toBe('booking_not_found');
      const site = await newSite(t.db);
      const booking = await book(site);
      const res = await put(booking.id, { status: 'confirmed' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details).toHaveProperty('status');
    });
  });

  describe('DELETE', () => {
    it('removes the booking and its order item in one go; the order stays on record, cancelled, charging nothing', async () => {
      const site = await newSite(t.db);
      const booking = await book(site, { meta: { a: '1' } });
      const res = await call('DELETE', `/bookings/${booking.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success', data: { id: booking.id, deleted: true } });
      expect(await t.db.selectFrom('bookings').select('id').where('id', '=', booking.id).execute()).toEqual([]);
      expect(await t.db.selectFrom('order_items').select('id').where('order_id', '=', booking.order.id).execute()).toEqual([]);
      expect(await t.db.selectFrom('booking_meta').select('meta_key').where('booking_id', '=', booking.id).execute()).toEqual([]);
      expect(await t.db.selectFrom('orders').select(['status', 'total_cents']).where('id', '=', booking.order.id).executeTakeFirst()).toEqual({
        status: 'cancelled',
        total_cents: 0,
      });
      expect(await t.db.selectFrom('invoices').select('status').where('order_id', '=', booking.order.id).execute()).toEqual([{ status: 'void' }]);
      expect((await call('GET', `/bookings/${booking.id}`)).statusCode).toBe(404);
      expect((await call('DELETE', `/bookings/${booking.id}`)).json().error.code).toBe('booking_not_found');
      // Its time is free again.
      expect((await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId })).statusCode).toBe(201);
    });

    it('needs bookings:delete', async () => {
      const site = await newSite(t.db);
      const booking = await book(site);
      const key = await t.key({ permissions: ['bookings:read', 'bookings:update'] });
      expect((await call('DELETE', `/bookings/${booking.id}`, undefined, key)).statusCode).toBe(403);
    });
  });
});
