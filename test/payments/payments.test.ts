import { describe, expect, it } from 'vitest';
import { insertCustomer } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { API, bookedOrder, bookingPaymentStatus, refuseExplodingTransactions } from '../orders/setup.js';

describe.each(DIALECTS)('payments (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Asia/Tokyo' });

  async function call(method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown, key?: string) {
    return t.app.inject({
      method,
      url: `${API}${url}`,
      headers: { 'x-api-key': key ?? (await t.key()) },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  }
  const pay = (payload: object) => call('POST', '/payments', payload);
  const orderStatus = async (id: number): Promise<string> => (await call('GET', `/orders/${id}`)).json().payment_status as string;

  /** A style-2 error: exactly `{success: false, error: text}`. */
  function expectStyle2(res: { statusCode: number; json(): Json }, status: number, text: string | RegExp) {
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['error', 'success']);
    expect(body.success).toBe(false);
    if (typeof text === 'string') expect(body.error).toBe(text);
    else expect(body.error).toMatch(text);
  }

  describe('POST /payments', () => {
    it("records a payment with the defaults: succeeded, manual, other, full, capture, the order's customer", async () => {
      const o = await bookedOrder(t.db);
      const res = await pay({ order_id: o.orderId, amount: 20 });
      expect(res.statusCode).toBe(201);
      const body: Json = res.json();
      expect(body).toMatchObject({ success: true, message: expect.any(String) });
      expect(body.data).toEqual({
        id: expect.any(Number),
        order_id: o.orderId,
        booking_id: o.bookingId,
        invoice_id: null,
        customer_id: o.customerId,
        processor: 'manual',
        payment_method: 'other',
        payment_portion: 'full',
        kind: 'capture',
        amount: '20.00',
        currency: 'USD',
        status: 'succeeded',
        token: null,
        notes: null,
        receipt_number: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      });
    });

    it('treats customer_id 0 as absent and stores every given field; ids may be digit strings', async () => {
      const o = await bookedOrder(t.db);
      const payer = await insertCustomer(t.db);
      const zero = (await pay({ order_id: String(o.orderId), amount: '1.005', customer_id: 0 })).json().data;
      expect(zero).toMatchObject({ customer_id: o.customerId, amount: '1.01' });
      const full = await pay({
        order_id: o.orderId,
        amount: 2,
        customer_id: payer,
        processor: 'stripe',
        payment_method: 'card',
        payment_portion: 'deposit',
        kind: 'refund',
        status: 'processing',
        token: 'tok_123',
        notes: 'at the desk',
      });
      expect(full.statusCode).toBe(201);
      expect(full.json().data).toMatchObject({
        customer_id: payer,
        processor: 'stripe',
        payment_method: 'card',
        payment_portion: 'deposit',
        kind: 'refund',
        status: 'processing',
        token: 'tok_123',
        notes: 'at the desk',
      });
    });

    it('moves not_paid → partially_paid → fully_paid, and the booking not_paid → partially_paid → paid', async () => {
      const o = await bookedOrder(t.db, { priceCents: 10_000 });
      expect(await orderStatus(o.orderId)).toBe('not_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('not_paid');

      await pay({ order_id: o.orderId, amount: 30 });
      expect(await orderStatus(o.orderId)).toBe('partially_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('partially_paid');

      // Payments that did not succeed move nothing.
      await pay({ order_id: o.orderId, amount: 70, status: 'processing' });
      await pay({ order_id: o.orderId, amount: 70, status: 'failed' });
      expect(await orderStatus(o.orderId)).toBe('partially_paid');

      await pay({ order_id: o.orderId, amount: 69.99 });
      expect(await orderStatus(o.orderId)).toBe('partially_paid');
      await pay({ order_id: o.orderId, amount: 0.01 });
      expect(await orderStatus(o.orderId)).toBe('fully_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('paid');
    });

    it('counts every one of several payments recorded at once', async () => {
      const o = await bookedOrder(t.db, { priceCents: 10_000 });
      const answers = await Promise.all([1, 2, 3, 4].map(() => pay({ order_id: o.orderId, amount: 25 })));
      expect(answers.map((r) => r.statusCode)).toEqual([201, 201, 201, 201]);
      expect(await orderStatus(o.orderId)).toBe('fully_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('paid');
    });

    it('answers style 2 "Missing required fields" with 400', async () => {
      expectStyle2(await pay({}), 400, 'Missing required fields: order_id, amount');
      expectStyle2(await pay({ order_id: 1 }), 400, 'Missing required fields: amount');
    });

    it('answers style 2 for invalid fields with 400', async () => {
      const o = await bookedOrder(t.db);
      expectStyle2(await pay({ order_id: 'abc', amount: 5 }), 400, /^Invalid fields: order_id /);
      expectStyle2(await pay({ order_id: o.orderId, amount: 0 }), 400, /^Invalid fields: amount /);
      expectStyle2(await pay({ order_id: o.orderId, amount: 0.004 }), 400, 'Invalid amount: must be at least 0.01');
      expectStyle2(await pay({ order_id: o.orderId, amount: 10_000_000.01 }), 400, 'Invalid fields: amount must be <= 10000000');
      expectStyle2(await pay({ order_id: 99_999_999_999, amount: 1 }), 400, /^Invalid fields: order_id /);
      expectStyle2(await pay({ order_id: o.orderId, amount: 5, customer_id: 999999 }), 400, 'Invalid customer_id: customer 999999 does not exist');
      expect((await call('GET', `/orders/${o.orderId}/transactions`)).json().data).toEqual([]);
    });

    it('answers style 2 "Invalid payment status" with 422', async () => {
      const o = await bookedOrder(t.db);
      expectStyle2(await pay({ order_id: o.orderId, amount: 5, status: 'paid' }), 422, 'Invalid payment status: must be one of succeeded, processing, failed');
      // A malformed field besides it is the 400 of invalid fields.
      expectStyle2(await pay({ order_id: o.orderId, amount: 'x', status: 'paid' }), 400, 'Invalid fields: amount must be number');
    });

    it('answers style 2 with 404 for an unknown order', async () => {
      expectStyle2(await pay({ order_id: 999999, amount: 5 }), 404, 'Order 999999 not found');
    });

    it('answers style 2 for a missing key and a missing permission', async () => {
      const res = await t.app.inject({ method: 'POST', url: `${API}/payments`, payload: { order_id: 1, amount: 1 } });
      expectStyle2(res, 401, /API key/);
      expectStyle2(await call('POST', '/payments', { order_id: 1, amount: 1 }, await t.key({ permissions: ['payments:read'] })), 403, /payments:write/);
    });
  });

  describe('PUT /payments/{id}', () => {
    it('updates every field and moves the payment status with amount and status', async () => {
      const o = await bookedOrder(t.db, { priceCents: 5_000 });
      const payment = (await pay({ order_id: o.orderId, amount: 50, status: 'processing' })).json().data;
      expect(await orderStatus(o.orderId)).toBe('processing');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('not_paid');

      const res = await call('PUT', `/payments/${payment.id}`, {
        status: 'succeeded',
        processor: 'paypal',
        payment_method: 'wallet',
        payment_portion: 'full',
        kind: 'capture',
        token: 'tok_9',
        notes: 'settled',
        receipt_number: 'R-100',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        success: true,
        message: expect.any(String),
        data: { id: payment.id, status: 'succeeded', processor: 'paypal', payment_method: 'wallet', token: 'tok_9', notes: 'settled', receipt_number: 'R-100' },
      });
      expect(await orderStatus(o.orderId)).toBe('fully_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('paid');

      // A succeeded amount stays as counted: corrections are refunds.
      expectStyle2(await call('PUT', `/payments/${payment.id}`, { amount: 12.5 }), 422, 'Invalid amount: a succeeded payment keeps its amount; correct it with a refund');
      expect(await orderStatus(o.orderId)).toBe('fully_paid');

      await call('PUT', `/payments/${payment.id}`, { status: 'failed' });
      expect(await orderStatus(o.orderId)).toBe('not_paid');
      expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('not_paid');

      const cleared = await call('PUT', `/payments/${payment.id}`, { token: null, receipt_number: null });
      expect(cleared.json().data).toMatchObject({ token: null, receipt_number: null, amount: '50.00' });
    });

    it('answers style 2 "Invalid payment identifier" with 400', async () => {
      expectStyle2(await call('PUT', '/payments/abc', { notes: 'x' }), 400, 'Invalid payment identifier: id must be a positive integer');
      expectStyle2(await call('PUT', '/payments/0', { notes: 'x' }), 400, 'Invalid payment identifier: id must be a positive integer');
    });

    it('answers style 2 "Payment … not found" with 404', async () => {
      expectStyle2(await call('PUT', '/payments/999999', { notes: 'x' }), 404, 'Payment 999999 not found');
    });

    it('answers style 2 "Invalid payment status" with 422', async () => {
      const o = await bookedOrder(t.db);
      const payment = (await pay({ order_id: o.orderId, amount: 5 })).json().data;
      expectStyle2(await call('PUT', `/payments/${payment.id}`, { status: 'refunded' }), 422, 'Invalid payment status: must be one of succeeded, processing, failed');
    });

    it('answers style 2 with 400 for an empty body or an invalid field', async () => {
      const o = await bookedOrder(t.db);
      const payment = (await pay({ order_id: o.orderId, amount: 5 })).json().data;
      expectStyle2(await call('PUT', `/payments/${payment.id}`, {}), 400, /^No fields to update: send at least one of amount, /);
      expectStyle2(await call('PUT', `/payments/${payment.id}`, { amount: -3 }), 400, /^Invalid fields: amount /);
    });
  });

  describe('a write the database refuses', () => {
    it('answers style 2 "Failed to update payment" / "Failed to create payment" with 500 and changes nothing', async () => {
      await refuseExplodingTransactions(t.db, dialect);
      const o = await bookedOrder(t.db, { priceCents: 1_000 });
      const payment = (await pay({ order_id: o.orderId, amount: 4, status: 'processing' })).json().data;

      const update = await call('PUT', `/payments/${payment.id}`, { status: 'succeeded', notes: 'explode' });
      expectStyle2(update, 500, `Failed to update payment ${payment.id}`);
      expect((await call('GET', `/payments/${payment.id}`)).json().data).toMatchObject({ status: 'processing', notes: null });
      expect(await orderStatus(o.orderId)).toBe('processing');

      expectStyle2(await pay({ order_id: o.orderId, amount: 10, notes: 'explode' }), 500, 'Failed to create payment');
      expect((await call('GET', `/orders/${o.orderId}/transactions`)).json().pagination.total).toBe(1);
      expect(await orderStatus(o.orderId)).toBe('processing');
    });
  });

  describe('GET /payments and /payments/{id}', () => {
    it('reads one payment in envelope B', async () => {
      const o = await bookedOrder(t.db);
      const payment = (await pay({ order_id: o.orderId, amount: 5 })).json().data;
      const res = await call('GET', `/payments/${payment.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: payment });
      expectStyle2(await call('GET', '/payments/999999'), 404, 'Payment 999999 not found');
      expectStyle2(await call('GET', '/payments/x1'), 400, 'Invalid payment identifier: id must be a positive integer');
    });

    it('lists newest first with pagination, filtered by order, customer and status', async () => {
      const o = await bookedOrder(t.db);
      const a = (await pay({ order_id: o.orderId, amount: 1 })).json().data;
      const b = (await pay({ order_id: o.orderId, amount: 2, status: 'failed' })).json().data;
      const c = (await pay({ order_id: o.orderId, amount: 3 })).json().data;

      const all = (await call('GET', `/payments?order_id=${o.orderId}`)).json();
      expect(all).toMatchObject({ success: true, pagination: { page: 1, per_page: 10, total: 3, total_pages: 1 } });
      expect(all.data.map((p: { id: number }) => p.id)).toEqual([c.id, b.id, a.id]);

      const succeeded = (await call('GET', `/payments?order_id=${o.orderId}&status=succeeded&per_page=1&page=2`)).json();
      expect(succeeded.pagination).toEqual({ page: 2, per_page: 1, total: 2, total_pages: 2 });
      expect(succeeded.data.map((p: { id: number }) => p.id)).toEqual([a.id]);

      const byCustomer = (await call('GET', `/payments?customer_id=${o.customerId}`)).json();
      expect(byCustomer.data.map((p: { id: number }) => p.id)).toEqual([c.id, b.id, a.id]);

      expectStyle2(await call('GET', '/payments?per_page=101'), 400, /^Invalid query parameters: per_page /);
      expectStyle2(await call('GET', '/payments', undefined, await t.key({ permissions: ['orders:read'] })), 403, /payments:read/);
    });
  });
});
