import type { Kysely } from 'kysely';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { recordCouponIds } from '../../src/db/migrations/0015_order_coupon_id.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { API, bookedOrder } from '../orders/setup.js';

const ZONE = 'Pacific/Kiritimati'; // UTC+14: "today" here is often not today in UTC.
let sequence = 0;
const uniqueCode = (stem: string) => `${stem}${++sequence}${Date.now().toString(36)}`;

describe.each(DIALECTS)('coupons (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: ZONE });

  async function call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object, key?: string) {
    return t.app.inject({
      method,
      url: `${API}${url}`,
      headers: { 'x-api-key': key ?? (await t.key()) },
      ...(payload ? { payload } : {}),
    });
  }
  async function coupon(fields: Record<string, unknown> = {}): Promise<Json> {
    const res = await call('POST', '/coupons', { code: uniqueCode('C'), name: 'Test coupon', ...fields });
    expect(res.statusCode).toBe(201);
    return res.json().data;
  }
  const applyTo = (orderId: number, payload: object) => call('PUT', `/orders/${orderId}`, payload);
  const day = (offset: number) => DateTime.now().setZone(ZONE).plus({ days: offset }).toISODate();

  describe('POST /coupons', () => {
    it('creates with the spec defaults and answers 201 in envelope B', async () => {
      const res = await call('POST', '/coupons', { code: 'Summer-Sale', name: 'Summer' });
      expect(res.statusCode).toBe(201);
      const body: Json = res.json();
      expect(body).toMatchObject({ success: true, message: expect.any(String) });
      expect(body.data).toEqual({
        id: expect.any(Number),
        code: 'Summer-Sale',
        name: 'Summer',
        description: '',
        discount_type: 'percent',
        discount_value: 0,
        status: 'active',
        active_from: null,
        active_to: null,
        usage_limit: 0,
        usage_count: 0,
        min_order_amount: 0,
        max_discount_amount: 0,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      });
    });

    it('stores every field, numbers as JSON numbers rounded half-up to hundredths', async () => {
      const data = await coupon({
        description: 'Ten and a bit',
        discount_type: 'percent',
        discount_value: 12.505,
        status: 'inactive',
        active_from: '2026-01-01',
        active_to: '2026-12-31',
        usage_limit: 3,
        min_order_amount: 20,
        max_discount_amount: '15.5',
      });
      expect(data).toMatchObject({
        description: 'Ten and a bit',
        discount_value: 12.51,
        status: 'inactive',
        active_from: '2026-01-01',
        active_to: '2026-12-31',
        usage_limit: 3,
        min_order_amount: 20,
        max_discount_amount: 15.5,
      });
    });

    it('refuses a code that exists in any letter case with 409 coupon_already_exists', async () => {
      const code = uniqueCode('Dup');
      await coupon({ code });
      const res = await call('POST', '/coupons', { code: code.toUpperCase(), name: 'Again' });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('coupon_already_exists');
    });

    it('creates a code sent by several requests at once once, and refuses the others with 409', async () => {
      const code = uniqueCode('Race');
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => call('POST', '/coupons', { code: i % 2 ? code : code.toLowerCase(), name: 'Race' })));
      expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      expect(answers.filter((r) => r.statusCode === 409).every((r) => r.json().error.code === 'coupon_already_exists')).toBe(true);
    });

    it('refuses missing fields and malformed values with 400 naming the field', async () => {
      for (const [payload, field] of [
        [{ name: 'No code' }, 'code'],
        [{ code: uniqueCode('N') }, 'name'],
        [{ code: 'has space', name: 'x' }, 'code'],
        [{ code: uniqueCode('T'), name: 'x', discount_type: 'bogus' }, 'discount_type'],
        [{ code: uniqueCode('V'), name: 'x', discount_value: -1 }, 'discount_value'],
        [{ code: uniqueCode('D'), name: 'x', active_from: '2026-02-30' }, 'active_from'],
        [{ code: uniqueCode('U'), name: 'x', usage_limit: 1.5 }, 'usage_limit'],
      ] as const) {
        const res = await call('POST', '/coupons', payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().error.details).toHaveProperty(field);
      }
    });

    it('refuses a percent over 100 and an end before the start with 422', async () => {
      const over = await call('POST', '/coupons', { code: uniqueCode('P'), name: 'x', discount_value: 100.01 });
      expect(over.statusCode).toBe(422);
      expect(over.json().error).toMatchObject({ code: 'validation_failed', details: { discount_value: expect.any(String) } });
      // A fixed amount may be above 100.
      expect((await call('POST', '/coupons', { code: uniqueCode('F'), name: 'x', discount_type: 'fixed_amount', discount_value: 150 })).statusCode).toBe(201);
      const dates = await call('POST', '/coupons', { code: uniqueCode('R'), name: 'x', active_from: '2026-05-02', active_to: '2026-05-01' });
      expect(dates.statusCode).toBe(422);
      expect(dates.json().error.details).toHaveProperty('active_to');
    });

    it('needs coupons:write', async () => {
      const res = await call('POST', '/coupons', { code: uniqueCode('K'), name: 'x' }, await t.key({ permissions: ['coupons:read'] }));
      expect(res.statusCode).toBe(403);
    });
  });

  describe('GET /coupons and /coupons/{code}', () => {
    it('reads a coupon by its code in any case', async () => {
      const created = await coupon({ code: uniqueCode('Read') });
      const res = await call('GET', `/coupons/${created.code.toLowerCase()}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: created });
      const missing = await call('GET', '/coupons/NOPE-NOT-HERE');
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('coupon_not_found');
    });

    it('lists newest first with pagination and filters', async () => {
      const a = await coupon({ discount_type: 'fixed_amount', status: 'inactive' });
      const b = await coupon({ discount_type: 'fixed_amount', status: 'inactive' });
      const res = await call('GET', '/coupons?status=inactive&discount_type=fixed_amount&per_page=1');
      expect(res.statusCode).toBe(200);
      const body: Json = res.json();
      expect(body.success).toBe(true);
      expect(body.pagination).toMatchObject({ page: 1, per_page: 1 });
      expect(body.pagination.total).toBeGreaterThanOrEqual(2);
      expect(body.data.map((c: { id: number }) => c.id)).toEqual([b.id]);
      const page2 = (await call('GET', '/coupons?status=inactive&discount_type=fixed_amount&per_page=1&page=2')).json();
      expect(page2.data.map((c: { id: number }) => c.id)).toEqual([a.id]);
      expect((await call('GET', '/coupons')).json().pagination).toMatchObject({ page: 1, per_page: 10 });
      expect((await call('GET', '/coupons?per_page=101')).statusCode).toBe(400);
      expect((await call('GET', '/coupons?status=expired')).statusCode).toBe(400);
    });
  });

  describe('PUT /coupons/{code}', () => {
    it('changes only the supplied fields', async () => {
      const created = await coupon({ discount_value: 10, usage_limit: 5 });
      const res = await call('PUT', `/coupons/${created.code.toUpperCase()}`, { name: 'Renamed', active_to: '2030-01-01' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        success: true,
        data: { ...created, name: 'Renamed', active_to: '2030-01-01', updated_at: expect.any(String) },
      });
      const cleared = await call('PUT', `/coupons/${created.code}`, { active_to: null });
      expect(cleared.json().data.active_to).toBeNull();
    });

    it('checks the cross-field rules on the result', async () => {
      const created = await coupon({ discount_type: 'fixed_amount', discount_value: 150 });
      const res = await call('PUT', `/coupons/${created.code}`, { discount_type: 'percent' });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.details).toHaveProperty('discount_value');
    });

    it('answers 404 for an unknown code and 400 for an empty body', async () => {
      expect((await call('PUT', '/coupons/NOPE-NOT-HERE', { name: 'x' })).statusCode).toBe(404);
      const created = await coupon();
      expect((await call('PUT', `/coupons/${created.code}`, {})).statusCode).toBe(400);
    });
  });

  describe('DELETE /coupons/{code}', () => {
    it('deletes and answers the numeric id', async () => {
      const created = await coupon();
      const res = await call('DELETE', `/coupons/${created.code}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ success: true, data: { id: created.id, deleted: true } });
      expect((await call('GET', `/coupons/${created.code}`)).statusCode).toBe(404);
      expect((await call('DELETE', `/coupons/${created.code}`)).statusCode).toBe(404);
    });
  });

  describe('applying coupon_code to an order', () => {
    it('computes a percent discount on the subtotal, half-up, and the total follows', async () => {
      const c = await coupon({ discount_value: 15 });
      const o = await bookedOrder(t.db, { priceCents: 3_330 });
      const res = await applyTo(o.orderId, { coupon_code: c.code.toLowerCase() });
      expect(res.statusCode).toBe(200);
      // 15 % of 33.30 = 4.995 → 5.00.
      expect(res.json()).toMatchObject({ coupon_code: c.code, coupon_discount: 5, subtotal: '33.30', total: '28.30' });
    });

    it('caps a percent discount at max_discount_amount', async () => {
      const c = await coupon({ discount_value: 50, max_discount_amount: 20 });
      const o = await bookedOrder(t.db, { priceCents: 10_000 });
      expect((await applyTo(o.orderId, { coupon_code: c.code })).json()).toMatchObject({ coupon_discount: 20, total: '80.00' });
    });

    it('caps a fixed amount at the subtotal', async () => {
      const c = await coupon({ discount_type: 'fixed_amount', discount_value: 75 });
      const o = await bookedOrder(t.db, { priceCents: 5_000 });
      expect((await applyTo(o.orderId, { coupon_code: c.code })).json()).toMatchObject({ coupon_discount: 50, total: '0.00' });
    });

    it('computes on the subtotal of the items, with the tax given in the same request, and keeps a given coupon_discount', async () => {
      const c = await coupon({ discount_value: 10 });
      const o = await bookedOrder(t.db, { priceCents: 5_000 });
      expect((await applyTo(o.orderId, { coupon_code: c.code, subtotal: 50, tax_total: 20 })).json()).toMatchObject({
        coupon_discount: 5,
        total: '65.00',
      });
      expect((await applyTo(o.orderId, { coupon_code: c.code, coupon_discount: 3.25 })).json()).toMatchObject({
        coupon_discount: 3.25,
        total: '66.75',
      });
    });

    it('removes the coupon and its discount with null or an empty code', async () => {
      const c = await coupon({ discount_value: 10 });
      for (const removal of [null, '']) {
        const o = await bookedOrder(t.db, { priceCents: 5_000 });
        await applyTo(o.orderId, { coupon_code: c.code });
        const res = await applyTo(o.orderId, { coupon_code: removal });
        expect(res.json()).toMatchObject({ coupon_code: null, coupon_discount: 0, total: '50.00' });
      }
    });

    it('accepts the minimum order amount exactly and refuses a cent less', async () => {
      const c = await coupon({ discount_value: 10, min_order_amount: 50 });
      const enough = await bookedOrder(t.db, { priceCents: 5_000 });
      expect((await applyTo(enough.orderId, { coupon_code: c.code })).statusCode).toBe(200);
      const short = await bookedOrder(t.db, { priceCents: 4_999 });
      const res = await applyTo(short.orderId, { coupon_code: c.code });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { coupon_code: expect.stringContaining('minimum') } });
    });

    it('is valid on its first and last day in the site timezone, not a day outside', async () => {
      const today = await coupon({ discount_value: 10, active_from: day(0), active_to: day(0) });
      const o = await bookedOrder(t.db);
      expect((await applyTo(o.orderId, { coupon_code: today.code })).statusCode).toBe(200);

      const future = await coupon({ discount_value: 10, active_from: day(1) });
      const early = await applyTo(o.orderId, { coupon_code: future.code });
      expect(early.statusCode).toBe(422);
      expect(early.json().error.details.coupon_code).toContain(day(1));

      const past = await coupon({ discount_value: 10, active_to: day(-1) });
      const late = await applyTo(o.orderId, { coupon_code: past.code });
      expect(late.statusCode).toBe(422);
      expect(late.json().error.details.coupon_code).toContain('expired');
    });

    it('allows usage_limit orders and refuses the next; re-applying to the same order is no new use', async () => {
      const c = await coupon({ discount_value: 10, usage_limit: 2 });
      const [a, b, d] = [await bookedOrder(t.db), await bookedOrder(t.db), await bookedOrder(t.db)];
      expect((await applyTo(a.orderId, { coupon_code: c.code })).statusCode).toBe(200);
      expect((await applyTo(b.orderId, { coupon_code: c.code })).statusCode).toBe(200);
      expect((await applyTo(b.orderId, { coupon_code: c.code })).statusCode).toBe(200);
      expect((await call('GET', `/coupons/${c.code}`)).json().data.usage_count).toBe(2);

      const refused = await applyTo(d.orderId, { coupon_code: c.code });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().error.details.coupon_code).toContain('usage limit');
      // Freeing a use lets the next order take it.
      await applyTo(a.orderId, { coupon_code: null });
      expect((await applyTo(d.orderId, { coupon_code: c.code })).statusCode).toBe(200);
    });

    it('gives the last use to exactly one of two orders applying it at once', async () => {
      const c = await coupon({ discount_value: 10, usage_limit: 1 });
      const [a, b] = [await bookedOrder(t.db), await bookedOrder(t.db)];
      const answers = await Promise.all([applyTo(a.orderId, { coupon_code: c.code }), applyTo(b.orderId, { coupon_code: c.code })]);
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 422]);
      expect((await call('GET', `/coupons/${c.code}`)).json().data.usage_count).toBe(1);
    });

    it("computes the coupon's discount again on a new subtotal, unless coupon_discount is given", async () => {
      const percent = await coupon({ discount_value: 10 });
      const o = await bookedOrder(t.db, { priceCents: 4_500 });
      expect((await applyTo(o.orderId, { coupon_code: percent.code })).json()).toMatchObject({ coupon_discount: 4.5, total: '40.50' });
      const reprice = async (price: string) => expect((await call('PUT', `/bookings/${o.bookingId}`, { price })).statusCode).toBe(200);
      await reprice('100.00');
      expect((await call('GET', `/orders/${o.orderId}`)).json()).toMatchObject({ coupon_discount: 10, total: '90.00' });
      await reprice('80.00');
      expect((await applyTo(o.orderId, { coupon_discount: 1 })).json()).toMatchObject({ coupon_discount: 1, total: '79.00' });
      // The coupon stays on the order whatever became of it since: its terms still apply.
      await call('PUT', `/coupons/${percent.code}`, { status: 'inactive' });
      await reprice('50.00');
      expect((await call('GET', `/orders/${o.orderId}`)).json()).toMatchObject({ coupon_code: percent.code, coupon_discount: 5, total: '45.00' });
    });

    it("follows a booking's new price, a fixed amount never more than the subtotal", async () => {
      const fixed = await coupon({ discount_type: 'fixed_amount', discount_value: 40 });
      const o = await bookedOrder(t.db, { priceCents: 4_500 });
      expect((await applyTo(o.orderId, { coupon_code: fixed.code })).json()).toMatchObject({ coupon_discount: 40, total: '5.00' });
      const repriced = await call('PUT', `/bookings/${o.bookingId}`, { price: '10.00' });
      expect(repriced.statusCode).toBe(200);
      expect((await call('GET', `/orders/${o.orderId}`)).json()).toMatchObject({ subtotal: '10.00', coupon_discount: 10, total: '0.00' });
      const invoice = (await call('GET', `/orders/${o.orderId}/invoices/${o.invoiceId}`)).json().data;
      expect(invoice.charge_amount).toBe('0.00');
    });

    it("keeps a deleted coupon's discount on its orders, and a new coupon with its code starts unused", async () => {
      const code = uniqueCode('REUSED');
      await coupon({ code, discount_value: 10, usage_limit: 1 });
      const first = await bookedOrder(t.db, { priceCents: 5_000 });
      expect((await applyTo(first.orderId, { coupon_code: code })).statusCode).toBe(200);
      expect((await call('DELETE', `/coupons/${code}`)).statusCode).toBe(200);

      const again = await coupon({ code, discount_value: 50, usage_limit: 1 });
      expect(again.usage_count).toBe(0);
      const second = await bookedOrder(t.db, { priceCents: 5_000 });
      expect((await applyTo(second.orderId, { coupon_code: code })).json()).toMatchObject({ coupon_discount: 25, total: '25.00' });
      expect((await call('GET', `/coupons/${code}`)).json().data.usage_count).toBe(1);
      // The first order keeps the code and the discount it was given, capped by a lower subtotal.
      expect((await call('PUT', `/bookings/${first.bookingId}`, { price: '3.00' })).statusCode).toBe(200);
      expect((await call('GET', `/orders/${first.orderId}`)).json()).toMatchObject({ coupon_code: code, coupon_discount: 3, total: '0.00' });
    });

    it('counts the uses of orders written before coupon ids were kept, once migration 0015 has filled them in', async () => {
      const c = await coupon({ discount_value: 10 });
      const o = await bookedOrder(t.db);
      await t.db.updateTable('orders').set({ coupon_code: c.code, coupon_id: null }).where('id', '=', o.orderId).execute();
      expect((await call('GET', `/coupons/${c.code}`)).json().data.usage_count).toBe(0);
      await recordCouponIds(t.db as unknown as Kysely<unknown>);
      expect((await call('GET', `/coupons/${c.code}`)).json().data.usage_count).toBe(1);
    });

    it('refuses an inactive or unknown coupon with 422 details.coupon_code and changes nothing', async () => {
      const inactive = await coupon({ discount_value: 10, status: 'inactive' });
      const o = await bookedOrder(t.db);
      for (const code of [inactive.code, 'NO-SUCH-COUPON']) {
        const res = await applyTo(o.orderId, { coupon_code: code, notes: 'not saved' });
        expect(res.statusCode).toBe(422);
        expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { coupon_code: expect.any(String) } });
      }
      expect((await call('GET', `/orders/${o.orderId}`)).json()).toMatchObject({ coupon_code: null, notes: null, total: '50.00' });
    });
  });
});
