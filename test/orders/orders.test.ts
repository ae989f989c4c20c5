import { describe, expect, it } from 'vitest';
import { insertCustomer } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { API, bookedOrder, bookingPaymentStatus } from './setup.js';

describe.each(DIALECTS)('orders (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });

  async function get(url: string, key?: string) {
    return t.app.inject({ method: 'GET', url: `${API}${url}`, headers: { 'x-api-key': key ?? (await t.key()) } });
  }
  async function put(url: string, payload: unknown) {
    return t.app.inject({ method: 'PUT', url: `${API}${url}`, headers: { 'x-api-key': await t.key() }, payload: payload as object });
  }

  describe('GET /orders/{id}', () => {
    it('answers the bare order with its items and site-time timestamps', async () => {
      const order = await bookedOrder(t.db, { priceCents: 4_550 });
      await t.db
        .updateTable('orders')
        .set({ created_at: '2026-01-15T12:00:00.000Z', updated_at: '2026-07-15T12:00:00.000Z' })
        .where('id', '=', order.orderId)
        .execute();

      const res = await get(`/orders/${order.orderId}`);
      expect(res.statusCode).toBe(200);
      const body: Json = res.json();
      expect(body.success).toBeUndefined();
      expect(body.data).toBeUndefined();
      expect(body).toMatchObject({
        id: order.orderId,
        subtotal: '45.50',
        total: '45.50',
        amount_paid: '0.00',
        balance_due: '45.50',
        currency: 'USD',
        tax_total: '0.00',
        discount_total: 0,
        coupon_discount: 0,
        coupon_code: null,
        status: 'open',
        payment_status: 'not_paid',
        fulfillment_status: 'not_fulfilled',
        customer_id: order.customerId,
        customer_comment: null,
        notes: null,
        ip_address: null,
        source_id: null,
        source_url: null,
        // Berlin is UTC+1 in January and UTC+2 in July.
        created_at: '2026-01-15 13:00:00',
        updated_at: '2026-07-15 14:00:00',
      });
      expect(body.confirmation_code).toMatch(/^[A-Z2-9]{12}$/);
      expect(body.items).toEqual([
        {
          id: order.orderItemId,
          booking_id: order.bookingId,
          variant: 'booking',
          status: 'active',
          item_data: expect.any(String),
          quantity: 1,
          subtotal: '45.50',
          total: '45.50',
        },
      ]);
      expect(JSON.parse(body.items[0].item_data)).toMatchObject({ booking_id: order.bookingId });
    });

    it('answers 404 order_not_found for an unknown id and 400 for a malformed one', async () => {
      const missing = await get('/orders/999999');
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('order_not_found');
      const tooLarge = await get('/orders/99999999999');
      expect(tooLarge.statusCode).toBe(400);
      expect(tooLarge.json().error.details).toHaveProperty('id');
      const malformed = await get('/orders/abc');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().error).toMatchObject({ code: 'invalid_request', details: { id: expect.any(String) } });
    });

    it('needs orders:read', async () => {
      const order = await bookedOrder(t.db);
      const res = await get(`/orders/${order.orderId}`, await t.key({ permissions: ['coupons:read'] }));
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
      expect((await get(`/orders/${order.orderId}`, await t.key({ permissions: ['orders:read'] }))).statusCode).toBe(200);
    });
  });

  describe('GET /orders', () => {
    it('lists newest first with data and pagination only, 10 per page by default', async () => {
      const customerId = await insertCustomer(t.db);
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) ids.push((await bookedOrder(t.db, { customerId })).orderId);

      const res = await get(`/orders?customer_id=${customerId}`);
      expect(res.statusCode).toBe(200);
      const body: Json = res.json();
      expect(Object.keys(body).sort()).toEqual(['data', 'pagination']);
      expect(body.pagination).toEqual({ page: 1, per_page: 10, total: 12, total_pages: 2 });
      expect(body.data.map((o: { id: number }) => o.id)).toEqual(ids.slice().reverse().slice(0, 10));
      expect(Object.keys(body.data[0]).sort()).toEqual(
        [
          'id',
          'confirmation_code',
          'subtotal',
          'total',
          'amount_paid',
          'balance_due',
          'currency',
          'status',
          'fulfillment_status',
          'payment_status',
          'customer_id',
          'created_at',
          'updated_at',
        ].sort(),
      );
      expect(body.data[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

      const second = (await get(`/orders?customer_id=${customerId}&page=2&per_page=5`)).json();
      expect(second.pagination).toEqual({ page: 2, per_page: 5, total: 12, total_pages: 3 });
      expect(second.data.map((o: { id: number }) => o.id)).toEqual(ids.slice().reverse().slice(5, 10));
    });

    it('filters by status and payment_status', async () => {
      const customerId = await insertCustomer(t.db);
      const a = await bookedOrder(t.db, { customerId });
      const b = await bookedOrder(t.db, { customerId });
      await t.db.updateTable('orders').set({ status: 'completed', payment_status: 'fully_paid' }).where('id', '=', b.orderId).execute();

      const completed = (await get(`/orders?customer_id=${customerId}&status=completed`)).json();
      expect(completed.data.map((o: { id: number }) => o.id)).toEqual([b.orderId]);
      const unpaid = (await get(`/orders?customer_id=${customerId}&payment_status=not_paid`)).json();
      expect(unpaid.data.map((o: { id: number }) => o.id)).toEqual([a.orderId]);
      expect(unpaid.pagination.total).toBe(1);
    });

    it('refuses per_page over 100, page below 1 and unknown filter values with 400 naming the parameter', async () => {
      for (const [query, parameter] of [
        ['per_page=101', 'per_page'],
        ['page=0', 'page'],
        ['status=paid', 'status'],
        ['payment_status=paid', 'payment_status'],
      ]) {
        const res = await get(`/orders?${query}`);
        expect(res.statusCode).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
        expect(res.json().error.details).toHaveProperty(parameter!);
      }
    });
  });

  describe('PUT /orders/{id}', () => {
    it('sets every plain field and answers the bare updated order', async () => {
      const order = await bookedOrder(t.db);
      const res = await put(`/orders/${order.orderId}`, {
        status: 'completed',
        fulfillment_status: 'fulfilled',
        customer_comment: 'Window seat',
        notes: 'VIP',
        ip_address: '203.0.113.7',
        source_id: 'web-42',
        source_url: 'https://shop.example/checkout',
        confirmation_code: `CONF${order.orderId}`,
      });
      expect(res.statusCode).toBe(200);
      const body: Json = res.json();
      expect(body).toMatchObject({
        id: order.orderId,
        status: 'completed',
        fulfillment_status: 'fulfilled',
        customer_comment: 'Window seat',
        notes: 'VIP',
        ip_address: '203.0.113.7',
        source_id: 'web-42',
        source_url: 'https://shop.example/checkout',
        confirmation_code: `CONF${order.orderId}`,
        total: '50.00',
      });
      expect(body.items).toHaveLength(1);
      expect((await get(`/orders/${order.orderId}`)).json()).toEqual(body);
    });

    it('recomputes the total from subtotal, discount_total, coupon_discount and tax_total, rounding half-up', async () => {
      const order = await bookedOrder(t.db);
      const res = await put(`/orders/${order.orderId}`, { subtotal: 50, discount_total: 10.005, coupon_discount: 5.5, tax_total: '19' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ subtotal: '50.00', discount_total: 10.01, coupon_discount: 5.5, tax_total: '19.00', total: '53.49' });
    });

    it('accepts a total that matches the formula and refuses one that does not', async () => {
      const order = await bookedOrder(t.db);
      expect((await put(`/orders/${order.orderId}`, { subtotal: 50, tax_total: 8, total: 58 })).statusCode).toBe(200);
      const res = await put(`/orders/${order.orderId}`, { total: 70 });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { total: expect.stringContaining('58.00') } });
    });

    it('refuses discounts that make the total negative and changes nothing', async () => {
      const order = await bookedOrder(t.db);
      const res = await put(`/orders/${order.orderId}`, { discount_total: 40, coupon_discount: 10.01, notes: 'kept?' });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.details.total).toContain('-0.01');
      const after = (await get(`/orders/${order.orderId}`)).json();
      expect(after).toMatchObject({ total: '50.00', discount_total: 0, notes: null });
    });

    it('transfers the order and its bookings to another customer', async () => {
      const order = await bookedOrder(t.db);
      const other = await insertCustomer(t.db);
      const res = await put(`/orders/${order.orderId}`, { customer_id: other });
      expect(res.statusCode).toBe(200);
      expect(res.json().customer_id).toBe(other);
      const booking = await t.db.selectFrom('bookings').select('customer_id').where('id', '=', order.bookingId).executeTakeFirstOrThrow();
      expect(booking.customer_id).toBe(other);
    });

    it('refuses an unknown customer with 400 invalid_request and moves nothing', async () => {
      const order = await bookedOrder(t.db);
      const res = await put(`/orders/${order.orderId}`, { customer_id: 999999, notes: 'not saved' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', details: { customer_id: expect.any(String) } });
      const after = (await get(`/orders/${order.orderId}`)).json();
      expect(after).toMatchObject({ customer_id: order.customerId, notes: null });
    });

    it('refuses a confirmation code that another order has', async () => {
      const a = await bookedOrder(t.db);
      const b = await bookedOrder(t.db);
      const taken = (await get(`/orders/${a.orderId}`)).json().confirmation_code;
      const res = await put(`/orders/${b.orderId}`, { confirmation_code: taken });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { confirmation_code: expect.any(String) } });
      // Its own code is no conflict.
      expect((await put(`/orders/${a.orderId}`, { confirmation_code: taken })).statusCode).toBe(200);
    });

    it('sets payment_status directly, and the bookings follow in their four states', async () => {
      const order = await bookedOrder(t.db);
      const paid = await put(`/orders/${order.orderId}`, { payment_status: 'fully_paid' });
      expect(paid.json().payment_status).toBe('fully_paid');
      expect(await bookingPaymentStatus(t.db, order.bookingId)).toBe('paid');
      const processing = await put(`/orders/${order.orderId}`, { payment_status: 'processing' });
      expect(processing.json().payment_status).toBe('processing');
      expect(await bookingPaymentStatus(t.db, order.bookingId)).toBe('not_paid');
      await put(`/orders/${order.orderId}`, { payment_status: 'refunded' });
      expect(await bookingPaymentStatus(t.db, order.bookingId)).toBe('refunded');
    });

    it('moves payment_status when a new total changes what the payments cover', async () => {
      const order = await bookedOrder(t.db);
      const key = await t.key();
      const paid = await t.app.inject({
        method: 'POST',
        url: `${API}/payments`,
        headers: { 'x-api-key': key },
        payload: { order_id: order.orderId, amount: 50 },
      });
      expect(paid.json().data.status).toBe('succeeded');
      expect((await get(`/orders/${order.orderId}`)).json().payment_status).toBe('fully_paid');

      const raised = await put(`/orders/${order.orderId}`, { tax_total: 10 });
      expect(raised.json()).toMatchObject({ total: '60.00', payment_status: 'partially_paid' });
      expect(await bookingPaymentStatus(t.db, order.bookingId)).toBe('partially_paid');

      const lowered = await put(`/orders/${order.orderId}`, { tax_total: 0, discount_total: 5 });
      expect(lowered.json()).toMatchObject({ total: '45.00', payment_status: 'fully_paid', amount_paid: '50.00', balance_due: '-5.00' });
      expect(await bookingPaymentStatus(t.db, order.bookingId)).toBe('paid');
    });

    it('makes open invoices for the full order charge the new total; settled ones stay as issued', async () => {
      const order = await bookedOrder(t.db);
      const invoice = async (): Promise<Json> => (await get(`/orders/${order.orderId}/invoices/${order.invoiceId}`)).json().data;
      await put(`/orders/${order.orderId}`, { discount_total: 12.5 });
      expect((await invoice()).charge_amount).toBe('37.50');

      await put(`/orders/${order.orderId}/invoices/${order.invoiceId}`, { status: 'paid' });
      await put(`/orders/${order.orderId}`, { discount_total: 0 });
      expect(await invoice()).toMatchObject({ status: 'paid', charge_amount: '37.50' });
      expect((await get(`/orders/${order.orderId}`)).json()).toMatchObject({ total: '50.00', payment_status: 'partially_paid' });
    });

    it('refuses an empty body, unknown enum values and negative amounts with 400', async () => {
      const order = await bookedOrder(t.db);
      const empty = await put(`/orders/${order.orderId}`, {});
      expect(empty.statusCode).toBe(400);
      expect(empty.json().error.code).toBe('invalid_request');
      const badStatus = await put(`/orders/${order.orderId}`, { status: 'shipped' });
      expect(badStatus.statusCode).toBe(400);
      expect(badStatus.json().error.details.status).toBeDefined();
      const negative = await put(`/orders/${order.orderId}`, { subtotal: -1 });
      expect(negative.statusCode).toBe(400);
      expect(negative.json().error.details.subtotal).toBeDefined();
    });

    it('answers 404 for an unknown order and needs orders:write', async () => {
      expect((await put('/orders/999999', { notes: 'x' })).statusCode).toBe(404);
      const order = await bookedOrder(t.db);
      const res = await t.app.inject({
        method: 'PUT',
        url: `${API}/orders/${order.orderId}`,
        headers: { 'x-api-key': await t.key({ permissions: ['orders:read'] }) },
        payload: { notes: 'x' },
      });
      expect(res.statusCode).toBe(403);
    });
  });
});
