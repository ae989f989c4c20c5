import { describe, expect, it } from 'vitest';
import { insertCustomer } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { MONDAY, newSite, requester, TUESDAY, type Site } from './setup.js';

interface Success {
  index: number;
  data: { id: number; status: string };
  confirmation_sent: boolean;
}
interface Failure {
  index: number;
  code: string;
}

describe.each(DIALECTS)('POST /bookings/bulk (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);

  const element = (site: Site, values: Record<string, unknown> = {}) => ({
    service_id: site.serviceId,
    agent_id: site.agentId,
    start_date: MONDAY,
    start_time: '10:00',
    customer_id: site.customerId,
    ...values,
  });
  const bulk = (bookings: object[], extra: object = {}) => call('POST', '/bookings/bulk', { bookings, ...extra });
  const count = async (table: 'bookings' | 'orders') => Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  /** Mail to customers: their agents are told of new bookings whatever the request says. */
  const customerMails = async () => (await t.db.selectFrom('outbox').select('kind').execute()).filter((m) => !m.kind.startsWith('staff_')).length;

  it('201 when every element is created; default status approved, no mail by default', async () => {
    const site = await newSite(t.db);
    const mailsBefore = await customerMails();
    const res = await bulk([
      element(site),
      element(site, { start_time: '11:00', customer_id: undefined, customer: { first_name: 'New', last_name: 'Person', email: 'new.person@example.test' } }),
      element(site, { start_date: TUESDAY, status: 'pending' }),
    ]);
    expect(res.statusCode).toBe(201);
    const body: Json = res.json();
    expect(body.success).toBe(true);
    expect(body.message).toMatch(/3 .*3/);
    expect(body.results.summary).toEqual({ total_requested: 3, successful: 3, failed: 0 });
    expect(body.results.errors).toEqual([]);
    expect(body.results.success.map((s: Success) => [s.index, s.data.status, s.confirmation_sent])).toEqual([
      [0, 'approved', false],
      [1, 'approved', false],
      [2, 'pending', false],
    ]);
    const first = body.results.success[0];
    expect(first.booking_id).toBe(first.data.id);
    expect(first.data).toMatchObject({
      booking_code: expect.any(String),
      service: { id: site.serviceId, name: expect.any(String) },
      agent: { id: site.agentId, full_name: expect.any(String) },
      customer: { id: site.customerId, full_name: expect.any(String), email: expect.any(String) },
      start_date: MONDAY,
      start_time: '10:00',
    });
    expect(body.results.success[1].data.customer.email).toBe('new.person@example.test');
    const rows = await t.db.selectFrom('bookings').select('order_id').where('id', 'in', body.results.success.map((s: Success) => s.data.id)).execute();
    expect(rows.map((r) => r.order_id === null)).toEqual([false, false, false]);
    expect(await customerMails()).toBe(mailsBefore);
  });

  it('207 when some fail: each element is checked against the database and the elements before it', async () => {
    const site = await newSite(t.db);
    const taken = await insertCustomer(t.db, { email: 'taken@example.test' });
    await bulk([element(site, { start_time: '09:00' })]);
    const elements = [
      element(site, { start_time: '10:00' }),
      element(site, { start_time: '10:30' }),
      element(site, { start_time: '09:30' }),
      element(site, { service_id: 999999 }),
      element(site, { start_time: undefined, agent_id: 'nobody' }),
      element(site, { start_time: '12:00', customer_id: undefined, customer: { first_name: 'Ann', last_name: 'Bee', email: 'TAKEN@example.test' } }),
      element(site, { start_time: '13:00', customer_id: undefined, customer: { first_name: 'Cid', last_name: 'Dee', email: 'twice@example.test' } }),
      element(site, { start_time: '14:00', customer_id: undefined, customer: { first_name: 'Eve', last_name: 'Fox', email: 'twice@example.test' } }),
      element(site, { start_date: '2020-01-06' }),
    ];
    const res = await bulk(elements, { send_confirmation: true });
    expect(res.statusCode).toBe(207);
    const body: Json = res.json();
    expect(body.success).toBe(false);
    expect(body.results.summary).toEqual({ total_requested: 9, successful: 2, failed: 7 });
    expect(body.results.success.map((s: Success) => s.index)).toEqual([0, 6]);
    expect(body.results.success.every((s: Success) => s.confirmation_sent === true)).toBe(true);
    const errors = body.results.errors;
    expect(errors.map((e: Failure) => [e.index, e.code])).toEqual([
      [1, 'time_slot_unavailable'],
      [2, 'time_slot_unavailable'],
      [3, 'invalid_request'],
      [4, 'invalid_request'],
      [5, 'email_already_exists'],
      [7, 'email_already_exists'],
      [8, 'validation_failed'],
    ]);
    expect(errors[0].error).toMatch(/element 0/);
    expect(errors[1].error).toMatch(/booking \d+/);
    expect(errors[3].error).toMatch(/start_time/);
    expect(errors[3].error).toMatch(/agent_id/);
    expect(errors[4].error).toMatch(/taken@example\.test/i);
    expect(errors[0].booking_data).toEqual(elements[1]);
    expect(errors[3].booking_data).toEqual(JSON.parse(JSON.stringify(elements[4])));
    expect(taken).toBeGreaterThan(0);
    const mails = await t.db.selectFrom('outbox').select('recipient').where('kind', '=', 'booking_confirmation').execute();
    expect(mails.map((m) => m.recipient)).toContain('twice@example.test');
  });

  it('400 when every element fails, with the same body, and nothing is written', async () => {
    const site = await newSite(t.db);
    const before = { bookings: await count('bookings'), orders: await count('orders') };
    const res = await bulk([element(site, { agent_id: 999999 }), element(site, { start_time: '20:00' })]);
    expect(res.statusCode).toBe(400);
    const body: Json = res.json();
    expect(body.success).toBe(false);
    expect(body.results.summary).toEqual({ total_requested: 2, successful: 0, failed: 2 });
    expect(body.results.errors.map((e: Failure) => e.code)).toEqual(['invalid_request', 'validation_failed']);
    expect({ bookings: await count('bookings'), orders: await count('orders') }).toEqual(before);
  });

  it('takes new-customer fields only as a nested customer object, not as dotted keys', async () => {
    const site = await newSite(t.db);
    const res = await bulk([
      element(site, { customer_id: undefined, customer: { first_name: 'Nes', last_name: 'Ted', email: 'nested@bulk.test' } }),
      element(site, { start_time: '12:00', customer_id: undefined, 'customer.first_name': 'Dot', 'customer.last_name': 'Ted', 'customer.email': 'dotted@bulk.test' }),
    ]);
    expect(res.statusCode).toBe(207);
    const body: Json = res.json();
    expect(body.results.success.map((s: Success) => s.index)).toEqual([0]);
    expect(body.results.errors).toEqual([expect.objectContaining({ index: 1, code: 'invalid_request' })]);
    expect(await t.db.selectFrom('customers').select('id').where('email_lower', '=', 'dotted@bulk.test').execute()).toEqual([]);
  });

  it('refuses an element whose metadata is over its bounds, and creates the others', async () => {
    const site = await newSite(t.db);
    const res = await bulk([element(site, { meta: { ['k'.repeat(101)]: 'v' } }), element(site, { start_time: '12:00', meta: { ok: 'v' } })]);
    expect(res.statusCode).toBe(207);
    expect(res.json().results.errors).toEqual([expect.objectContaining({ index: 0, code: 'validation_failed' })]);
  });

  it('400 invalid_request for a malformed request: over 50 elements, none, or not an array', async () => {
    const site = await newSite(t.db);
    const tooMany = await bulk(Array.from({ length: 51 }, (_, i) => element(site, { start_date: `2030-02-${String((i % 28) + 1).padStart(2, '0')}` })));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error).toMatchObject({ code: 'invalid_request', details: { bookings: expect.any(String) } });
    expect((await bulk([])).json().error.code).toBe('invalid_request');
    const notArray = await call('POST', '/bookings/bulk', { bookings: 'all of them' });
    expect(notArray.statusCode).toBe(400);
  });

  it('accepts exactly 50 elements', async () => {
    const site = await newSite(t.db);
    const times = ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00'];
    const days = ['2030-03-04', '2030-03-05', '2030-03-06', '2030-03-07', '2030-03-08', '2030-03-11', '2030-03-12'];
    const elements = Array.from({ length: 50 }, (_, i) => element(site, { start_date: days[Math.floor(i / 8)], start_time: times[i % 8] }));
    const res = await bulk(elements);
    expect(res.statusCode).toBe(201);
    expect(res.json().results.summary.successful).toBe(50);
  });

  it('needs bookings:create', async () => {
    const site = await newSite(t.db);
    const key = await t.key({ permissions: ['bookings:read'] });
    expect((await call('POST', '/bookings/bulk', { bookings: [element(site)] }, key)).statusCode).toBe(403);
  });
});
