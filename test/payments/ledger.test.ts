import { describe, expect, it } from 'vitest';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { API, bookedOrder, bookingPaymentStatus } from '../orders/setup.js';

/** The ledger's rules (docs/money.md) through HTTP: captures, refunds, their limits and what follows them. */
describe.each(DIALECTS)('the ledger (%s)', (dialect) => {
  const t = useTestApp(dialect);

  async function call(method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) {
    return t.app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': await t.key() }, ...(payload === undefined ? {} : { payload: payload as object }) });
  }
  const pay = (payload: object) => call('POST', '/payments', payload);
  const order = async (id: number): Promise<Json> => (await call('GET', `/orders/${id}`)).json();
  const invoice = async (orderId: number, invoiceId: number): Promise<Json> => (await call('GET', `/orders/${orderId}/invoices/${invoiceId}`)).json().data;
  const spent = async (customerId: number): Promise<string> => (await call('GET', `/customers/${customerId}?include=stats`)).json().data.stats.total_spent as string;

  it('counts a refund as money given back: paid, refunded in part, refunded; total_spent the net paid', async () => {
    const o = await bookedOrder(t.db, { priceCents: 3_500 });
    await pay({ order_id: o.orderId, amount: 10 });
    await pay({ order_id: o.orderId, amount: 10, kind: 'refund' });
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'refunded', amount_paid: '0.00', balance_due: '35.00' });
    expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('refunded');

    await pay({ order_id: o.orderId, amount: 35 });
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'fully_paid', amount_paid: '35.00', balance_due: '0.00' });
    await pay({ order_id: o.orderId, amount: 5, kind: 'refund' });
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'partially_refunded', amount_paid: '30.00', balance_due: '5.00' });
    expect(await bookingPaymentStatus(t.db, o.bookingId)).toBe('partially_paid');
    expect(await spent(o.customerId)).toBe('30.00');
    await pay({ order_id: o.orderId, amount: 30, kind: 'refund' });
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'refunded', amount_paid: '0.00' });
    expect(await spent(o.customerId)).toBe('0.00');
  });

  it('refuses a capture above the balance due and a refund above the net paid, naming the limit', async () => {
    const o = await bookedOrder(t.db, { priceCents: 3_500 });
    await pay({ order_id: o.orderId, amount: 10 });
    await pay({ order_id: o.orderId, amount: 25 });
    const over = await pay({ order_id: o.orderId, amount: 5 });
    expect(over.statusCode).toBe(422);
    expect(over.json()).toMatchObject({ success: false, error: expect.stringMatching(/balance due, 0\.00/), details: { amount: expect.stringMatching(/at most 0\.00/) } });
    const refund = await pay({ order_id: o.orderId, amount: 35.01, kind: 'refund' });
    expect(refund.statusCode).toBe(422);
    expect(refund.json().details.amount).toMatch(/at most 35\.00 \(the net paid\)/);
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'fully_paid', amount_paid: '35.00' });
  });

  it('knows capture and refund only (422 naming both)', async () => {
    const o = await bookedOrder(t.db);
    const res = await pay({ order_id: o.orderId, amount: 1, kind: 'authorization' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toBe('Invalid kind: must be one of capture, refund');
  });

  it('keeps a succeeded payment as it was counted; it may fail, and then stops counting', async () => {
    const o = await bookedOrder(t.db, { priceCents: 3_500 });
    const capture = (await pay({ order_id: o.orderId, amount: 35 })).json().data;
    for (const body of [{ amount: 1 }, { kind: 'refund' }, { status: 'processing' }]) {
      const res = await call('PUT', `/payments/${capture.id}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
    }
    expect((await call('PUT', `/payments/${capture.id}`, { amount: 35, notes: 'same amount' })).statusCode).toBe(200);
    expect((await call('PUT', `/payments/${capture.id}`, { status: 'failed' })).statusCode).toBe(200);
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'not_paid', amount_paid: '0.00' });
    expect((await call('PUT', `/payments/${capture.id}`, { status: 'succeeded' })).statusCode).toBe(422);
  });

  it('refuses a capture failing when refunds would then exceed the captures', async () => {
    const o = await bookedOrder(t.db, { priceCents: 3_500 });
    const capture = (await pay({ order_id: o.orderId, amount: 35 })).json().data;
    await pay({ order_id: o.orderId, amount: 10, kind: 'refund' });
    const res = await call('PUT', `/payments/${capture.id}`, { status: 'failed' });
    expect(res.statusCode).toBe(422);
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'partially_refunded', amount_paid: '25.00' });
  });

  it('checks a processing payment turning succeeded like a new one', async () => {
    const o = await bookedOrder(t.db, { priceCents: 3_500 });
    const pending = (await pay({ order_id: o.orderId, amount: 30, status: 'processing' })).json().data;
    expect((await order(o.orderId)).payment_status).toBe('processing');
    await pay({ order_id: o.orderId, amount: 10 });
    expect((await call('PUT', `/payments/${pending.id}`, { status: 'succeeded' })).statusCode).toBe(422);
    expect((await call('PUT', `/payments/${pending.id}`, { status: 'succeeded', amount: 25 })).statusCode).toBe(200);
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'fully_paid', amount_paid: '35.00' });
  });

  it('shows money owed back when the total drops below the net paid; a refund settles it', async () => {
    const o = await bookedOrder(t.db, { priceCents: 3_500 });
    await pay({ order_id: o.orderId, amount: 35 });
    const lowered = (await call('PUT', `/orders/${o.orderId}`, { discount_total: 7 })).json();
    expect(lowered).toMatchObject({ total: '28.00', amount_paid: '35.00', balance_due: '-7.00', payment_status: 'fully_paid' });
    await pay({ order_id: o.orderId, amount: 7, kind: 'refund' });
    expect(await order(o.orderId)).toMatchObject({ amount_paid: '28.00', balance_due: '0.00', payment_status: 'fully_paid' });
  });

  it('refuses a subtotal that contradicts the items', async () => {
    const o = await bookedOrder(t.db, { priceCents: 3_500 });
    const res = await call('PUT', `/orders/${o.orderId}`, { subtotal: 1 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details.subtotal).toMatch(/35\.00/);
    expect((await call('PUT', `/orders/${o.orderId}`, { subtotal: 35 })).statusCode).toBe(200);
  });

  it('moves invoices with the money: partially_paid, paid; a paid one cannot go back', async () => {
    const o = await bookedOrder(t.db, { priceCents: 3_500 });
    await pay({ order_id: o.orderId, amount: 10 });
    expect((await invoice(o.orderId, o.invoiceId)).status).toBe('partially_paid');
    const paid = await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, { status: 'paid' });
    expect(paid.json().data.status).toBe('paid');
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'fully_paid', amount_paid: '35.00' });
    // The invoice took the balance: a further capture of the full amount is refused.
    expect((await pay({ order_id: o.orderId, amount: 35 })).statusCode).toBe(422);
    for (const status of ['open', 'draft', 'void']) {
      const res = await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, { status });
      expect(res.statusCode, status).toBe(422);
      expect(res.json().error.details.status).toBeDefined();
    }
    const transactions = (await call('GET', `/orders/${o.orderId}/transactions`)).json().data as Json[];
    expect(transactions.map((row) => row.amount as string)).toEqual(['10.00', '25.00']);
  });

  it('refuses a charge_amount above the balance', async () => {
    const o = await bookedOrder(t.db, { priceCents: 10_000 });
    const res = await call('PUT', `/orders/${o.orderId}/invoices/${o.invoiceId}`, { charge_amount: 500 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details.charge_amount).toMatch(/at most 100\.00/);
  });

  it('of 10 simultaneous captures of the balance, takes exactly one', async () => {
    const o = await bookedOrder(t.db, { priceCents: 3_500 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => pay({ order_id: o.orderId, amount: 35 })));
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, ...Array<number>(9).fill(422)]);
    expect(await order(o.orderId)).toMatchObject({ payment_status: 'fully_paid', amount_paid: '35.00', balance_due: '0.00' });
    expect((await call('GET', `/orders/${o.orderId}/transactions`)).json().pagination.total).toBe(1);
  });
});
