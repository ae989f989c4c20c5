import { describe, expect, it } from 'vitest';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { MONDAY, newSite, requester, type Site } from '../bookings/setup.js';

/** Money set at booking time (docs/money.md): coupons, deposits, zero totals and the currency. */
describe.each(DIALECTS)('money at booking time (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);

  let codes = 0;
  async function coupon(values: Record<string, unknown> = {}): Promise<string> {
    const code = `SAVE${++codes}${dialect}`;
    const res = await call('POST', '/coupons', { code, name: code, discount_type: 'percent', discount_value: 20, ...values });
    expect(res.statusCode, res.body).toBe(201);
    return code;
  }
  const book = (site: Site, values: Record<string, unknown> = {}) =>
    call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId, send_confirmation: false, ...values });
  const order = async (id: number): Promise<Json> => (await call('GET', `/orders/${id}`)).json();
  const invoices = async (id: number): Promise<Json[]> => (await call('GET', `/orders/${id}/invoices`)).json().data as Json[];
  const uses = async (code: string): Promise<number> => (await call('GET', `/coupons/${code}`)).json().data.usage_count as number;

  it('applies coupon_code to the new order; a refused coupon refuses the booking (422) and writes nothing', async () => {
    const site = await newSite(t.db);
    const code = await coupon({ usage_limit: 1 });
    const res = await book(site, { coupon_code: code.toLowerCase() });
    expect(res.statusCode, res.body).toBe(201);
    const made = await order(res.json().data.order.id);
    expect(made).toMatchObject({ subtotal: '45.00', coupon_code: code, coupon_discount: 9, total: '36.00', balance_due: '36.00' });
    expect((await invoices(made.id)).map((i) => i.charge_amount as string)).toEqual(['36.00']);
    expect(await uses(code)).toBe(1);

    const bookings = await t.db.selectFrom('bookings').select('id').execute();
    const refused = await book(site, { start_time: '12:00', coupon_code: code });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.details.coupon_code).toMatch(/usage limit/);
    const unknown = await book(site, { start_time: '12:00', coupon_code: 'NO-SUCH-CODE' });
    expect(unknown.statusCode).toBe(422);
    expect(await t.db.selectFrom('bookings').select('id').execute()).toHaveLength(bookings.length);
  });

  it('gives a coupon’s use back when its order is cancelled, and refuses a usage_limit below the uses', async () => {
    const site = await newSite(t.db);
    const code = await coupon();
    const first = (await book(site, { coupon_code: code })).json().data;
    await book(site, { start_time: '12:00', coupon_code: code });
    expect(await uses(code)).toBe(2);
    const lowered = await call('PUT', `/coupons/${code}`, { usage_limit: 1 });
    expect(lowered.statusCode).toBe(422);
    expect(lowered.json().error.details.usage_limit).toMatch(/2/);
    await call('PUT', `/bookings/${first.id}`, { status: 'cancelled' });
    expect(await uses(code)).toBe(1);
    expect((await call('PUT', `/coupons/${code}`, { usage_limit: 1 })).statusCode).toBe(200);
  });

  it('counts the uses of earlier bulk elements: the element past the limit fails alone', async () => {
    const site = await newSite(t.db);
    const code = await coupon({ usage_limit: 1 });
    const element = (time: string) => ({ service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: time, customer_id: site.customerId, coupon_code: code });
    const res = await call('POST', '/bookings/bulk', { bookings: [element('09:00'), element('11:00')] });
    expect(res.statusCode).toBe(207);
    const body: Json = res.json();
    expect(body.results.summary).toEqual({ total_requested: 2, successful: 1, failed: 1 });
    expect(body.results.errors[0]).toMatchObject({ index: 1, code: 'validation_failed' });
    expect(await uses(code)).toBe(1);
  });

  it('makes a zero-total order fully paid at once, its booking paid and its invoice paid', async () => {
    const site = await newSite(t.db);
    const free = await coupon({ discount_value: 100 });
    for (const values of [{ price: '0.00' }, { coupon_code: free, start_time: '12:00' }]) {
      const res = await book(site, values);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data.payment_status).toBe('paid');
      const made = await order(res.json().data.order.id);
      expect(made).toMatchObject({ total: '0.00', payment_status: 'fully_paid', balance_due: '0.00' });
      expect((await invoices(made.id)).map((i) => i.status as string)).toEqual(['paid']);
    }
  });

  it('invoices a deposit service in two: the deposit due at booking, the remainder due at the start', async () => {
    const site = await newSite(t.db);
    await t.db.updateTable('services').set({ deposit_amount_cents: 1_000 }).where('id', '=', site.serviceId).execute();
    const res = await book(site);
    expect(res.statusCode, res.body).toBe(201);
    const orderId: number = res.json().data.order.id;
    const [deposit, remaining] = await invoices(orderId);
    expect(deposit).toMatchObject({ payment_portion: 'deposit', charge_amount: '10.00', status: 'open' });
    expect(remaining).toMatchObject({ payment_portion: 'remaining', charge_amount: '35.00', status: 'open', due_at: `${MONDAY} 10:00:00` });
    await call('POST', '/payments', { order_id: orderId, amount: 10, payment_portion: 'deposit' });
    expect((await invoices(orderId)).map((i) => i.status as string)).toEqual(['paid', 'open']);
    await call('PUT', `/bookings/${res.json().data.id}`, { price: '55.00' });
    expect((await invoices(orderId)).map((i) => [i.status as string, i.charge_amount as string])).toEqual([['paid', '10.00'], ['open', '45.00']]);
    await call('PUT', `/orders/${orderId}/invoices/${remaining!.id}`, { status: 'paid' });
    expect(await order(orderId)).toMatchObject({ payment_status: 'fully_paid', amount_paid: '55.00' });
  });

  it('shows the currency setting on bookings, orders, invoices and payments, and validates it', async () => {
    expect((await call('PUT', '/settings', { currency: 'euro' })).statusCode).toBe(422);
    const set = await call('PUT', '/settings', { currency: 'eur' });
    expect(set.json().data.currency).toBe('EUR');
    try {
      const site = await newSite(t.db);
      const created = (await book(site, { send_confirmation: true })).json().data;
      const orderId: number = created.order.id;
      expect((await order(orderId)).currency).toBe('EUR');
      const mails = await t.db.selectFrom('outbox').select('payload').where('kind', '=', 'booking_confirmation').execute();
      const mail = mails.map((row) => JSON.parse(row.payload) as Record<string, unknown>).find((payload) => payload.booking_id === created.id);
      expect(mail).toMatchObject({ price: '45.00', currency: 'EUR' });
      expect((await invoices(orderId))[0]!.currency).toBe('EUR');
      const payment = (await call('POST', '/payments', { order_id: orderId, amount: 5 })).json().data;
      expect(payment.currency).toBe('EUR');
      expect((await call('GET', `/orders/${orderId}/transactions`)).json().data[0].currency).toBe('EUR');
      expect(created.currency).toBe('EUR');
      const detail = (await call('GET', `/bookings/${created.id}`)).json().data;
      expect([detail.currency, detail.order.currency, (detail.transactions as Json[]).map((tx) => tx.currency as string)]).toEqual(['EUR', 'EUR', ['EUR']]);
      const listed = (await call('GET', `/bookings?customer_id=${site.customerId}`)).json().data;
      expect((listed as Json[]).map((b) => b.currency as string)).toEqual(['EUR']);
    } finally {
      await call('PUT', '/settings', { currency: 'USD' });
    }
  });
});
