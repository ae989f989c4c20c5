import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { insertOrder, insertTransaction } from './orders.js';

const URL = '/booking-api/v1/customers';

interface Listed {
  id: number;
  first_name: string;
  stats?: Record<string, unknown>;
  bookings?: Record<string, string | number>[];
  [member: string]: unknown;
}
const listed = (res: { json<T>(): T }): Listed[] => res.json<{ data: Listed[] }>().data;
const firstNames = (res: { json<T>(): T }): string[] => listed(res).map((c) => c.first_name);
const ZONE = 'Europe/Berlin';

describe.each(DIALECTS)('GET /customers (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: ZONE });
  const id: Record<'A' | 'B' | 'C' | 'D' | 'E', number> = { A: 0, B: 0, C: 0, D: 0, E: 0 };
  const today = DateTime.now().setZone(ZONE).startOf('day');
  const day = (offset: number) => today.plus({ days: offset }).toISODate()!;
  let key = '';

  beforeAll(async () => {
    key = await t.key({ permissions: ['customers:read'] });
    // Inserted out of creation order so that id order and created_at order differ.
    id.C = await insertCustomer(t.db, {
      first_name: 'Carla', last_name: 'Xu', email: null, status: 'blocked', host_user_id: 8, created_at: '2025-04-15T10:00:00.000Z',
    });
    id.A = await insertCustomer(t.db, {
      first_name: 'Alice', last_name: 'Zephyr', email: 'alice.zephyr@list.test', phone: '+49 30 111111', status: 'active',
      host_user_id: 7, custom_fields: '{"tier":"gold"}', notes: 'A notes',
      created_at: '2025-03-10T12:00:00.000Z', updated_at: '2025-06-01T08:00:00.000Z',
    });
    id.E = await insertCustomer(t.db, {
      first_name: 'Émile', last_name: 'Alice-Vogel', email: 'emile@list.test', created_at: '2025-05-20T09:00:00.000Z',
    });
    // 22:30 UTC on 31 March is 00:30 on 1 April in Berlin.
    id.B = await insertCustomer(t.db, {
      first_name: 'Bob', last_name: 'Young', email: 'BOB.young@list.test', phone: '+1 555 0100', status: 'inactive', is_guest: 1,
      created_at: '2025-03-31T22:30:00.000Z',
    });
    id.D = await insertCustomer(t.db, {
      first_name: 'Dora', last_name: 'Per%cent_x', email: 'dora@list.test', status: 'pending', created_at: '2025-05-20T09:00:00.000Z',
    });

    const agentId = await insertAgent(t.db);
    const refs = { agentId, serviceId: await insertService(t.db), locationId: await insertLocation(t.db) };
    const book = (customerId: number, offset: number, status: 'pending' | 'approved' | 'cancelled' | 'completed' | 'no_show') =>
      insertBooking(t.db, { ...refs, customerId }, { status, start_date: day(offset), end_date: day(offset), start_at: `${day(offset)}T10:00:00.000Z` });
    await book(id.A, -20, 'completed');
    await book(id.A, -5, 'cancelled');
    await book(id.A, -10, 'no_show');
    await book(id.A, 3, 'approved');
    await book(id.A, 1, 'cancelled');
    await book(id.A, 0, 'pending');
    for (let i = 0; i < 52; i++) await book(id.D, i - 30, 'approved');

    const a1 = await insertOrder(t.db, id.A);
    const a2 = await insertOrder(t.db, id.A);
    const d1 = await insertOrder(t.db, id.D);
    await insertTransaction(t.db, { orderId: a1, customerId: id.A, cents: 4500, status: 'succeeded' });
    await insertTransaction(t.db, { orderId: a1, customerId: id.A, cents: 1050, status: 'succeeded' });
    await insertTransaction(t.db, { orderId: a1, customerId: id.A, cents: 9999, status: 'failed' });
    await insertTransaction(t.db, { orderId: a2, customerId: id.A, cents: 1000, status: 'succeeded' });
    await insertTransaction(t.db, { orderId: d1, customerId: id.D, cents: 500, status: 'processing' });
    // Paid by A on D's order: it is D's spending (the customer's orders count, not the payer).
    await insertTransaction(t.db, { orderId: d1, customerId: id.A, cents: 777, status: 'succeeded' });
  });

  async function list(query: string, apiKey = key) {
    return t.app.inject({ method: 'GET', url: `${URL}${query ? `?${query}` : ''}`, headers: { 'x-api-key': apiKey } });
  }
  async function names(query: string): Promise<string[]> {
    const res = await list(query);
    expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    return firstNames(res);
  }
  const sorted = (values: string[]) => [...values].sort();

  it('answers envelope A with the customers meta, newest first by default', async () => {
    const res = await list('');
    expect(res.statusCode).toBe(200);
    const body: Json = res.json();
    expect(body.status).toBe('success');
    expect(body.meta).toEqual({ current_page: 1, per_page: 20, total: 5, total_pages: 1, has_next_page: false, has_previous_page: false });
    // D and E share created_at: the id breaks the tie in the same direction.
    expect(firstNames(res)).toEqual(['Dora', 'Émile', 'Carla', 'Bob', 'Alice']);
    const alice = listed(res).find((c) => c.id === id.A);
    expect(alice).toEqual({
      id: id.A,
      customer_code: expect.any(String),
      first_name: 'Alice',
      last_name: 'Zephyr',
      email: 'alice.zephyr@list.test',
      phone: '+49 30 111111',
      status: 'active',
      date_of_birth: null,
      gender: null,
      address: null,
      city: null,
      state: null,
      zipcode: null,
      country: null,
      is_guest: false,
      host_user_id: 7,
      avatar_image_id: null,
      preferred_agent_id: null,
      preferred_location_id: null,
      created_at: '2025-03-10 13:00:00',
      updated_at: '2025-06-01 10:00:00',
    });
  });

  it('orders by id or created_at in either direction', async () => {
    expect(await names('order_direction=asc')).toEqual(['Alice', 'Bob', 'Carla', 'Émile', 'Dora']);
    expect(await names('order_by=created_at&order_direction=desc')).toEqual(['Dora', 'Émile', 'Carla', 'Bob', 'Alice']);
    expect(await names('order_by=id&order_direction=asc')).toEqual(['Carla', 'Alice', 'Émile', 'Bob', 'Dora']);
    expect(await names('order_by=id')).toEqual(['Dora', 'Bob', 'Émile', 'Alice', 'Carla']);
  });

  it('pages with current_page, per_page, total, total_pages, has_next_page, has_previous_page', async () => {
    const second = await list('per_page=2&page=2');
    expect(firstNames(second)).toEqual(['Carla', 'Bob']);
    expect(second.json().meta).toEqual({ current_page: 2, per_page: 2, total: 5, total_pages: 3, has_next_page: true, has_previous_page: true });
    const third = await list('per_page=2&page=3');
    expect(firstNames(third)).toEqual(['Alice']);
    expect(third.json().meta).toMatchObject({ has_next_page: false, has_previous_page: true });
    const beyond = await list('per_page=2&page=4');
    expect(beyond.json().data).toEqual([]);
    expect(beyond.json().meta).toMatchObject({ current_page: 4, total: 5, total_pages: 3 });
    expect((await list('per_page=100')).statusCode).toBe(200);
  });

  it.each([
    ['status=active', ['Alice', 'Émile']],
    ['status=inactive', ['Bob']],
    ['status=blocked', ['Carla']],
    ['status=pending', ['Dora']],
    ['created_after=2025-04-01', ['Bob', 'Carla', 'Dora', 'Émile']],
    ['created_before=2025-03-31', ['Alice']],
    ['created_after=2025-04-01&created_before=2025-04-30', ['Bob', 'Carla']],
    ['created_after=2025-05-20&created_before=2025-05-20', ['Dora', 'Émile']],
    ['has_bookings=true', ['Alice', 'Dora']],
    ['has_bookings=false', ['Bob', 'Carla', 'Émile']],
    ['first_name=ALI', ['Alice']],
    ['last_name=alice', ['Émile']],
    ['email=List.Test', ['Alice', 'Bob', 'Dora', 'Émile']],
    ['email=bob.young', ['Bob']],
    ['phone=555', ['Bob']],
    ['is_guest=true', ['Bob']],
    ['is_guest=false', ['Alice', 'Carla', 'Dora', 'Émile']],
    ['host_user_id=7', ['Alice']],
    ['host_user_id=8', ['Carla']],
    ['created_at=2025', ['Alice', 'Bob', 'Carla', 'Dora', 'Émile']],
    ['created_at=2025-04', ['Bob', 'Carla']],
    ['created_at=2025-05-20', ['Dora', 'Émile']],
    ['created_at=2025-05-20%2011', ['Dora', 'Émile']],
    ['created_at=2025-05-20T11:00:00', ['Dora', 'Émile']],
    ['created_at=2025-05-20%2009', []],
    ['created_at=2025-04-01%2000:30', ['Bob']],
    ['updated_at=2025-06', ['Alice']],
    ['updated_at=2026-01-01%2001:00', ['Bob', 'Carla', 'Dora', 'Émile']],
    ['search=alice', ['Alice', 'Émile']],
    ['search=Alice%20Zephyr', ['Alice']],
    ['search=BOB.young', ['Bob']],
    ['search=111111', ['Alice']],
    ['search=%25', ['Dora']],
    ['search=_', ['Dora']],
    ['last_name=%25cent_', ['Dora']],
    ['search=', ['Alice', 'Bob', 'Carla', 'Dora', 'Émile']],
    ['status=active&has_bookings=true', ['Alice']],
    ['created_at=2025-05&created_after=2025-05-21', []],
    ['created_before=9999-12-31', ['Alice', 'Bob', 'Carla', 'Dora', 'Émile']],
    ['created_after=0000-01-01', ['Alice', 'Bob', 'Carla', 'Dora', 'Émile']],
    ['created_after=9999-12-31', []],
    ['created_before=0000-01-01', []],
  ])('filters %s', async (query, expected) => {
    expect(sorted(await names(query))).toEqual(sorted(expected));
  });

  it('leaves the optional members out unless included', async () => {
    const res = await list('');
    for (const customer of res.json().data) {
      for (const member of ['custom_fields', 'notes', 'avatar_url', 'stats', 'bookings']) expect(customer).not.toHaveProperty(member);
    }
  });

  it('includes custom_fields, notes and avatar', async () => {
    const res = await list('include=custom_fields,%20notes,avatar&status=active');
    const [emile, alice] = listed(res);
    const hash = createHash('sha256').update('alice.zephyr@list.test').digest('hex');
    expect(alice).toMatchObject({
      first_name: 'Alice',
      custom_fields: { tier: 'gold' },
      notes: 'A notes',
      avatar_url: `https://www.gravatar.com/avatar/${hash}?d=mp&s=96`,
    });
    expect(alice).not.toHaveProperty('stats');
    expect(emile).toMatchObject({ first_name: 'Émile', custom_fields: {}, notes: null });
  });

  it('includes stats computed by the database', async () => {
    const res = await list('include=stats');
    const byId = new Map(listed(res).map((c) => [c.id, c.stats]));
    expect(byId.get(id.A)).toEqual({
      total_bookings: 6,
      completed_bookings: 1,
      cancelled_bookings: 2,
      no_show_bookings: 1,
      total_spent: '65.50',
      last_booking_date: day(-10),
      next_booking_date: day(0),
    });
    expect(byId.get(id.D)).toMatchObject({ total_bookings: 52, total_spent: '7.77', last_booking_date: day(-1), next_booking_date: day(0) });
    for (const other of [id.B, id.C, id.E]) {
      expect(byId.get(other)).toEqual({
        total_bookings: 0,
        completed_bookings: 0,
        cancelled_bookings: 0,
        no_show_bookings: 0,
        total_spent: '0.00',
        last_booking_date: null,
        next_booking_date: null,
      });
    }
  });

  it('includes each customer\'s latest bookings in a compact shape', async () => {
    const res = await list('include=bookings');
    const byId = new Map(listed(res).map((c) => [c.id, c.bookings ?? []]));
    const alice = byId.get(id.A)!;
    expect(alice.map((b) => b.start_date)).toEqual([day(3), day(1), day(0), day(-5), day(-10), day(-20)]);
    expect(Object.keys(alice[0]!).sort()).toEqual(['agent_id', 'booking_code', 'end_time', 'id', 'service_id', 'start_date', 'start_time', 'status']);
    expect(alice[0]).toMatchObject({ status: 'approved', start_time: '10:00', end_time: '11:00' });
    const dora = byId.get(id.D)!;
    expect(dora).toHaveLength(50);
    expect(dora[0]!.start_date).toBe(day(21));
    expect(dora[49]!.start_date).toBe(day(-28));
    expect(byId.get(id.B)).toEqual([]);
  });

  it('answers invalid_parameters naming every bad parameter', async () => {
    const res = await list(
      'per_page=101&order_by=name&order_direction=up&created_after=2026-13-01&created_before=yesterday&has_bookings=maybe' +
        '&include=stats,foo&status=gone&host_user_id=abc&is_guest=2&created_at=2025-4&updated_at=soon',
    );
    expect(res.statusCode).toBe(400);
    const body: Json = res.json();
    expect(body.status).toBe('error');
    expect(body.error.code).toBe('invalid_parameters');
    expect(Object.keys(body.error.details).sort()).toEqual(
      [
        'created_after', 'created_at', 'created_before', 'has_bookings', 'host_user_id', 'include', 'is_guest', 'order_by',
        'order_direction', 'per_page', 'status', 'updated_at',
      ].sort(),
    );
  });

  it.each([
    ['page=0', 'page'],
    ['per_page=0', 'per_page'],
    ['page=abc', 'page'],
    ['created_at=2025-02-30', 'created_at'],
    ['updated_at=2025-02-29%2010', 'updated_at'],
    ['created_after=2025-02-29', 'created_after'],
    ['page=100000000000000000000', 'page'],
    ['page=1000001', 'page'],
    ['host_user_id=2147483648', 'host_user_id'],
    ['first_name=a%00b', 'first_name'],
    [`search=${'x'.repeat(101)}`, 'search'],
    ['include=', null],
  ])('%s', async (query, parameter) => {
    const res = await list(query);
    if (parameter === null) {
      expect(res.statusCode).toBe(200);
      return;
    }
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_parameters');
    expect(Object.keys(res.json().error.details)).toEqual([parameter]);
  });

  it('needs customers:read', async () => {
    const res = await list('', await t.key({ permissions: ['bookings:read'] }));
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
  });
});
