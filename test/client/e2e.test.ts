import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createBookingClient, type BookingClient } from '../../clients/typescript/src/index.js';
import { MONDAY, newSite, type Site } from '../bookings/setup.js';
import { DIALECTS, useTestApp } from '../helper.js';

const API = '/booking-api/v1';

/** The data of a successful answer; a failed one fails the test with its status and error body. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

describe.each(DIALECTS)('the typed client against a listening server (%s)', (dialect) => {
  const t = useTestApp(dialect);
  let client: BookingClient;
  let site: Site;
  beforeAll(async () => {
    const baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = createBookingClient({ baseUrl, apiKey: await t.key() });
    site = await newSite(t.db);
  });

  it('finds a slot, books it, moves it, pays, refunds and cancels, each answer typed', async () => {
    const where = { service_id: site.serviceId, agent_id: site.agentId, location_id: site.locationId };
    const free = ok(await client.GET(`${API}/availability`, { params: { query: { ...where, date: MONDAY } } })).data;
    const [first] = free.days[0]?.slots ?? [];
    expect(first).toMatchObject({ start_time: '09:00', end_time: '10:00', agent_ids: [site.agentId] });

    const booked = ok(
      await client.POST(`${API}/bookings`, {
        body: {
          ...where,
          start_date: MONDAY,
          start_time: first?.start_time ?? '',
          status: 'approved',
          customer: { first_name: 'Ada', last_name: 'Client', email: 'ada@example.test' },
        },
      }),
    ).data;
    expectTypeOf(booked.status).toEqualTypeOf<'pending' | 'approved' | 'cancelled' | 'completed' | 'no_show'>();
    expect(booked).toMatchObject({ status: 'approved', start_time: '09:00', price: '45.00', payment_status: 'not_paid' });
    const bookingId = booked.id;
    const orderId = booked.order_id ?? 0;
    expect(orderId).toBeGreaterThan(0);

    const path = { params: { path: { id: bookingId } } };
    const moved = ok(await client.PUT(`${API}/bookings/{id}`, { ...path, body: { start_time: '11:00' } })).data;
    expect(moved).toMatchObject({ id: bookingId, start_time: '11:00', end_time: '12:00' });

    const paid = ok(await client.POST(`${API}/payments`, { body: { order_id: orderId, amount: 45 } })).data;
    expect(paid).toMatchObject({ order_id: orderId, kind: 'capture', amount: '45.00', status: 'succeeded' });
    expect(ok(await client.GET(`${API}/bookings/{id}`, path)).data.payment_status).toBe('paid');

    const refunded = ok(await client.POST(`${API}/payments`, { body: { order_id: orderId, amount: 45, kind: 'refund' } })).data;
    expect(refunded).toMatchObject({ order_id: orderId, kind: 'refund', amount: '45.00' });

    const cancelled = ok(await client.PUT(`${API}/bookings/{id}`, { ...path, body: { status: 'cancelled' } })).data;
    expect(cancelled).toMatchObject({ id: bookingId, status: 'cancelled', payment_status: 'refunded' });
  });

  it('hands back a refused request as a typed error, not data', async () => {
    const missing = await client.GET(`${API}/bookings/{id}`, { params: { path: { id: 999_999 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    expect(missing.error?.error.code).toBe('booking_not_found');
  });
});
