import { describe, expect, it } from 'vitest';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { API, bookedOrder, bookingPaymentStatus } from './setup.js';

describe.each(DIALECTS)('invoices and transactions (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'America/New_York' });

  async function call(method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) {
    return t.app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': await t.key() }, ...(payload ? { payload } : {}) });
  }
  const order = async (id: number): Promise<Json> => (await call('GET', `/orders/${id}`)).json();
  const transactions = async (id: number): Promise<Json[]> => (await call('GET', `/orders/${id}/transactions`)).json().data as Json[];

  describe('GET /orders/{id}/invoices', () => {
    it("lists the order's invoices in envelope B with pagination", async () => {
      const o = await bookedOrder(t.db, { priceCents: 7_525 });
      const res = await call('GET', `/orders/${o.orderId}/invoices`);
      expect(res.statusCode).toBe(200);
      const body: Json = res.json();
      expect(body.success).toBe(true);
      expect(body.pagination).toEqual({ page: 1, per_page: 10, total: 1, total_pages: 1 });
      expect(body.data).toEqual([
        {
          id: o.invoiceId,
          order_id: o.orderId,
          invoice_number: expect.stringMatching(/^INV-/),
          status: 'open',
          charge_amount: '75.25',
          currency: 'USD',
          payment_portion: 'full',
          due_at: null,
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
          updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        },
      ]);
    });

    it('answers 404 order_not_found for an unknown order', async () => {
      const res = await call('GET', '/orders/999999/invoices');
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('order_not_found');
    });
  });

  describe('GET /orders/{id}/invoices/{invoice_id}', () => {
    it('reads one invoice in envelope B, with due_at in site time', async () => {
      const o = await bookedOrder(t.db);
      await t.db.updateTable('invoices').set({ due_at: '2026-03-01T05:00:00.000Z' }).where('id', '=', o.invoiceId).execute();
      const res = await call('GET', `/orders/${o.orderId}/invoices/${o.invoiceId}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ success: true, data: { id: o.invoiceId, order_id: o.orderId, due_at: '2026-03-01 00:00:00' } });
    });

    it("answers 404 invoice_not_found for another order's invoice and an unknown one", async () => {
      const a = await bookedOrder(t.db);
      const b = await bookedOrder(t.db);
      for (const url of [`/orders/${a.orderId}/invoices/${b.invoiceId}`, `/orders/${a.orderId}/invoices/999999`]) {
        const res = await call('GET', url);
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('invoice_not_found');
      }
    });
  });

  describe('PUT /orders/{id}/invoices/{invoice_id}', () => {
    it('paid records a succeeded transaction for the balance; order fully_paid, booking paid', async () => {
      const o = await bookedOrder(t.db, { priceCents: 6_000 });
      const res = await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, { status: 'paid' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ success: true, data: { id: o.invoiceId, status: 'paid', charge_amount: '60.00' } });

      const recorded = await transactions(o.orderId);
      expect(recorded).toEqual([
        expect.objectContaining({
          order_id: o.orderId,
          booking_id: o.bookingId,
          invoice_id: o.invoiceId,
          customer_id: o.customerId,
          amount: '60.00',
          status: 'succeeded',
          processor: 'manual',
          payment_method: 'other',
          payment_portion: 'full',
          kind: 'capture',
        }),
      ]);
      expect((await order(o.orderId)).payment_status).toBe('fully_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('paid');
    });

    it('records only the unpaid remainder after a partial payment', async () => {
      const o = await bookedOrder(t.db, { priceCents: 10_000 });
      await call('POST', '/payments', { order_id: o.orderId, amount: 33.33 });
      expect((await order(o.orderId)).payment_status).toBe('partially_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('partially_paid');

      await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, { status: 'paid' });
      expect((await transactions(o.orderId)).map((x) => x.amount as string)).toEqual(['33.33', '66.67']);
      expect((await order(o.orderId)).payment_status).toBe('fully_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('paid');
    });

    it('records at most the charge amount, which can be set in the same request', async () => {
      const o = await bookedOrder(t.db, { priceCents: 10_000 });
      const res = await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, { status: 'paid', charge_amount: 25.005 });
      expect(res.json().data.charge_amount).toBe('25.01');
      expect((await transactions(o.orderId)).map((x) => x.amount as string)).toEqual(['25.01']);
      expect((await order(o.orderId)).payment_status).toBe('partially_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('partially_paid');
    });

    it('records nothing when nothing is owed, nor when the invoice already was paid', async () => {
      const o = await bookedOrder(t.db, { priceCents: 2_000 });
      await call('POST', '/payments', { order_id: o.orderId, amount: 20 });
      await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, { status: 'paid' });
      expect(await transactions(o.orderId)).toHaveLength(1);

      const p = await bookedOrder(t.db, { priceCents: 2_000 });
      await call('PUT', `/orders/${p.orderId}/invoices/${p.invoiceId}`, { status: 'paid' });
      await call('PUT', `/orders/${p.orderId}/invoices/${p.invoiceId}`, { status: 'paid' });
      expect(await transactions(p.orderId)).toHaveLength(1);
    });

    it('changes charge_amount and other statuses without recording money', async () => {
      const o = await bookedOrder(t.db);
      const res = await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, { charge_amount: 12.5 });
      expect(res.json().data).toMatchObject({ status: 'open', charge_amount: '12.50' });
      const voided = await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, { status: 'void' });
      expect(voided.json().data.status).toBe('void');
      expect(await transactions(o.orderId)).toEqual([]);
      expect((await order(o.orderId)).payment_status).toBe('not_paid');
    });

    it('refuses an empty body, an unknown status and a negative charge with 400', async () => {
      const o = await bookedOrder(t.db);
      for (const payload of [{}, { status: 'settled' }, { charge_amount: -5 }]) {
        const res = await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, payload);
        expect(res.statusCode).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
      }
    });

    it('answers 404 for an unknown invoice or order, and needs orders:write', async () => {
      const o = await bookedOrder(t.db);
      expect((await call('PUT', `/orders/${o.orderId}/invoices/999999`, { status: 'paid' })).json().error.code).toBe('invoice_not_found');
      expect((await call('PUT', `/orders/999999/invoices/${o.invoiceId}`, { status: 'paid' })).json().error.code).toBe('order_not_found');
      const forbidden = await t.app.inject({
        method: 'PUT',
        url: `${API}/orders/${o.orderId}/invoices/${o.invoiceId}`,
        headers: { 'x-api-key': await t.key({ permissions: ['orders:read'] }) },
        payload: { status: 'paid' },
      });
      expect(forbidden.statusCode).toBe(403);
      expect(await transactions(o.orderId)).toEqual([]);
    });
  });

  describe('GET /orders/{id}/transactions and /{transaction_id}', () => {
    it('lists oldest first in envelope B and reads one', async () => {
      const o = await bookedOrder(t.db);
      const first = (await call('POST', '/payments', { order_id: o.orderId, amount: 10 })).json().data;
      const second = (await call('POST', '/payments', { order_id: o.orderId, amount: 5, status: 'failed' })).json().data;

      const list = (await call('GET', `/orders/${o.orderId}/transactions?per_page=1`)).json();
      expect(list).toMatchObject({ success: true, pagination: { page: 1, per_page: 1, total: 2, total_pages: 2 } });
      expect(list.data.map((x: { id: number }) => x.id)).toEqual([first.id]);

      const all = (await call('GET', `/orders/${o.orderId}/transactions`)).json();
      expect(all.pagination).toEqual({ page: 1, per_page: 10, total: 2, total_pages: 1 });
      expect(all.data.map((x: { id: number }) => x.id)).toEqual([first.id, second.id]);

      const one = await call('GET', `/orders/${o.orderId}/transactions/${second.id}`);
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual({ success: true, data: second });
    });

    it("answers 404 transaction_not_found for another order's transaction", async () => {
      const a = await bookedOrder(t.db);
      const b = await bookedOrder(t.db);
      const paid = (await call('POST', '/payments', { order_id: b.orderId, amount: 1 })).json().data;
      const res = await call('GET', `/orders/${a.orderId}/transactions/${paid.id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('transaction_not_found');
      expect((await call('GET', '/orders/999999/transactions')).json().error.code).toBe('order_not_found');
    });
  });
});
