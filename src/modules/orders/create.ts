import type { Db } from '../../db/database.js';
import { prepareRowsQuery } from '../../db/prepared.js';
import { readableCode } from '../../lib/random.js';
import { nowIso } from '../../lib/time.js';
import { MAX_BULK_BOOKINGS } from '../../core/limits.js';

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

// Building an insert of this many values costs more than running it: the inserts below are
// compiled once per number of bookings a request writes.
const insertOrderRows = prepareRowsQuery(
  { confirmationCode: true, customerId: true, priceCents: true, at: true },
  MAX_BULK_BOOKINGS,
  (trx: Db, rows: { confirmationCode: string; customerId: number; priceCents: number; at: string }[]) =>
    trx
      .insertInto('orders')
      .values(rows.map((row) => orderRow(row.confirmationCode, row.customerId, row.priceCents, row.at)))
      .returning(['id', 'confirmation_code']),
);

/**
 * Contract §8: one order (open, not_paid, not_fulfilled) per booking to be written, for the
 * booking's price; ahead of the bookings, which name their order. One statement; the orders in
 * the order of `orders`.
 */
export async function insertBookingOrders(trx: Db, orders: readonly { customerId: number; priceCents: number }[], at: string): Promise<NewBookingOrder[]> {
  const rows = orders.map((order) => ({ confirmationCode: readableCode(), customerId: order.customerId, priceCents: order.priceCents, at }));
  const inserted = await insertOrderRows.execute(trx, rows);
  // The returned rows need not come in the order of the values; the codes are unique.
  const ids = new Map(inserted.map((row) => [row.confirmation_code, row.id]));
  return rows.map((row) => ({ id: ids.get(row.confirmationCode) as number, confirmation_code: row.confirmationCode, created_at: at }));
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

const insertItemRows = prepareRowsQuery(
  { orderId: true, bookingId: true, itemData: true, priceCents: true, at: true },
  MAX_BULK_BOOKINGS,
  (trx: Db, rows: { orderId: number; bookingId: number; itemData: string; priceCents: number; at: string }[]) =>
    trx
      .insertInto('order_items')
      .values(rows.map((row) => orderItemRow(row.orderId, row.bookingId, row.itemData, row.priceCents, row.at)))
      .returning(['id', 'order_id']),
);

const insertInvoiceRows = prepareRowsQuery(
  { orderId: true, invoiceNumber: true, priceCents: true, at: true },
  MAX_BULK_BOOKINGS,
  (trx: Db, rows: { orderId: number; invoiceNumber: string; priceCents: number; at: string }[]) =>
    trx
      .insertInto('invoices')
      .values(rows.map((row) => invoiceRow(row.orderId, row.invoiceNumber, row.priceCents, row.at)))
      .returning(['id', 'invoice_number']),
);

/**
 * Contract §8: each booking's `booking` item in its order and one open invoice for the total, in
 * two statements; their ids in the order of `items`.
 */
export async function insertBookingItems(trx: Db, items: readonly BookingItemInput[], at: string): Promise<{ orderItemId: number; invoiceId: number }[]> {
  if (items.length === 0) return [];
  const insertedItems = await insertItemRows.execute(
    trx,
    items.map((item) => ({ orderId: item.orderId, bookingId: item.bookingId, itemData: JSON.stringify(item.itemData), priceCents: item.priceCents, at })),
  );
  const invoices = items.map((item) => ({ orderId: item.orderId, invoiceNumber: `INV-${readableCode()}`, priceCents: item.priceCents, at }));
  const insertedInvoices = await insertInvoiceRows.execute(trx, invoices);
  // Each order here is new and gets one item; invoice numbers are unique.
  const itemIds = new Map(insertedItems.map((row) => [row.order_id, row.id]));
  const invoiceIds = new Map(insertedInvoices.map((row) => [row.invoice_number, row.id]));
  return invoices.map((invoice) => ({ orderItemId: itemIds.get(invoice.orderId) as number, invoiceId: invoiceIds.get(invoice.invoiceNumber) as number }));
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
