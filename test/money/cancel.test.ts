import { describe, expect, it } from 'vitest';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { MONDAY, newSite, requester } from '../bookings/setup.js';

const PUBLIC_URL = 'https://book.example.test';

/** The one cancellation path (docs/money.md), reached by every way a booking is cancelled. */
describe.each(DIALECTS)('cancelling and money (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin', PUBLIC_URL });
  const call = requester(t);

  /** A booking of 45.00 (the site's service price) and its order id. */
  async function book(time = '10:00'): Promise<{ id: number; orderId: number; customerId: number; link: string }> {
    const site = await newSite(t.db);
    const res = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: time, customer_id: site.customerId, send_confirmation: false });
    expect(res.statusCode, res.body).toBe(201);
    const data: Json = res.json().data;
    const detail: Json = (await call('GET', `/bookings/${data.id}`)).json().data;
    return { id: data.id, orderId: data.order.id, customerId: site.customerId, link: detail.manage_booking_for_customer };
  }
  const order = async (id: number): Promise<Json> => (await call('GET', `/orders/${id}`)).json();
  const invoices = async (id: number): Promise<string[]> => ((await call('GET', `/orders/${id}/invoices`)).json().data as Json[]).map((i) => i.status as string);
  const pay = (orderId: number, amount: number, kind = 'capture') => call('POST', '/payments', { order_id: orderId, amount, kind });
  const cancelByLink = async (link: string) => {
    const url = new URL(link);
    const form = new URLSearchParams({ role: 'customer', key: url.searchParams.get('key') ?? '' }).toString();
    const res = await t.app.inject({ method: 'POST', url: `${url.pathname}/cancel`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
    expect(res.statusCode).toBe(303);
  };

  const ways: [string, (b: Awaited<ReturnType<typeof book>>) => Promise<void>][] = [
    ['PUT /bookings status', async (b) => void expect((await call('PUT', `/bookings/${b.id}`, { status: 'cancelled' })).statusCode).toBe(200)],
    ['the manage link', (b) => cancelByLink(b.link)],
    ['PUT /orders status', async (b) => void expect((await call('PUT', `/orders/${b.orderId}`, { status: 'cancelled' })).statusCode).toBe(200)],
  ];

  it.each(ways)('with nothing paid, cancelling through %s cancels the order and voids its invoice', async (_, cancel) => {
    const b = await book();
    await cancel(b);
    expect(await order(b.orderId)).toMatchObject({ status: 'cancelled', subtotal: '0.00', total: '0.00', payment_status: 'not_paid', balance_due: '0.00' });
    expect(await invoices(b.orderId)).toEqual(['void']);
    expect((await call('GET', `/bookings/${b.id}`)).json().data.status).toBe('cancelled');
  });

  it.each(ways)('with money taken, cancelling through %s keeps the order open owing it back until refunded', async (_, cancel) => {
    const b = await book();
    await pay(b.orderId, 45);
    await cancel(b);
    expect(await order(b.orderId)).toMatchObject({ status: 'open', total: '0.00', amount_paid: '45.00', balance_due: '-45.00' });
    expect((await pay(b.orderId, 1)).statusCode).toBe(422);
    await pay(b.orderId, 40, 'refund');
    expect(await order(b.orderId)).toMatchObject({ status: 'open', payment_status: 'partially_refunded', balance_due: '-5.00' });
    await pay(b.orderId, 5, 'refund');
    expect(await order(b.orderId)).toMatchObject({ status: 'cancelled', payment_status: 'refunded', amount_paid: '0.00', balance_due: '0.00' });
    expect((await call('GET', `/bookings/${b.id}`)).json().data.payment_status).toBe('refunded');
  });

  it('frees the slot when the order is cancelled, and brings a cancelled booking back with its order', async () => {
    const b = await book('11:00');
    await call('PUT', `/orders/${b.orderId}`, { status: 'cancelled' });
    expect((await call('PUT', `/orders/${b.orderId}`, { status: 'open' })).statusCode).toBe(422);
    const back = await call('PUT', `/bookings/${b.id}`, { status: 'approved' });
    expect(back.statusCode, back.body).toBe(200);
    expect(await order(b.orderId)).toMatchObject({ status: 'open', subtotal: '45.00', total: '45.00', payment_status: 'not_paid', balance_due: '45.00' });
    expect(await invoices(b.orderId)).toEqual(['open']);
  });

  it('gives a booking created cancelled a cancelled order charging nothing, which reopens when it is brought back', async () => {
    const site = await newSite(t.db);
    const res = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '15:00', customer_id: site.customerId, status: 'cancelled' });
    expect(res.statusCode, res.body).toBe(201);
    const created: Json = res.json().data;
    expect(created).toMatchObject({ status: 'cancelled', payment_status: 'not_paid' });
    expect(await order(created.order.id)).toMatchObject({ status: 'cancelled', subtotal: '0.00', total: '0.00', payment_status: 'not_paid', items: [{ status: 'cancelled' }] });
    expect(await invoices(created.order.id)).toEqual(['void']);
    expect((await call('PUT', `/bookings/${created.id}`, { status: 'approved' })).statusCode).toBe(200);
    expect(await order(created.order.id)).toMatchObject({ status: 'open', subtotal: '45.00', total: '45.00', payment_status: 'not_paid', balance_due: '45.00' });
    expect(await invoices(created.order.id)).toEqual(['open']);
  });

  it('brings back the invoices a close voided as they were; one voided by hand stays void', async () => {
    const site = await newSite(t.db);
    await t.db.updateTable('services').set({ deposit_amount_cents: 1_000 }).where('id', '=', site.serviceId).execute();
    const made = (await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '16:00', customer_id: site.customerId, send_confirmation: false })).json().data;
    const [, remaining] = (await call('GET', `/orders/${made.order.id}/invoices`)).json().data as Json[];
    expect((await call('PUT', `/orders/${made.order.id}/invoices/${remaining.id}`, { status: 'void' })).statusCode).toBe(200);
    expect((await call('PUT', `/bookings/${made.id}`, { status: 'cancelled' })).statusCode).toBe(200);
    expect(await invoices(made.order.id)).toEqual(['void', 'void']);
    expect((await call('PUT', `/bookings/${made.id}`, { status: 'approved' })).statusCode).toBe(200);
    expect(await invoices(made.order.id)).toEqual(['open', 'void']);
  });

  it('refuses to delete a booking whose order holds money (409 booking_has_payments); after a refund it goes', async () => {
    const b = await book();
    await pay(b.orderId, 20);
    const refused = await call('DELETE', `/bookings/${b.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('booking_has_payments');
    await pay(b.orderId, 20, 'refund');
    expect((await call('DELETE', `/bookings/${b.id}`)).statusCode).toBe(200);
    expect(await order(b.orderId)).toMatchObject({ status: 'cancelled', subtotal: '0.00', total: '0.00', payment_status: 'refunded' });
  });

  it('takes no money on a cancelled order: a capture is refused naming the limit, an invoice cannot be set to paid', async () => {
    const b = await book();
    expect((await call('PUT', `/bookings/${b.id}`, { status: 'cancelled' })).statusCode).toBe(200);
    const refused = await pay(b.orderId, 1);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().details).toEqual({ amount: 'must be at most 0.00 (the balance due)' });
    const invoice = ((await call('GET', `/orders/${b.orderId}/invoices`)).json().data as Json[])[0];
    const paid = await call('PUT', `/orders/${b.orderId}/invoices/${invoice.id}`, { status: 'paid' });
    expect(paid.statusCode).toBe(422);
    expect(paid.json().error.details.status).toMatch(/order is cancelled/);
    expect((await call('GET', `/payments?order_id=${b.orderId}`)).json().data).toEqual([]);
    expect(await order(b.orderId)).toMatchObject({ status: 'cancelled', amount_paid: '0.00', balance_due: '0.00' });
  });

  it('deletes an unpaid booking through the cancellation path: its order cancelled with nothing to charge', async () => {
    const b = await book();
    expect((await call('DELETE', `/bookings/${b.id}`)).statusCode).toBe(200);
    expect(await order(b.orderId)).toMatchObject({ status: 'cancelled', subtotal: '0.00', total: '0.00', items: [] });
    expect(await invoices(b.orderId)).toEqual(['void']);
  });
});
