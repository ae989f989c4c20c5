import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';

export interface BookingOrderInput {
  customerId: number;
  bookingId: number;
  priceCents: number;
  /** What the order item records about the booking; stored as a JSON-encoded string. */
  itemData: Record<string, unknown>;
}

export interface CreatedBookingOrder {
  orderId: number;
  orderItemId: number;
  invoiceId: number;
}

/** Short, unambiguous, upper-case code (no 0/O, 1/I). */
export function randomCode(length: number): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(length);
  let code = '';
  for (const byte of bytes) code += alphabet[byte % alphabet.length];
  return code;
}

/**
 * Contract §8: a booking's order (open, not_paid, not_fulfilled), its `booking` item and one open
 * invoice for the total. Call it with the booking's transaction so that all of it exists or none.
 */
export async function createOrderForBooking(trx: Db, input: BookingOrderInput): Promise<CreatedBookingOrder> {
  const at = nowIso();
  const { id: orderId } = await trx
    .insertInto('orders')
    .values({
      confirmation_code: randomCode(10),
      customer_id: input.customerId,
      status: 'open',
      payment_status: 'not_paid',
      fulfillment_status: 'not_fulfilled',
      subtotal_cents: input.priceCents,
      total_cents: input.priceCents,
      tax_total_cents: 0,
      discount_total_cents: 0,
      coupon_code: null,
      coupon_discount_cents: 0,
      customer_comment: null,
      notes: null,
      ip_address: null,
      source_id: null,
      source_url: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const { id: orderItemId } = await trx
    .insertInto('order_items')
    .values({
      order_id: orderId,
      booking_id: input.bookingId,
      variant: 'booking',
      item_data: JSON.stringify(input.itemData),
      quantity: 1,
      subtotal_cents: input.priceCents,
      total_cents: input.priceCents,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const { id: invoiceId } = await trx
    .insertInto('invoices')
    .values({
      order_id: orderId,
      invoice_number: `INV-${randomCode(10)}`,
      status: 'open',
      charge_amount_cents: input.priceCents,
      payment_portion: 'full',
      due_at: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx.updateTable('bookings').set({ order_id: orderId }).where('id', '=', input.bookingId).execute();
  return { orderId, orderItemId, invoiceId };
}
