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

/** A booking's new order, as the booking's representation shows it. */
export interface NewBookingOrder {
  id: number;
  confirmation_code: string;
  created_at: string;
}

/**
 * Contract §8: one order (open, not_paid, not_fulfilled) per booking to be written, for the
 * booking's price; ahead of the bookings, which name their order. One statement; the orders in
 * the order of `orders`.
 */
export async function insertBookingOrders(trx: Db, orders: readonly { customerId: number; priceCents: number }[], at: string): Promise<NewBookingOrder[]> {
  if (orders.length === 0) return [];
  const rows = orders.map((order) => ({
    confirmation_code: randomCode(10),
    customer_id: order.customerId,
    status: 'open' as const,
    payment_status: 'not_paid' as const,
    fulfillment_status: 'not_fulfilled' as const,
    subtotal_cents: order.priceCents,
    total_cents: order.priceCents,
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
  }));
  const inserted = await trx.insertInto('orders').values(rows).returning(['id', 'confirmation_code']).execute();
  // The returned rows need not come in the order of the values; the codes are unique.
  const ids = new Map(inserted.map((row) => [row.confirmation_code, row.id]));
  return rows.map((row) => ({ id: ids.get(row.confirmation_code) as number, confirmation_code: row.confirmation_code, created_at: at }));
}

export type BookingItemInput = Omit<BookingOrderInput, 'customerId'> & { orderId: number };

/**
 * Contract §8: each booking's `booking` item in its order and one open invoice for the total, in
 * two statements; their ids in the order of `items`.
 */
export async function insertBookingItems(trx: Db, items: readonly BookingItemInput[], at: string): Promise<{ orderItemId: number; invoiceId: number }[]> {
  if (items.length === 0) return [];
  const insertedItems = await trx
    .insertInto('order_items')
    .values(
      items.map((item) => ({
        order_id: item.orderId,
        booking_id: item.bookingId,
        variant: 'booking' as const,
        item_data: JSON.stringify(item.itemData),
        quantity: 1,
        subtotal_cents: item.priceCents,
        total_cents: item.priceCents,
        created_at: at,
        updated_at: at,
      })),
    )
    .returning(['id', 'order_id'])
    .execute();
  const invoices = items.map((item) => ({
    order_id: item.orderId,
    invoice_number: `INV-${randomCode(10)}`,
    status: 'open' as const,
    charge_amount_cents: item.priceCents,
    payment_portion: 'full' as const,
    due_at: null,
    created_at: at,
    updated_at: at,
  }));
  const insertedInvoices = await trx.insertInto('invoices').values(invoices).returning(['id', 'invoice_number']).execute();
  // Each order here is new and gets one item; invoice numbers are unique.
  const itemIds = new Map(insertedItems.map((row) => [row.order_id, row.id]));
  const invoiceIds = new Map(insertedInvoices.map((row) => [row.invoice_number, row.id]));
  return invoices.map((invoice) => ({ orderItemId: itemIds.get(invoice.order_id) as number, invoiceId: invoiceIds.get(invoice.invoice_number) as number }));
}

/**
 * Contract §8 for a booking written without its order: the order, its `booking` item and one
 * open invoice, and the booking pointed at the order. Call it with the booking's transaction so
 * that all of it exists or none.
 */
export async function createOrderForBooking(trx: Db, input: BookingOrderInput): Promise<CreatedBookingOrder> {
  const at = nowIso();
  const [order] = (await insertBookingOrders(trx, [{ customerId: input.customerId, priceCents: input.priceCents }], at)) as [NewBookingOrder];
  const [ids] = (await insertBookingItems(trx, [{ orderId: order.id, bookingId: input.bookingId, priceCents: input.priceCents, itemData: input.itemData }], at)) as [
    { orderItemId: number; invoiceId: number },
  ];
  await trx.updateTable('bookings').set({ order_id: order.id }).where('id', '=', input.bookingId).execute();
  return { orderId: order.id, ...ids };
}
