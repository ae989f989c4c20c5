import type { Db } from '../../db/database.js';
import { readableCode } from '../../lib/random.js';
import { insertInvoiceRows, insertItemRows, insertOrderRows } from './repository.js';

export interface BookingOrderInput {
  customerId: number;
  bookingId: number;
  priceCents: number;
  /** What the order item records about the booking; stored as a JSON-encoded string. */
  itemData: Record<string, unknown>;
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
  const rows = orders.map((order) => ({ confirmationCode: readableCode(), customerId: order.customerId, priceCents: order.priceCents, at }));
  const inserted = await insertOrderRows(trx, rows);
  // The returned rows need not come in the order of the values; the codes are unique.
  const ids = new Map(inserted.map((row) => [row.confirmation_code, row.id]));
  return rows.map((row) => ({ id: ids.get(row.confirmationCode) as number, confirmation_code: row.confirmationCode, created_at: at }));
}

export type BookingItemInput = Omit<BookingOrderInput, 'customerId'> & { orderId: number };

/**
 * Contract §8: each booking's `booking` item in its order and one open invoice for the total, in
 * two statements; their ids in the order of `items`.
 */
export async function insertBookingItems(trx: Db, items: readonly BookingItemInput[], at: string): Promise<{ orderItemId: number; invoiceId: number }[]> {
  if (items.length === 0) return [];
  const insertedItems = await insertItemRows(
    trx,
    items.map((item) => ({ orderId: item.orderId, bookingId: item.bookingId, itemData: JSON.stringify(item.itemData), priceCents: item.priceCents, at })),
  );
  const invoices = items.map((item) => ({ orderId: item.orderId, invoiceNumber: `INV-${readableCode()}`, priceCents: item.priceCents, at }));
  const insertedInvoices = await insertInvoiceRows(trx, invoices);
  // Each order here is new and gets one item; invoice numbers are unique.
  const itemIds = new Map(insertedItems.map((row) => [row.order_id, row.id]));
  const invoiceIds = new Map(insertedInvoices.map((row) => [row.invoice_number, row.id]));
  return invoices.map((invoice) => ({ orderItemId: itemIds.get(invoice.orderId) as number, invoiceId: invoiceIds.get(invoice.invoiceNumber) as number }));
}
