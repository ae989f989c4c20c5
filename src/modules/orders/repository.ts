import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Database, Db } from '../../db/database.js';
import { offsetOf, type PageRequest } from '../../core/pagination.js';
import { MAX_BULK_BOOKINGS } from '../../core/limits.js';
import { prepareRowsQuery } from '../../db/prepared.js';
import type { InvoicesTable, OrderItemsTable, OrdersTable, TransactionsTable } from './table.js';
import { renewAccessKeys } from '../manage-links/index.js';

/** The bookings table's payment_status (the bookings module owns the table; the schema is shared). */
type BookingPaymentStatus = Database['bookings']['payment_status'];

export type OrderRow = Selectable<OrdersTable>;
export type OrderItemRow = Selectable<OrderItemsTable>;
export type InvoiceRow = Selectable<InvoicesTable>;
export type TransactionRow = Selectable<TransactionsTable>;

export interface OrderFilter {
  customerId?: number;
  status?: OrdersTable['status'];
  paymentStatus?: OrdersTable['payment_status'];
}

export function findOrder(db: Db, id: number): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Newest first. */
export async function listOrders(db: Db, filter: OrderFilter, page: PageRequest): Promise<{ rows: OrderRow[]; total: number }> {
  let query = db.selectFrom('orders');
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.paymentStatus !== undefined) query = query.where('payment_status', '=', filter.paymentStatus);
  const { total } = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  const rows = await query.selectAll().orderBy('id', 'desc').limit(page.perPage).offset(offsetOf(page)).execute();
  return { rows, total: Number(total) };
}

export function orderItems(db: Db, orderId: number): Promise<OrderItemRow[]> {
  return db.selectFrom('order_items').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
}

export async function updateOrder(db: Db, id: number, values: Updateable<OrdersTable>): Promise<void> {
  await db.updateTable('orders').set(values).where('id', '=', id).execute();
}

/** What a booking's item records about the booking, after the booking changed. */
export async function setBookingItemData(db: Db, orderId: number, bookingId: number, itemData: Record<string, unknown>, at: string): Promise<void> {
  await db
    .updateTable('order_items')
    .set({ item_data: JSON.stringify(itemData), updated_at: at })
    .where('order_id', '=', orderId)
    .where('booking_id', '=', bookingId)
    .where('variant', '=', 'booking')
    .execute();
}

/** A booking's new price on its item of the order; answers the order's new subtotal. */
export async function repriceBookingItem(db: Db, orderId: number, bookingId: number, priceCents: number, at: string): Promise<number> {
  await db
    .updateTable('order_items')
    .set({ subtotal_cents: priceCents, total_cents: priceCents, updated_at: at })
    .where('order_id', '=', orderId)
    .where('booking_id', '=', bookingId)
    .where('variant', '=', 'booking')
    .execute();
  const { subtotal } = await db
    .selectFrom('order_items')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('total_cents'), sql<number>`0`).as('subtotal'))
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();
  return Number(subtotal);
}

/** The order's invoices not yet settled (open or draft) become void: nothing is to be charged on them. */
export async function voidUnsettledInvoices(db: Db, orderId: number, at: string): Promise<void> {
  await db.updateTable('invoices').set({ status: 'void', updated_at: at }).where('order_id', '=', orderId).where('status', 'in', ['open', 'draft']).execute();
}

export async function orderWithConfirmationCode(db: Db, code: string): Promise<number | undefined> {
  const row = await db.selectFrom('orders').select('id').where('confirmation_code', '=', code).executeTakeFirst();
  return row?.id;
}

export async function customerExists(db: Db, id: number): Promise<boolean> {
  return (await db.selectFrom('customers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Moves the order's bookings to the customer, with new manage keys: the former customer's links stop opening them. */
export async function transferBookings(db: Db, orderId: number, customerId: number, at: string): Promise<void> {
  await db
    .updateTable('bookings')
    .set({ customer_id: customerId, updated_at: at })
    .where('order_id', '=', orderId)
    .where('customer_id', '<>', customerId)
    .execute();
  await renewAccessKeys(db, 'order_id', orderId);
}

export async function setBookingsPaymentStatus(db: Db, orderId: number, status: BookingPaymentStatus, at: string): Promise<void> {
  await db
    .updateTable('bookings')
    .set({ payment_status: status, updated_at: at })
    .where('order_id', '=', orderId)
    .where('payment_status', '<>', status)
    .execute();
}

/** The order's first booking: the one a payment of the order is recorded against. */
export async function firstBookingOfOrder(db: Db, orderId: number): Promise<number | null> {
  const row = await db.selectFrom('bookings').select('id').where('order_id', '=', orderId).orderBy('id').limit(1).executeTakeFirst();
  return row?.id ?? null;
}

export async function listInvoices(db: Db, orderId: number, page: PageRequest): Promise<{ rows: InvoiceRow[]; total: number }> {
  const query = db.selectFrom('invoices').where('order_id', '=', orderId);
  const { total } = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  const rows = await query.selectAll().orderBy('id').limit(page.perPage).offset(offsetOf(page)).execute();
  return { rows, total: Number(total) };
}

export function findInvoice(db: Db, orderId: number, invoiceId: number): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('id', '=', invoiceId).where('order_id', '=', orderId).executeTakeFirst();
}

/**
 * Invoices for the full order that are still to be paid (open or draft) charge the order's
 * total; paid, void and uncollectible ones stay as they were issued.
 */
export async function followTotal(db: Db, orderId: number, totalCents: number, at: string): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ charge_amount_cents: totalCents, updated_at: at })
    .where('order_id', '=', orderId)
    .where('payment_portion', '=', 'full')
    .where('status', 'in', ['open', 'draft'])
    .execute();
}

export async function updateInvoice(db: Db, id: number, values: Updateable<InvoicesTable>): Promise<void> {
  await db.updateTable('invoices').set(values).where('id', '=', id).execute();
}

export interface TransactionFilter {
  orderId?: number;
  customerId?: number;
  status?: TransactionsTable['status'];
}

export async function insertTransaction(db: Db, row: Insertable<TransactionsTable>): Promise<number> {
  const { id } = await db.insertInto('transactions').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

export function findTransaction(db: Db, id: number): Promise<TransactionRow | undefined> {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listTransactions(
  db: Db,
  filter: TransactionFilter,
  page: PageRequest,
  direction: 'asc' | 'desc',
): Promise<{ rows: TransactionRow[]; total: number }> {
  let query = db.selectFrom('transactions');
  if (filter.orderId !== undefined) query = query.where('order_id', '=', filter.orderId);
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  const { total } = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  const rows = await query.selectAll().orderBy('id', direction).limit(page.perPage).offset(offsetOf(page)).execute();
  return { rows, total: Number(total) };
}

export async function updateTransaction(db: Db, id: number, values: Updateable<TransactionsTable>): Promise<void> {
  await db.updateTable('transactions').set(values).where('id', '=', id).execute();
}

/** The sum of the order's succeeded transactions, in cents. */
export async function succeededCents(db: Db, orderId: number): Promise<number> {
  const { paid } = await db
    .selectFrom('transactions')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), eb.lit(0)).as('paid'))
    .where('order_id', '=', orderId)
    .where('status', '=', 'succeeded')
    .executeTakeFirstOrThrow();
  return Number(paid);
}

// --- New bookings' orders ----------------------------------------------------------------------

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

// Building an insert of this many values costs more than running it: the inserts of new
// bookings' orders, items and invoices are compiled once per number of bookings a request writes.
const orderInserts = prepareRowsQuery(
  { confirmationCode: true, customerId: true, priceCents: true, at: true },
  MAX_BULK_BOOKINGS,
  (trx: Db, rows: { confirmationCode: string; customerId: number; priceCents: number; at: string }[]) =>
    trx
      .insertInto('orders')
      .values(rows.map((row) => orderRow(row.confirmationCode, row.customerId, row.priceCents, row.at)))
      .returning(['id', 'confirmation_code']),
);

const itemInserts = prepareRowsQuery(
  { orderId: true, bookingId: true, itemData: true, priceCents: true, at: true },
  MAX_BULK_BOOKINGS,
  (trx: Db, rows: { orderId: number; bookingId: number; itemData: string; priceCents: number; at: string }[]) =>
    trx
      .insertInto('order_items')
      .values(rows.map((row) => orderItemRow(row.orderId, row.bookingId, row.itemData, row.priceCents, row.at)))
      .returning(['id', 'order_id']),
);

const invoiceInserts = prepareRowsQuery(
  { orderId: true, invoiceNumber: true, priceCents: true, at: true },
  MAX_BULK_BOOKINGS,
  (trx: Db, rows: { orderId: number; invoiceNumber: string; priceCents: number; at: string }[]) =>
    trx
      .insertInto('invoices')
      .values(rows.map((row) => invoiceRow(row.orderId, row.invoiceNumber, row.priceCents, row.at)))
      .returning(['id', 'invoice_number']),
);

export interface NewOrderRow {
  confirmationCode: string;
  customerId: number;
  priceCents: number;
  at: string;
}

/** Inserts one order per row, in one prepared statement; the rows' ids and codes, in any order. */
export function insertOrderRows(trx: Db, rows: NewOrderRow[]): Promise<{ id: number; confirmation_code: string }[]> {
  return orderInserts.execute(trx, rows);
}

export interface NewItemRow {
  orderId: number;
  bookingId: number;
  itemData: string;
  priceCents: number;
  at: string;
}

/** Inserts one `booking` item per row, in one prepared statement; their ids and orders, in any order. */
export function insertItemRows(trx: Db, rows: NewItemRow[]): Promise<{ id: number; order_id: number }[]> {
  return itemInserts.execute(trx, rows);
}

export interface NewInvoiceRow {
  orderId: number;
  invoiceNumber: string;
  priceCents: number;
  at: string;
}

/** Inserts one open invoice per row, in one prepared statement; their ids and numbers, in any order. */
export function insertInvoiceRows(trx: Db, rows: NewInvoiceRow[]): Promise<{ id: number; invoice_number: string }[]> {
  return invoiceInserts.execute(trx, rows);
}
