import { describe, expect, it } from 'vitest';
import { MONDAY, newSite, requester, TUESDAY } from '../bookings/setup.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { feedSettled, type FeedEvent } from './settle.js';

const KINDS = 'customer.created,customer.updated,customer.deleted,order.updated,order.cancelled,invoice.paid,invoice.voided,payment.created,payment.updated,payment.refunded';

/** Customers', orders', invoices' and payments' events, from every path that changes them. */
describe.each(DIALECTS)('events of customers, orders, invoices and payments (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);
  let cursor: number | undefined;

  /** The events of these kinds since the last call. */
  async function since(): Promise<FeedEvent[]> {
    await feedSettled(t.db);
    const res = await call('GET', `/events?limit=1000&types=${KINDS}${cursor === undefined ? '' : `&after=${cursor}`}`);
    expect(res.statusCode).toBe(200);
    const page = res.json<{ data: FeedEvent[]; next_after: number | null }>();
    cursor = page.next_after ?? undefined;
    return page.data;
  }

  it('a customer: created, updated (only when something changed), deleted', async () => {
    await since();
    const created = await call('POST', '/customers', { first_name: 'Ada', last_name: 'Lovelace', email: `ada.${dialect}@example.test` });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id as number;
    const updated = await call('PUT', `/customers/${id}`, { phone: '+49 30 1234567' });
    await call('PUT', `/customers/${id}`, { phone: '+49 30 1234567' });
    expect((await call('PUT', `/customers/${id}`, { email: 'not an email' })).statusCode).toBeGreaterThanOrEqual(400);
    const deleted = await call('DELETE', `/customers/${id}`);
    expect(deleted.statusCode).toBe(200);

    const events = await since();
    expect(events.map((e) => e.type)).toEqual(['customer.created', 'customer.updated', 'customer.deleted']);
    expect(events.map((e) => e.request_id)).toEqual([created, updated, deleted].map((r) => r.headers['x-request-id']));
    const shown = { ...created.json().data } as Record<string, unknown>;
    delete shown.user_id;
    delete shown.welcome_email_sent;
    expect(events[0]!.data).toEqual(shown);
    expect(events[1]!.previous_attributes).toMatchObject({ phone: null });
    expect(events[1]!.data.phone).toBe('+49 30 1234567');
    expect(events[2]!.data).toMatchObject({ id, email: `ada.${dialect}@example.test` });
  });

  it('a booking that makes or edits its customer records customer events too', async () => {
    const site = await newSite(t.db);
    await since();
    const booked = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      start_date: MONDAY,
      start_time: '10:00',
      customer: { first_name: 'New', last_name: 'Comer', email: `new.${dialect}@example.test` },
      send_confirmation: false,
    });
    expect(booked.statusCode).toBe(201);
    await call('PUT', `/bookings/${booked.json().data.id}`, { customer: { first_name: 'Renamed' } });
    const events = await since();
    expect(events.map((e) => e.type)).toEqual(['customer.created', 'customer.updated']);
    expect(events[0]!.data).toMatchObject({ email: `new.${dialect}@example.test` });
    expect(events[1]!.previous_attributes).toMatchObject({ first_name: 'New' });
  });

  it('money: a payment pays the invoice, a refund and a cancellation close the order, each recorded', async () => {
    const site = await newSite(t.db);
    const booked = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: TUESDAY, start_time: '10:00', customer_id: site.customerId, send_confirmation: false });
    const { id: bookingId, order } = booked.json().data as { id: number; order: { id: number } };
    await since();

    const paid = await call('POST', '/payments', { order_id: order.id, amount: 45 });
    expect(paid.statusCode).toBe(201);
    let events = await since();
    expect(events.map((e) => e.type).sort()).toEqual(['invoice.paid', 'order.updated', 'payment.created']);
    const byType = (type: string) => events.find((e) => e.type === type)!;
    expect(byType('payment.created').data).toMatchObject({ id: paid.json().data.id, amount: '45.00', kind: 'capture' });
    expect(byType('invoice.paid').previous_attributes).toMatchObject({ status: 'open' });
    expect(byType('order.updated').previous_attributes).toMatchObject({ payment_status: 'not_paid' });
    expect(byType('order.updated').data).toMatchObject({ id: order.id, payment_status: 'fully_paid' });

    await call('PUT', `/payments/${paid.json().data.id}`, { notes: 'at the desk' });
    events = await since();
    expect(events.map((e) => e.type)).toEqual(['payment.updated']);
    expect(events[0]!.previous_attributes).toMatchObject({ notes: null });

    await call('PUT', `/bookings/${bookingId}`, { status: 'cancelled' });
    await call('POST', '/payments', { order_id: order.id, amount: 45, kind: 'refund' });
    events = await since();
    expect(events.map((e) => e.type)).toEqual(['order.updated', 'payment.refunded', 'order.cancelled']);
    expect(events[2]!.data).toMatchObject({ status: 'cancelled', payment_status: 'refunded' });
  });

  it('an invoice voided and an order changed by hand', async () => {
    const site = await newSite(t.db);
    const booked = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: TUESDAY, start_time: '12:00', customer_id: site.customerId, send_confirmation: false });
    const orderId = booked.json().data.order.id as number;
    const [invoice] = (await call('GET', `/orders/${orderId}/invoices`)).json().data as { id: number }[];
    await since();
    const voided = await call('PUT', `/orders/${orderId}/invoices/${invoice!.id}`, { status: 'void' });
    expect(voided.statusCode).toBe(200);
    await call('PUT', `/orders/${orderId}`, { notes: 'by phone' });
    expect((await call('PUT', `/orders/${orderId}`, { status: 'no such status' })).statusCode).toBe(400);
    const events = await since();
    expect(events.map((e) => e.type)).toEqual(['invoice.voided', 'order.updated']);
    expect(events[0]!.data).toMatchObject({ id: invoice!.id, status: 'void' });
    expect(events[1]!.previous_attributes).toMatchObject({ notes: null });
  });
});
