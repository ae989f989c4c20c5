import { beforeAll, describe, expect, it } from 'vitest';
import { insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { requester } from './setup.js';

describe.each(DIALECTS)('GET /bookings (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);
  const ids: Record<'b1' | 'b2' | 'b3' | 'b4' | 'b5', number> = { b1: 0, b2: 0, b3: 0, b4: 0, b5: 0 };
  const refs = { s1: 0, s2: 0, a1: 0, a2: 0, l1: 0, l2: 0, c1: 0, c2: 0 };

  beforeAll(async () => {
    const db = t.db;
    refs.s1 = await insertService(db, { name: 'Massage', duration: 60, charge_amount_cents: 4500 });
    refs.s2 = await insertService(db, { name: 'Haircut', duration: 30, charge_amount_cents: 0, price_min_cents: 2000 });
    refs.a1 = await insertAgent(db, { first_name: 'Ann', last_name: 'Agent', display_name: 'Annie' });
    refs.a2 = await insertAgent(db, { first_name: 'Ben', last_name: 'Agent' });
    refs.l1 = await insertLocation(db, { name: 'North', full_address: '1 North Road' });
    refs.l2 = await insertLocation(db, { name: 'South', full_address: '2 South Road' });
    refs.c1 = await insertCustomer(db, { first_name: 'Alice', last_name: 'Smith', email: 'alice@example.test', phone: '555-1000' });
    refs.c2 = await insertCustomer(db, { first_name: 'Bob', last_name: 'Jones', email: 'bob@sample.org', phone: '555-2000' });
    const at = (date: string, time: string, minutes: number) => {
      const start = new Date(`${date}T${time}:00+01:00`);
      const end = new Date(start.getTime() + minutes * 60_000);
      return {
        start_date: date,
        start_time: time,
        end_date: date,
        // Berlin is UTC+1 in January.
        end_time: new Date(end.getTime() + 3_600_000).toISOString().slice(11, 16),
        timezone: 'Europe/Berlin',
        start_at: start.toISOString(),
        end_at: end.toISOString(),
        duration: minutes,
      };
    };
    const add = (s: number, a: number, l: number, c: number, values: Parameters<typeof insertBooking>[2]) =>
      insertBooking(db, { serviceId: s, agentId: a, locationId: l, customerId: c }, values);
    ids.b1 = await add(refs.s1, refs.a1, refs.l1, refs.c1, {
      ...at('2030-01-07', '10:00', 60),
      status: 'pending',
      price_cents: 4500,
      booking_code: 'ALPHA001',
      created_at: '2026-01-01T10:00:00.000Z',
    });
    ids.b2 = await add(refs.s2, refs.a2, refs.l2, refs.c2, {
      ...at('2030-01-08', '09:00', 30),
      status: 'approved',
      payment_status: 'paid',
      price_cents: 2000,
      booking_code: 'BETA0002',
      created_at: '2026-02-01T10:00:00.000Z',
    });
    ids.b3 = await add(refs.s1, refs.a1, refs.l1, refs.c2, {
      ...at('2030-01-09', '11:00', 90),
      status: 'cancelled',
      payment_status: 'partially_paid',
      price_cents: 9000,
      booking_code: 'GAMMA003',
      created_at: '2026-03-01T10:00:00.000Z',
    });
    // Created 23:30 UTC on 15 March: 16 March in Berlin.
    ids.b4 = await add(refs.s2, refs.a2, refs.l2, refs.c1, {
      ...at('2030-01-06', '14:00', 45),
      status: 'completed',
      price_cents: 0,
      booking_code: 'DELTA004',
      created_at: '2026-03-15T23:30:00.000Z',
    });
    ids.b5 = await add(refs.s1, refs.a1, refs.l2, refs.c1, {
      ...at('2030-01-10', '12:00', 60),
      status: 'no_show',
      price_cents: 4500,
      booking_code: 'EPSIL005',
      created_at: '2026-04-01T10:00:00.000Z',
    });
    await db
      .insertInto('booking_meta')
      .values([
        { booking_id: ids.b1, meta_key: 'source', meta_value: 'kiosk-north' },
        { booking_id: ids.b2, meta_key: 'source', meta_value: 'web' },
        { booking_id: ids.b2, meta_key: 'campaign', meta_value: 'north-winter' },
      ])
      .execute();
  });

  async function list(query: string): Promise<Json> {
    const res = await call('GET', `/bookings?${query}`);
    expect(res.statusCode).toBe(200);
    return res.json();
  }
  const found = async (query: string): Promise<number[]> => ((await list(query)).data as { id: number }[]).map((b) => b.id).sort((a, b) => a - b);
  const of = (...names: (keyof typeof ids)[]): number[] => names.map((n) => ids[n]).sort((a, b) => a - b);

  it('lists every booking with the nested records and meta of the spec', async () => {
    const body = await list('sort=id&order=asc');
    expect(body.status).toBe('success');
    expect(body.meta).toEqual({ total: 5, page: 1, per_page: 20, total_pages: 1, has_next_page: false, has_prev_page: false });
    expect(body.data[0]).toEqual({
      id: ids.b1,
      booking_code: 'ALPHA001',
      status: 'pending',
      start_date: '2030-01-07',
      start_time: '10:00',
      end_time: '11:00',
      duration: 60,
      price: '45.00',
      currency: 'USD',
      payment_status: 'not_paid',
      notes: null,
      agent: { id: refs.a1, display_name: 'Annie', email: expect.any(String) },
      service: { id: refs.s1, name: 'Massage', duration: 60, price: '45.00' },
      location: { id: refs.l1, name: 'North', address: '1 North Road' },
      customer: { id: refs.c1, first_name: 'Alice', last_name: 'Smith', email: 'alice@example.test', phone: '555-1000' },
      created_at: '2026-01-01T10:00:00.000Z',
      updated_at: expect.any(String),
    });
    expect(body.data[1].agent.display_name).toBe('Ben Agent');
    expect(body.data[1].service.price).toBe('20.00');
  });

  it.each([
    ['status=pending', ['b1']],
    ['status=confirmed', ['b2']],
    ['status=approved', ['b2']],
    ['status=cancelled', ['b3']],
    ['status=completed', ['b4']],
    ['status=no_show', ['b5']],
  ] as const)('filters by %s', async (query, expected) => {
    expect(await found(query)).toEqual(of(...expected));
  });

  it('filters by customer, agent, service and location', async () => {
    expect(await found(`customer_id=${refs.c1}`)).toEqual(of('b1', 'b4', 'b5'));
    expect(await found(`agent_id=${refs.a2}`)).toEqual(of('b2', 'b4'));
    expect(await found(`service_id=${refs.s2}`)).toEqual(of('b2', 'b4'));
    expect(await found(`location_id=${refs.l2}`)).toEqual(of('b2', 'b4', 'b5'));
    expect(await found(`agent_id=${refs.a1}&location_id=${refs.l2}`)).toEqual(of('b5'));
  });

  it('filters by start date and by the site-local creation date', async () => {
    expect(await found('date_from=2030-01-08')).toEqual(of('b2', 'b3', 'b5'));
    expect(await found('date_to=2030-01-07')).toEqual(of('b1', 'b4'));
    expect(await found('date_from=2030-01-07&date_to=2030-01-08')).toEqual(of('b1', 'b2'));
    expect(await found('created_date_from=2026-03-16')).toEqual(of('b4', 'b5'));
    expect(await found('created_date_to=2026-03-15')).toEqual(of('b1', 'b2', 'b3'));
    expect(await found('created_date_from=2026-02-01&created_date_to=2026-03-01')).toEqual(of('b2', 'b3'));
  });

  it('filters by booking code (partial, any case) and payment status', async () => {
    expect(await found('booking_code=amma')).toEqual(of('b3'));
    expect(await found('booking_code=00')).toEqual(of('b1', 'b2', 'b3', 'b4', 'b5'));
    expect(await found('booking_code=%25')).toEqual([]);
    expect(await found('payment_status=paid')).toEqual(of('b2'));
    expect(await found('payment_status=partially_paid')).toEqual(of('b3'));
  });

  it('filters by duration and price ranges', async () => {
    expect(await found('duration_min=60')).toEqual(of('b1', 'b3', 'b5'));
    expect(await found('duration_max=45')).toEqual(of('b2', 'b4'));
    expect(await found('duration_min=45&duration_max=60')).toEqual(of('b1', 'b4', 'b5'));
    expect(await found('price_min=45')).toEqual(of('b1', 'b3', 'b5'));
    expect(await found('price_max=20')).toEqual(of('b2', 'b4'));
    expect(await found('price_min=20.01&price_max=89.99')).toEqual(of('b1', 'b5'));
  });

  it('filters by customer email and phone (partial, any case)', async () => {
    expect(await found('customer_email=SAMPLE')).toEqual(of('b2', 'b3'));
    expect(await found('customer_phone=2000')).toEqual(of('b2', 'b3'));
  });

  it('filters by metadata and includes it on request', async () => {
    expect(await found('meta_key=source&meta_value=NORTH')).toEqual(of('b1'));
    expect(await found('meta_key=campaign&meta_value=north')).toEqual(of('b2'));
    const withMeta = await list('include_meta=true&sort=id&order=asc');
    expect(withMeta.data.map((b: { meta: unknown }) => b.meta)).toEqual([{ source: 'kiosk-north' }, { campaign: 'north-winter', source: 'web' }, {}, {}, {}]);
    const without = await list('sort=id');
    expect(without.data.every((b: Json) => !('meta' in b))).toBe(true);
  });

  it('searches customer name, email and booking code', async () => {
    expect(await found('search=alice')).toEqual(of('b1', 'b4', 'b5'));
    expect(await found('search=bob%20jones')).toEqual(of('b2', 'b3'));
    expect(await found('search=sample.org')).toEqual(of('b2', 'b3'));
    expect(await found('search=delta')).toEqual(of('b4'));
    expect(await found('search=nobody')).toEqual([]);
  });

  it('sorts by start date (default, newest first), created_at, customer name, status and id', async () => {
    const order = async (query: string) => ((await list(query)).data as { id: number }[]).map((b) => b.id);
    expect(await order('')).toEqual([ids.b5, ids.b3, ids.b2, ids.b1, ids.b4]);
    expect(await order('order=asc')).toEqual([ids.b4, ids.b1, ids.b2, ids.b3, ids.b5]);
    expect(await order('sort=created_at&order=asc')).toEqual([ids.b1, ids.b2, ids.b3, ids.b4, ids.b5]);
    expect(await order('sort=customer_name&order=asc')).toEqual([ids.b1, ids.b4, ids.b5, ids.b2, ids.b3]);
    expect(await order('sort=status&order=asc')).toEqual([ids.b2, ids.b3, ids.b4, ids.b5, ids.b1]);
    expect(await order('sort=id')).toEqual([ids.b5, ids.b4, ids.b3, ids.b2, ids.b1]);
  });

  it('pages with the spec’s meta', async () => {
    const body = await list('per_page=2&page=2&sort=id&order=asc');
    expect(body.data.map((b: { id: number }) => b.id)).toEqual([ids.b3, ids.b4]);
    expect(body.meta).toEqual({ total: 5, page: 2, per_page: 2, total_pages: 3, has_next_page: true, has_prev_page: true });
    const last = await list('per_page=2&page=3');
    expect(last.meta).toMatchObject({ has_next_page: false, has_prev_page: true });
    expect(last.data).toHaveLength(1);
  });

  it.each([
    ['per_page=101', 'per_page'],
    ['per_page=0', 'per_page'],
    ['page=0', 'page'],
    ['status=bogus', 'status'],
    ['sort=bogus', 'sort'],
    ['order=up', 'order'],
    ['payment_status=free', 'payment_status'],
    ['date_from=2030-13-01', 'date_from'],
    ['created_date_to=yesterday', 'created_date_to'],
    ['customer_id=abc', 'customer_id'],
    ['meta_key=source', 'meta_value'],
    ['meta_value=web', 'meta_key'],
  ])('refuses %s with 400 invalid_request naming the parameter', async (query, parameter) => {
    const res = await call('GET', `/bookings?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.details).toHaveProperty(parameter);
  });

  it('needs a valid key (401 unauthorized) holding bookings:read (403 forbidden)', async () => {
    const key = await t.key({ permissions: ['bookings:create'] });
    expect((await call('GET', '/bookings', undefined, key)).json().error.code).toBe('forbidden');
    const anonymous = await t.app.inject({ method: 'GET', url: '/booking-api/v1/bookings' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('unauthorized');
  });
});
