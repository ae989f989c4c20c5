import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { isForeignKeyViolation, isUniqueViolation } from '../../src/db/constraints.js';
import { insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { MONDAY, newSite } from '../bookings/setup.js';
import { insertOrder, insertTransaction } from './orders.js';

const URL = '/booking-api/v1/customers';
const ZONE = 'Asia/Tokyo';

describe.each(DIALECTS)('GET, PUT, DELETE /customers/{id} (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: ZONE });

  async function call(method: 'GET' | 'PUT' | 'DELETE', path: string, payload?: Record<string, unknown>, key?: string) {
    return t.app.inject({ method, url: `${URL}${path}`, headers: { 'x-api-key': key ?? (await t.key()) }, payload });
  }
  const stored = (id: number) => t.db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function bookingRefs() {
    return { agentId: await insertAgent(t.db), serviceId: await insertService(t.db), locationId: await insertLocation(t.db) };
  }

  describe('GET', () => {
    it('reads a customer in envelope B with custom fields, notes and avatar', async () => {
      const id = await insertCustomer(t.db, {
        first_name: 'Kenji', last_name: 'Sato', custom_fields: '{"locker":12}', notes: 'Left-handed',
        created_at: '2026-03-01T15:30:00.000Z', updated_at: '2026-03-02T15:30:05.000Z',
      });
      const res = await call('GET', `/${id}`, undefined, await t.key({ permissions: ['customers:read'] }));
      expect(res.statusCode).toBe(200);
      const body: Json = res.json();
      expect(body.success).toBe(true);
      expect(body.data).toMatchObject({
        id,
        first_name: 'Kenji',
        last_name: 'Sato',
        custom_fields: { locker: 12 },
        notes: 'Left-handed',
        avatar_url: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?d=mp&s=96$/),
        created_at: '2026-03-02 00:30:00',
        updated_at: '2026-03-03 00:30:05',
      });
      expect(body.data).not.toHaveProperty('stats');
      expect(body.data).not.toHaveProperty('bookings');
    });

    it('adds stats and bookings on request', async () => {
      const id = await insertCustomer(t.db);
      const refs = await bookingRefs();
      const tomorrow = DateTime.now().setZone(ZONE).plus({ days: 1 }).toISODate()!;
      await insertBooking(t.db, { ...refs, customerId: id }, { start_date: tomorrow, end_date: tomorrow });
      const order = await insertOrder(t.db, id);
      await insertTransaction(t.db, { orderId: order, customerId: id, cents: 12345, status: 'succeeded' });
      const res = await call('GET', `/${id}?include=stats,bookings`);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.stats).toMatchObject({ total_bookings: 1, total_spent: '123.45', next_booking_date: tomorrow, last_booking_date: null });
      expect(res.json().data.bookings).toEqual([expect.objectContaining({ start_date: tomorrow, agent_id: refs.agentId })]);
    });

    it('answers 404 customer_not_found (style 1) and 400 for a malformed id', async () => {
      const missing = await call('GET', '/987654');
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ status: 'error', error: { code: 'customer_not_found', message: 'Customer 987654 was not found' } });
      for (const path of ['/abc', '/0', '/2147483648']) {
        const malformed = await call('GET', path);
        expect(malformed.statusCode, path).toBe(400);
        expect(malformed.json().error).toMatchObject({ code: 'invalid_request', details: { id: expect.any(String) } });
      }
      expect((await call('GET', '/2147483647')).statusCode).toBe(404);
      const badInclude = await call('GET', '/1?include=stats,orders');
      expect(badInclude.statusCode).toBe(400);
      expect(badInclude.json().error).toMatchObject({ code: 'invalid_request', details: { include: expect.any(String) } });
    });
  });

  describe('PUT', () => {
    it('changes only the supplied fields and answers the short shape', async () => {
      const id = await insertCustomer(t.db, { first_name: 'Old', last_name: 'Name', phone: '+81 3 1234 5678', city: 'Osaka', notes: 'keep' });
      const before = await stored(id);
      const res = await call('PUT', `/${id}`, { first_name: 'New', status: 'blocked', is_guest: true, country: 'jp', zipcode: '530-0001' });
      expect(res.statusCode).toBe(200);
      const body: Json = res.json();
      expect(body).toEqual({
        success: true,
        message: expect.any(String),
        data: {
          id,
          first_name: 'New',
          last_name: 'Name',
          email: before.email,
          phone: '+81 3 1234 5678',
          status: 'blocked',
          updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        },
      });
      const after = await stored(id);
      expect(after).toMatchObject({ first_name: 'New', last_name: 'Name', city: 'Osaka', notes: 'keep', country: 'JP', zipcode: '530-0001', is_guest: 1 });
      expect(after.updated_at > before.updated_at).toBe(true);
      expect(body.data.updated_at).toBe(DateTime.fromISO(after.updated_at, { zone: 'utc' }).setZone(ZONE).toFormat('yyyy-MM-dd HH:mm:ss'));
    });

    it('merges custom_fields; null or an empty string removes a key', async () => {
      const id = await insertCustomer(t.db, { custom_fields: JSON.stringify({ a: '1', b: 2, c: true, d: 'x' }) });
      const res = await call('PUT', `/${id}`, { custom_fields: { a: 'one', b: null, c: '', e: false } });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse((await stored(id)).custom_fields)).toEqual({ a: 'one', d: 'x', e: false });
      const read = await call('GET', `/${id}`);
      expect(read.json().data.custom_fields).toEqual({ a: 'one', d: 'x', e: false });
    });

    it('clears optional fields with null or ""; changes the email case without a conflict', async () => {
      const id = await insertCustomer(t.db, { email: `case.${dialect}@example.test`, phone: '+81 90 1234 5678', notes: 'n', avatar_image_id: 4 });
      const res = await call('PUT', `/${id}`, { email: `CASE.${dialect}@Example.test`, phone: '', notes: null, avatar_image_id: null });
      expect(res.statusCode).toBe(200);
      expect(await stored(id)).toMatchObject({
        email: `CASE.${dialect}@Example.test`, email_lower: `case.${dialect}@example.test`, phone: null, notes: null, avatar_image_id: null,
      });
      expect((await call('PUT', `/${id}`, { email: null })).statusCode).toBe(200);
      expect(await stored(id)).toMatchObject({ email: null, email_lower: null });
    });

    it('refuses an email of another customer: 400 customer_update_failed in style 3', async () => {
      const taken = `taken.${dialect}@example.test`;
      await insertCustomer(t.db, { email: taken });
      const id = await insertCustomer(t.db);
      const res = await call('PUT', `/${id}`, { email: taken.toUpperCase(), first_name: 'Changed' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        code: 'customer_update_failed',
        message: expect.any(String),
        data: { status: 400, details: { email: expect.any(String) } },
      });
      expect((await stored(id)).first_name).not.toBe('Changed');
    });

    it('gives a contested email to exactly one of concurrent updates', async () => {
      const email = `contested.${dialect}@example.test`;
      const ids = [await insertCustomer(t.db), await insertCustomer(t.db), await insertCustomer(t.db), await insertCustomer(t.db)];
      const key = await t.key();
      const responses = await Promise.all(ids.map((id, i) => call('PUT', `/${id}`, { email: i % 2 ? email : email.toUpperCase() }, key)));
      expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 400, 400, 400]);
      for (const r of responses.filter((r) => r.statusCode === 400)) expect(r.json()).toMatchObject({ code: 'customer_update_failed', data: { status: 400 } });
      const holders = await t.db.selectFrom('customers').select('id').where('email_lower', '=', email).execute();
      expect(holders).toHaveLength(1);
      expect(responses[ids.indexOf(holders[0]!.id)]!.statusCode).toBe(200);
    });

    it('refuses a country that is not an ISO 3166-1 alpha-2 code', async () => {
      const id = await insertCustomer(t.db);
      for (const country of ['XX', 'Germany', 'DEU', 'UK']) {
        const res = await call('PUT', `/${id}`, { country });
        expect(res.statusCode, country).toBe(400);
        expect(res.json()).toMatchObject({ code: 'customer_update_failed', data: { status: 400, details: { country: expect.any(String) } } });
      }
      expect((await call('PUT', `/${id}`, { country: 'gb' })).statusCode).toBe(200);
      expect((await stored(id)).country).toBe('GB');
    });

    it.each([
      [{ first_name: 'x'.repeat(51) }, 'first_name'],
      [{ last_name: 'A' }, 'last_name'],
      [{ email: 'not-an-email' }, 'email'],
      [{ phone: 'phone' }, 'phone'],
      [{ notes: 'n'.repeat(1001) }, 'notes'],
      [{ custom_fields: { list: [1, 2] } }, 'custom_fields.list'],
    ])('applies the field rules: %j', async (payload, field) => {
      const id = await insertCustomer(t.db);
      const res = await call('PUT', `/${id}`, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('customer_update_failed');
      expect(Object.keys(res.json().data.details)).toEqual([field]);
    });

    it('accepts the boundaries: 50-character names, 1000-character notes', async () => {
      const id = await insertCustomer(t.db);
      const res = await call('PUT', `/${id}`, { first_name: 'ü'.repeat(50), notes: 'n'.repeat(1000) });
      expect(res.statusCode).toBe(200);
      expect((await stored(id)).first_name).toBe('ü'.repeat(50));
    });

    it('answers 404 customer_not_found in style 3, and style 3 for schema and permission errors', async () => {
      const missing = await call('PUT', '/987654', { first_name: 'Nobody' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ code: 'customer_not_found', message: 'Customer 987654 was not found', data: { status: 404 } });

      const id = await insertCustomer(t.db);
      const hugeId = await call('PUT', '/2147483648', { first_name: 'Nobody' });
      expect(hugeId.statusCode).toBe(400);
      expect(hugeId.json()).toMatchObject({ code: 'invalid_request', data: { status: 400, details: { id: expect.any(String) } } });

      const badStatus = await call('PUT', `/${id}`, { status: 'pending' });
      expect(badStatus.statusCode).toBe(400);
      expect(badStatus.json()).toMatchObject({ code: 'invalid_request', data: { status: 400, details: { status: expect.any(String) } } });

      const forbidden = await call('PUT', `/${id}`, { first_name: 'Nope' }, await t.key({ permissions: ['customers:read'] }));
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toMatchObject({ code: 'forbidden', data: { status: 403 } });
    });

    it('an empty body changes nothing', async () => {
      const id = await insertCustomer(t.db);
      const before = await stored(id);
      const res = await call('PUT', `/${id}`, {});
      expect(res.statusCode).toBe(200);
      expect(await stored(id)).toEqual(before);
    });

    it('refuses fields only a create takes (preferred agent and location, host user), naming each, and changes nothing', async () => {
      const agentId = await insertAgent(t.db);
      const id = await insertCustomer(t.db, { preferred_agent_id: agentId, host_user_id: 7 });
      const before = await stored(id);
      for (const [payload, field] of [
        [{ preferred_agent_id: 999_999 }, 'preferred_agent_id'],
        [{ preferred_location_id: 'xyz' }, 'preferred_location_id'],
        [{ host_user_id: 'abc' }, 'host_user_id'],
        [{ preferred_agent_id: null, city: 'Kyoto' }, 'preferred_agent_id'],
      ] as const) {
        const res = await call('PUT', `/${id}`, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().data.details, JSON.stringify(payload)).toEqual({ [field]: 'is not a field of this operation' });
      }
      expect(await stored(id)).toEqual(before);
    });

    it('keeps every key of concurrent custom_fields updates', async () => {
      const id = await insertCustomer(t.db);
      const key = await t.key();
      const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
      const responses = await Promise.all(keys.map((k) => call('PUT', `/${id}`, { custom_fields: { [k]: k } }, key)));
      expect(responses.map((r) => r.statusCode)).toEqual(keys.map(() => 200));
      expect(Object.keys(JSON.parse((await stored(id)).custom_fields)).sort()).toEqual(keys);
    });
  });

  describe('DELETE', () => {
    it('deletes a customer without bookings', async () => {
      const id = await insertCustomer(t.db);
      const res = await call('DELETE', `/${id}`, undefined, await t.key({ permissions: ['customers:delete'] }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, message: expect.any(String), data: { id, deleted: true } });
      expect((await call('GET', `/${id}`)).statusCode).toBe(404);
    });

    it('refuses while a booking exists: 409 customer_has_bookings, nothing deleted', async () => {
      const id = await insertCustomer(t.db);
      await insertBooking(t.db, { ...(await bookingRefs()), customerId: id }, { status: 'cancelled' });
      const res = await call('DELETE', `/${id}`);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ status: 'error', error: { code: 'customer_has_bookings', message: expect.any(String) } });
      expect(await stored(id)).toMatchObject({ id });
    });

    it('deletes, with them, the orders a deleted booking left behind, and refuses while a payment refers to the customer', async () => {
      const id = await insertCustomer(t.db);
      const left = await insertOrder(t.db, id);
      await t.db.updateTable('orders').set({ status: 'cancelled' }).where('id', '=', left).execute();
      await t.db.insertInto('invoices').values({ order_id: left, invoice_number: `INV-LEFT-${id}`, status: 'void', charge_amount_cents: 100, payment_portion: 'full', due_at: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' }).execute();
      expect((await call('DELETE', `/${id}`)).statusCode).toBe(200);
      expect(await t.db.selectFrom('orders').select('id').where('customer_id', '=', id).execute()).toEqual([]);
      expect(await t.db.selectFrom('invoices').select('id').where('order_id', '=', left).execute()).toEqual([]);

      // A payment is a record of money: neither the customer who paid nor the one whose order it paid goes.
      const owner = await insertCustomer(t.db);
      const payer = await insertCustomer(t.db);
      const paid = await insertOrder(t.db, owner);
      await insertTransaction(t.db, { orderId: paid, customerId: payer, cents: 100, status: 'succeeded' });
      for (const customer of [owner, payer]) {
        const refused = await call('DELETE', `/${customer}`);
        expect(refused.statusCode).toBe(409);
        expect(refused.json().error).toMatchObject({ code: 'customer_has_bookings', message: expect.stringContaining('payments') });
        expect(await stored(customer)).toMatchObject({ id: customer });
      }
      expect(await t.db.selectFrom('orders').select('id').where('id', '=', paid).execute()).toEqual([{ id: paid }]);

      // An order that is not cancelled (reopened, say) is no leftover: it keeps the customer, and says so.
      const reopened = await insertCustomer(t.db);
      const open = await insertOrder(t.db, reopened);
      const refused = await call('DELETE', `/${reopened}`);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error).toMatchObject({ code: 'customer_has_bookings', message: expect.stringContaining('orders'), details: { orders: 'not cancelled' } });
      expect(await t.db.selectFrom('orders').select('id').where('id', '=', open).execute()).toEqual([{ id: open }]);
    });

    it('a customer whose only booking was deleted can be deleted', async () => {
      const refs = await newSite(t.db);
      const key = await t.key();
      const api = (method: 'POST' | 'DELETE', path: string, payload?: object) =>
        t.app.inject({ method, url: `/booking-api/v1${path}`, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
      const made = await api('POST', '/bookings', {
        service_id: refs.serviceId, agent_id: refs.agentId, location_id: refs.locationId, start_date: MONDAY, start_time: '10:00',
        customer: { first_name: 'Gone', last_name: 'Soon', email: `gone.${dialect}@example.test` }, send_confirmation: false,
      });
      expect(made.statusCode, made.body).toBe(201);
      const { id: bookingId, customer } = made.json().data;
      expect((await api('DELETE', `/customers/${customer.id}`)).statusCode).toBe(409);
      expect((await api('DELETE', `/bookings/${bookingId}`)).statusCode).toBe(200);
      expect((await api('DELETE', `/customers/${customer.id}`)).statusCode).toBe(200);
      expect(await t.db.selectFrom('customers').select('id').where('id', '=', customer.id).execute()).toEqual([]);
    });

    it('answers 404 for an unknown customer and 403 without customers:delete', async () => {
      const missing = await call('DELETE', '/987654');
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('customer_not_found');
      expect((await call('DELETE', '/2147483648')).json().error.code).toBe('invalid_request');
      const id = await insertCustomer(t.db);
      const forbidden = await call('DELETE', `/${id}`, undefined, await t.key({ permissions: ['customers:read', 'customers:update'] }));
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().error.code).toBe('forbidden');
      expect(await stored(id)).toMatchObject({ id });
    });
  });

  describe('constraint errors', () => {
    it('recognises this driver\'s unique and foreign-key violations', async () => {
      const email = `constraint.${dialect}@example.test`;
      await insertCustomer(t.db, { email });
      const duplicate = await insertCustomer(t.db, { email: email.toUpperCase(), email_lower: email }).catch((e: unknown) => e);
      expect(isUniqueViolation(duplicate, 'customers', 'email_lower')).toBe(true);
      expect(isUniqueViolation(duplicate, 'customers', 'customer_code')).toBe(false);
      expect(isForeignKeyViolation(duplicate)).toBe(false);

      const id = await insertCustomer(t.db);
      await insertBooking(t.db, { ...(await bookingRefs()), customerId: id });
      const referenced = await t.db.deleteFrom('customers').where('id', '=', id).execute().catch((e: unknown) => e);
      expect(isForeignKeyViolation(referenced)).toBe(true);
      expect(isUniqueViolation(referenced, 'customers', 'email_lower')).toBe(false);
    });
  });
});
