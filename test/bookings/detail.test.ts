import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { bookingDetailQuery } from '../../src/modules/bookings/repository.js';
import { insertBooking } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { MONDAY, newSite, requester } from './setup.js';

const AT = '2026-01-01T00:00:00.000Z';

function insertTransaction(db: Db, values: { order_id: number; booking_id: number | null; customer_id: number; amount_cents: number; kind?: string }) {
  return db
    .insertInto('transactions')
    .values({
      invoice_id: null,
      processor: 'manual',
      payment_method: 'cash',
      payment_portion: 'full',
      kind: 'capture',
      status: 'succeeded',
      token: null,
      notes: null,
      receipt_number: null,
      created_at: AT,
      updated_at: AT,
      ...values,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

// GET /bookings/{id} reads the booking with its order, category, payments and metadata at once.
describe.each(DIALECTS)('GET /bookings/{id}: the related records (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = requester(t);

  it('lists the payments of the booking and of its order, by id, and the metadata by key', async () => {
    const site = await newSite(t.db);
    const book = async (start_time: string, meta?: Record<string, string>): Promise<Json> => {
      const res = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time, customer_id: site.customerId, send_confirmation: false, meta });
      expect(res.statusCode).toBe(201);
      return res.json().data;
    };
    const booking = await book('10:00', { zeta: 'z', alpha: 'a', mid: 'm' });
    const other = await book('12:00');

    const ofOrder = await insertTransaction(t.db, { order_id: booking.order.id, booking_id: null, customer_id: site.customerId, amount_cents: 1000, kind: 'deposit' });
    const elsewhere = await insertTransaction(t.db, { order_id: other.order.id, booking_id: null, customer_id: site.customerId, amount_cents: 700 });
    const ofBooking = await insertTransaction(t.db, { order_id: other.order.id, booking_id: booking.id, customer_id: site.customerId, amount_cents: 2550 });

    const res = await call('GET', `/bookings/${booking.id}`);
    expect(res.statusCode).toBe(200);
    const data: Json = res.json().data;
    expect(data.transactions).toEqual([
      { id: ofOrder.id, order_id: booking.order.id, booking_id: null, amount: '10.00', currency: 'USD', status: 'succeeded', processor: 'manual', payment_method: 'cash', payment_portion: 'full', kind: 'deposit', created_at: AT },
      { id: ofBooking.id, order_id: other.order.id, booking_id: booking.id, amount: '25.50', currency: 'USD', status: 'succeeded', processor: 'manual', payment_method: 'cash', payment_portion: 'full', kind: 'capture', created_at: AT },
    ]);
    expect(data.transactions.map((x: { id: number }) => x.id)).not.toContain(elsewhere.id);
    expect(Object.entries(data.meta)).toEqual([
      ['alpha', 'a'],
      ['mid', 'm'],
      ['zeta', 'z'],
    ]);
    const order = await t.db.selectFrom('orders').selectAll().where('id', '=', booking.order.id).executeTakeFirstOrThrow();
    expect(data.order).toEqual({
      id: order.id,
      confirmation_code: order.confirmation_code,
      customer_comment: order.customer_comment,
      status: order.status,
      fulfillment_status: order.fulfillment_status,
      payment_status: order.payment_status,
      source_id: order.source_id,
      source_url: order.source_url,
      total: '45.00',
      subtotal: '45.00',
      currency: 'USD',
      created_datetime: booking.order.created_datetime,
    });
    expect(data).toEqual({ ...booking, transactions: data.transactions });
  });

  it('answers a booking without order, category, payments or metadata with empty ones', async () => {
    const site = await newSite(t.db);
    const id = await insertBooking(t.db, site);
    const elsewhere = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '14:00', customer_id: site.customerId, send_confirmation: false });
    await insertTransaction(t.db, { order_id: elsewhere.json().data.order.id, booking_id: null, customer_id: site.customerId, amount_cents: 100 });

    const res = await call('GET', `/bookings/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id, order_id: null, order: null, transactions: [], meta: {}, location: { id: site.locationId, category: [] } });
  });

  it('finds the payments through indexes, never by scanning every payment', async () => {
    const compiled = bookingDetailQuery(t.db, 1).compile();
    if (dialect === 'sqlite') {
      const rows = await t.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
      const text = rows.rows.map((row) => row.detail).join('\n');
      expect(text).toMatch(/SEARCH t USING INDEX transactions_booking \(booking_id=\?\)/);
      expect(text).toMatch(/SEARCH t USING INDEX transactions_order \(order_id=\?\)/);
      expect(text).not.toMatch(/SCAN t\b/);
      return;
    }
    const text = await t.db.transaction().execute(async (trx) => {
      // Near-empty tables would be scanned whatever the indexes; ask which indexes serve the query.
      await sql`set local enable_seqscan = off`.execute(trx);
      const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
      return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(text).toMatch(/Index Scan on transactions_booking/);
    expect(text).toMatch(/Index Scan on transactions_order/);
    expect(text).not.toMatch(/Seq Scan on transactions/);
  });
});
