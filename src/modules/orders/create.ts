import type { Db } from '../../db/database.js';
import { prepareQuery } from '../../db/prepared.js';
import { randomCharacters } from '../../lib/random.js';
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
  return randomCharacters(length, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789');
}

/** A booking's new order, as the booking's representation shows it. */
export interface NewBookingOrder {
  id: number;
  confirmation_code: string;
  created_at: string;
}

/** An open, unpaid order for one booking's price (contract §8). */
export function orderRow(confirmationCode: string, customerId: number, priceCents: number, at: string) {
  return {
    confirmation_code: confirmationCode,
    customer_id: customerId,
    status: 'open' as const,
    payment_status: 'not_paid' as const,
    fulfillment_status: 'not_fulfilled' as const,
    subtotal_cents: priceCents,
    total_cents: priceCents,
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
  };
}

// A single create writes one order, item and invoice: their inserts are prepared, as building an
// insert of this many values costs more than running it.
const insertOneOrder = prepareQuery((trx: Db, confirmationCode: string, customerId: number, priceCents: number, at: string) =>
  trx.insertInto('orders').values(orderRow(confirmationCode, customerId, priceCents, at)).returning('id'),
);

/**
 * Contract §8: one order (open, not_paid, not_fulfilled) per booking to be written, for the
 * booking's price; ahead of the bookings, which name their order. One statement; the orders in
 * the order of `orders`.
 */
export async function insertBookingOrders(trx: Db, orders: readonly { customerId: number; priceCents: number }[], at: string): Promise<NewBookingOrder[]> {
  const [only] = orders;
  if (!only) return [];
  if (orders.length === 1) {
    const code = randomCode(10);
    const { id } = (await insertOneOrder.executeTakeFirst(trx, code, only.customerId, only.priceCents, at)) as { id: number };
    return [{ id, confirmation_code: code, created_at: at }];
  }
  const rows = orders.map((order) => orderRow(randomCode(10), order.customerId, order.priceCents, at));
  const inserted = await trx.insertInto('orders').values(rows).returning(['id', 'confirmation_code']).execute();
  // The returned rows need not come in the order of the values; the codes are unique.
  const ids = new Map(inserted.map((row) => [row.confirmation_code, row.id]));
  return rows.map((row) => ({ id: ids.get(row.confirmation_code) as number, confirmation_code: row.confirmation_code, created_at: at }));
}

export type BookingItemInput = Omit<BookingOrderInput, 'customerId'> & { orderId: number };

export function orderItemRow(orderId: number, bookingId: number, itemData: string, priceCents: number, at: string) {
  return {
    order_id: orderId,
    booking_id: bookingId,
    variant: 'booking' as const,
    item_data: itemData,
    quantity: 1,
    subtotal_cents: priceCents,
    total_cents: priceCents,
    created_at: at,
    updated_at: at,
  };
}

export function invoiceRow(orderId: number, invoiceNumber: string, priceCents: number, at: string) {
  return {
    order_id: orderId,
    invoice_number: invoiceNumber,
    status: 'open' as const,
    charge_amount_cents: priceCents,
    payment_portion: 'full' as const,
    due_at: null,
    created_at: at,
    updated_at: at,
  };
}

const insertOneItem = prepareQuery((trx: Db, orderId: number, bookingId: number, itemData: string, priceCents: number, at: string) =>
  trx.insertInto('order_items').values(orderItemRow(orderId, bookingId, itemData, priceCents, at)).returning('id'),
);

const insertOneInvoice = prepareQuery((trx: Db, orderId: number, invoiceNumber: string, priceCents: number, at: string) =>
  trx.insertInto('invoices').values(invoiceRow(orderId, invoiceNumber, priceCents, at)).returning('id'),
);

/**
 * Contract §8: each booking's `booking` item in its order and one open invoice for the total, in
 * two statements; their ids in the order of `items`.
 */
export async function insertBookingItems(trx: Db, items: readonly BookingItemInput[], at: string): Promise<{ orderItemId: number; invoiceId: number }[]> {
  const [only] = items;
  if (!only) return [];
  if (items.length === 1) {
    const item = (await insertOneItem.executeTakeFirst(trx, only.orderId, only.bookingId, JSON.stringify(only.itemData), only.priceCents, at)) as { id: number };
    const invoice = (await insertOneInvoice.executeTakeFirst(trx, only.orderId, `INV-${randomCode(10)}`, only.priceCents, at)) as { id: number };
    return [{ orderItemId: item.id, invoiceId: invoice.id }];
  }
  const insertedItems = await trx
    .insertInto('order_items')
    .values(items.map((item) => orderItemRow(item.orderId, item.bookingId, JSON.stringify(item.itemData), item.priceCents, at)))
    .returning(['id', 'order_id'])
    .execute();
  const invoices = items.map((item) => invoiceRow(item.orderId, `INV-${randomCode(10)}`, item.priceCents, at));
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
