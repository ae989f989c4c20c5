import { describe, expect, it } from 'vitest';
import { MONDAY, newSite, requester } from '../bookings/setup.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

const PUBLIC_URL = 'https://book.example.test';

describe.each(DIALECTS)('manage-booking links (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin', PUBLIC_URL });
  const call = requester(t);

  async function booked(): Promise<Json> {
    const site = await newSite(t.db);
    await t.db.updateTable('services').set({ name: 'Cut <script>alert(1)</script>' }).where('id', '=', site.serviceId).execute();
    const created = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      start_date: MONDAY,
      start_time: '10:00',
      customer: { first_name: 'Ada', last_name: 'Byron', email: `ada.${Math.random()}@example.test` },
    });
    expect(created.statusCode, created.body).toBe(201);
    return (await call('GET', `/bookings/${created.json().data.id}`)).json().data;
  }
  const open = (link: string) => t.app.inject({ method: 'GET', url: link.slice(PUBLIC_URL.length) });

  it("shows the booking behind the customer's and the agent's link, escaped, in a page no one may frame", async () => {
    const booking = await booked();
    for (const link of [booking.manage_booking_for_customer, booking.manage_booking_for_agent] as string[]) {
      expect(link.startsWith(`${PUBLIC_URL}/manage-booking/${booking.booking_code}?`)).toBe(true);
      const page = await open(link);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.body).toContain(booking.booking_code);
      expect(page.body).toContain('2030-01-07 10:00–11:00 (Europe/Berlin)');
      expect(page.body).toContain('Cut &#60;script&#62;alert(1)&#60;/script&#62;');
      expect(page.body).not.toContain('<script>');
      expect(page.body).toContain('Cancel this booking');
    }
  });

  it('answers 404 for a wrong key, the other role with the same key, or an unknown code', async () => {
    const booking = await booked();
    const customer = new URL(booking.manage_booking_for_customer as string);
    const key = customer.searchParams.get('key') ?? '';
    for (const path of [
      `${customer.pathname}?role=customer&key=${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`,
      `${customer.pathname}?role=agent&key=${key}`,
      `/manage-booking/NOSUCHCODE?role=customer&key=${key}`,
      `${customer.pathname}?role=owner&key=${key}`,
      `${customer.pathname}`,
    ]) {
      const page = await t.app.inject({ method: 'GET', url: path });
      expect(page.statusCode, path).toBe(404);
      expect(page.body).toContain('Booking not found');
      expect(page.body).not.toContain(booking.booking_code);
    }
  });

  it('cancels the booking from its link, with a cancellation mail, and then offers no cancel', async () => {
    const booking = await booked();
    const link = new URL(booking.manage_booking_for_customer as string);
    const form = new URLSearchParams({ role: 'customer', key: link.searchParams.get('key') ?? '' }).toString();
    const wrong = await t.app.inject({ method: 'POST', url: `${link.pathname}/cancel`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.replace('key=', 'key=x') });
    expect(wrong.statusCode).toBe(404);
    expect((await call('GET', `/bookings/${booking.id}`)).json().data.status).toBe('pending');

    const cancelled = await t.app.inject({ method: 'POST', url: `${link.pathname}/cancel`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
    expect(cancelled.statusCode).toBe(303);
    expect(cancelled.headers.location).toBe(`${link.pathname}${link.search}&done=cancelled`);
    expect((await call('GET', `/bookings/${booking.id}`)).json().data.status).toBe('cancelled');
    const mails = await t.db.selectFrom('outbox').select('kind').where('recipient', '=', booking.customer.email).execute();
    expect(mails.filter((m) => m.kind === 'booking_cancellation')).toHaveLength(1);

    const page = await t.app.inject({ method: 'GET', url: String(cancelled.headers.location) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('The booking is cancelled.');
    expect(page.body).not.toContain('Cancel this booking');
  });

  it('answers a malformed, oversized or unparsable cancel with a 4xx page, never 500', async () => {
    const booking = await booked();
    const url = `/manage-booking/${booking.booking_code}/cancel`;
    for (const [type, payload, status] of [
      ['application/json', '{', 400],
      ['application/json', '', 400],
      ['multipart/form-data; boundary=x', '--x--', 415],
      ['application/x-www-form-urlencoded', `key=${'k'.repeat(1_100_000)}`, 413],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url, headers: { 'content-type': type }, payload });
      expect(res.statusCode, type).toBe(status);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Request not understood');
    }
    expect((await call('GET', `/bookings/${booking.id}`)).json().data.status).toBe('pending');
  });

  it("stop opening the booking once it moves to another customer, or its customer's email changes; new links work", async () => {
    const booking = await booked();
    const links = (b: Json) => [b.manage_booking_for_customer, b.manage_booking_for_agent] as string[];
    const read = async (): Promise<Json> => (await call('GET', `/bookings/${booking.id}`)).json().data;
    const statuses = async (list: string[]) => Promise.all(list.map(async (link) => (await open(link)).statusCode));
    const first = links(booking);
    expect(await statuses(first)).toEqual([200, 200]);

    // Only the case of the email: the same address, the same links.
    const sameAddress = await call('PUT', `/customers/${booking.customer.id}`, { email: String(booking.customer.email).toUpperCase() });
    expect(sameAddress.statusCode, sameAddress.body).toBe(200);
    expect(links(await read())).toEqual(first);

    const corrected = await call('PUT', `/customers/${booking.customer.id}`, { email: `corrected.${Math.random()}@example.test` });
    expect(corrected.statusCode, corrected.body).toBe(200);
    const second = links(await read());
    expect(await statuses(first)).toEqual([404, 404]);
    expect(await statuses(second)).toEqual([200, 200]);

    const viaBooking = await call('PUT', `/bookings/${booking.id}`, { customer: { email: `again.${Math.random()}@example.test` } });
    expect(viaBooking.statusCode, viaBooking.body).toBe(200);
    const third = links(viaBooking.json().data);
    expect(await statuses(second)).toEqual([404, 404]);
    expect(await statuses(third)).toEqual([200, 200]);

    const other = await call('POST', '/customers', { first_name: 'Other', last_name: 'Person', email: `other.${Math.random()}@example.test` });
    const moved = await call('PUT', `/bookings/${booking.id}`, { customer_id: other.json().data.id });
    expect(moved.statusCode, moved.body).toBe(200);
    const fourth = links(moved.json().data);
    expect(await statuses(third)).toEqual([404, 404]);
    expect(await statuses(fourth)).toEqual([200, 200]);

    const thirdParty = await call('POST', '/customers', { first_name: 'Third', last_name: 'Person' });
    expect((await call('PUT', `/orders/${booking.order.id}`, { customer_id: thirdParty.json().data.id })).statusCode).toBe(200);
    expect(await statuses(fourth)).toEqual([404, 404]);
    expect(await statuses(links(await read()))).toEqual([200, 200]);
  });
});
