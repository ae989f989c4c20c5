import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Database, Db } from '../../db/database.js';
import { offsetOf, type PageRequest } from '../../core/pagination.js';
import { MAX_BULK_BOOKINGS } from '../../core/limits.js';
import { prepareRowsQuery } from '../../db/prepared.js';
import type { InvoicesTable, OrderItemsTable, OrdersTable, TransactionsTable } from './table.js';
import type { LedgerEntry } from './totals.js';
import { renewManageLinks } from '../manage-links/index.js';
import { bumpBusyVersions } from '../availability/index.js';

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
  /** UTC instants (ISO) bounding updated_at, both exclusive. */
  updatedAfter?: string;
  updatedBefore?: string;
}

export interface OrderSort {
  column: 'id' | 'updated_at';
  direction: 'asc' | 'desc';
}

export function findOrder(db: Db, id: number): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
}

/** In the sort's order, id breaking ties in the same direction so that pages never overlap. */
export async function listOrders(db: Db, filter: OrderFilter, sort: OrderSort, page: PageRequest): Promise<{ rows: OrderRow[]; total: number }> {
  let query = db.selectFrom('orders');
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.paymentStatus !== undefined) query = query.where('payment_status', '=', filter.paymentStatus);
  if (filter.updatedAfter !== undefined) query = query.where('updated_at', '>', filter.updatedAfter);
  if (filter.updatedBefore !== undefined) query = query.where('updated_at', '<', filter.updatedBefore);
  const { total } = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  let ordered = query.selectAll();
  if (sort.column === 'updated_at') ordered = ordered.orderBy('updated_at', sort.direction);
  const rows = await ordered.orderBy('id', sort.direction).limit(page.perPage).offset(offsetOf(page)).execute();
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
  return liveItemsSubtotalCents(db, orderId);
}

/** The sum of the order's live (active) items (docs/money.md): its subtotal. */
export async function liveItemsSubtotalCents(db: Db, orderId: number): Promise<number> {
  const { subtotal } = await db
    .selectFrom('order_items')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('total_cents'), sql<number>`0`).as('subtotal'))
    .where('order_id', '=', orderId)
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  return Number(subtotal);
}

/** How many items the order has, and how many of them are active. */
export async function itemCounts(db: Db, orderId: number): Promise<{ all: number; active: number }> {
  const rows = await db
    .selectFrom('order_items')
    .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
    .where('order_id', '=', orderId)
    .groupBy('status')
    .execute();
  const count = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
  return { all: count('active') + count('cancelled'), active: count('active') };
}

/** A booking's item cancelled with it, or active again when it comes back. */
export async function setBookingItemStatus(db: Db, orderId: number, bookingId: number, status: 'active' | 'cancelled', at: string): Promise<void> {
  await db
    .updateTable('order_items')
    .set({ status, updated_at: at })
    .where('order_id', '=', orderId)
    .where('booking_id', '=', bookingId)
    .where('variant', '=', 'booking')
    .execute();
}

/** Every item of the order cancelled (the order is). */
export async function cancelItems(db: Db, orderId: number, at: string): Promise<void> {
  await db.updateTable('order_items').set({ status: 'cancelled', updated_at: at }).where('order_id', '=', orderId).where('status', '=', 'active').execute();
}

/** The order's bookings and their agents: whose locks cancelling the order takes. */
export function orderBookings(db: Db, orderId: number): Promise<{ id: number; agent_id: number; status: string }[]> {
  return db.selectFrom('bookings').select(['id', 'agent_id', 'status']).where('order_id', '=', orderId).orderBy('id').execute();
}

/** The order's bookings not yet cancelled become cancelled; their agents' busy times change. */
export async function cancelOrderBookings(db: Db, orderId: number, at: string): Promise<void> {
  const cancelled = await db
    .updateTable('bookings')
    .set({ status: 'cancelled', updated_at: at })
    .where('order_id', '=', orderId)
    .where('status', '<>', 'cancelled')
    .returning(['agent_id', 'start_at', 'end_at', 'buffer_before', 'buffer_after'])
    .execute();
  if (cancelled.length > 0) await bumpBusyVersions(db, cancelled);
}

const UNSETTLED = ['open', 'draft', 'partially_paid'] as const;

/** A reopened order's invoices voided by its close get back the status they had; those voided by hand stay void. */
export async function reopenVoidInvoices(db: Db, orderId: number, at: string): Promise<void> {
  for (const status of UNSETTLED) {
    await db
      .updateTable('invoices')
      .set({ status, status_before_close: null, updated_at: at })
      .where('order_id', '=', orderId)
      .where('status', '=', 'void')
      .where('status_before_close', '=', status)
      .execute();
  }
}

/**
 * The order's invoices not yet settled (open, draft, partially paid) become void, nothing being
 * to charge on them, each keeping the status its order's reopening gives back.
 */
export async function voidUnsettledInvoices(db: Db, orderId: number, at: string): Promise<void> {
  for (const status of UNSETTLED) {
    await db
      .updateTable('invoices')
      .set({ status: 'void', status_before_close: status, updated_at: at })
      .where('order_id', '=', orderId)
      .where('status', '=', status)
      .execute();
  }
}

export async function orderWithConfirmationCode(db: Db, code: string): Promise<number | undefined> {
  const row = await db.selectFrom('orders').select('id').where('confirmation_code', '=', code).executeTakeFirst();
  return row?.id;
}

export async function customerExists(db: Db, id: number): Promise<boolean> {
  return (await db.selectFrom('customers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Moves the order's bookings to the customer, with new manage links: the former customer's links stop opening them. */
export async function transferBookings(db: Db, orderId: number, customerId: number, at: string): Promise<void> {
  await db
    .updateTable('bookings')
    .set({ customer_id: customerId, updated_at: at })
    .where('order_id', '=', orderId)
    .where('customer_id', '<>', customerId)
    .execute();
  await renewManageLinks(db, 'order_id', orderId);
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
 * Invoices still to be paid (open, draft or partially paid) follow a new total: one for the full
 * order charges it, the remainder after a deposit charges what the deposit leaves of it; paid,
 * void and uncollectible ones stay as they were issued.
 */
export async function followTotal(db: Db, orderId: number, totalCents: number, at: string): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ charge_amount_cents: totalCents, updated_at: at })
    .where('order_id', '=', orderId)
    .where('payment_portion', '=', 'full')
    .where('status', 'in', ['open', 'draft', 'partially_paid'])
    .execute();
  const deposits = await db.selectFrom('invoices').select('charge_amount_cents').where('order_id', '=', orderId).where('payment_portion', '=', 'deposit').execute();
  if (deposits.length === 0) return;
  // The remainder after a deposit charges what the deposit leaves of the total.
  const depositCents = deposits.reduce((sum, row) => sum + row.charge_amount_cents, 0);
  await db
    .updateTable('invoices')
    .set({ charge_amount_cents: Math.max(0, totalCents - depositCents), updated_at: at })
    .where('order_id', '=', orderId)
    .where('payment_portion', '=', 'remaining')
    .where('status', 'in', ['open', 'draft', 'partially_paid'])
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

/** The order's transactions summed by kind and status: what the ledger computes from (totals.ts). */
export async function ledgerEntries(db: Db, orderId: number): Promise<LedgerEntry[]> {
  const rows = await db
    .selectFrom('transactions')
    .select((eb) => ['kind', 'status', eb.fn.sum<number | string>('amount_cents').as('cents')])
    .where('order_id', '=', orderId)
    .groupBy(['kind', 'status'])
    .execute();
  return rows.map((row) => ({ kind: row.kind, status: row.status, amountCents: Number(row.cents) }));
}

/** All the order's invoices, oldest first: the order in which captures fill them. */
export function orderInvoices(db: Db, orderId: number): Promise<InvoiceRow[]> {
  return db.selectFrom('invoices').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
}

// --- New bookings' orders ----------------------------------------------------------------------

/** An open, unpaid order for one booking's price (contract §8). */
export function orderRow(row: NewOrderRow) {
  return {
    confirmation_code: row.confirmationCode,
    customer_id: row.customerId,
    status: row.status,
    payment_status: row.paymentStatus,
    fulfillment_status: 'not_fulfilled' as const,
    subtotal_cents: row.subtotalCents,
    total_cents: row.totalCents,
    tax_total_cents: 0,
    discount_total_cents: 0,
    coupon_code: row.couponCode,
    coupon_id: row.couponId,
    coupon_discount_cents: row.couponDiscountCents,
    customer_comment: null,
    notes: null,
    ip_address: null,
    source_id: null,
    source_url: null,
    created_at: row.at,
    updated_at: row.at,
  };
}

export function orderItemRow(orderId: number, bookingId: number, itemData: string, priceCents: number, status: 'active' | 'cancelled', at: string) {
  return {
    order_id: orderId,
    booking_id: bookingId,
    variant: 'booking' as const,
    status,
    item_data: itemData,
    quantity: 1,
    subtotal_cents: priceCents,
    total_cents: priceCents,
    created_at: at,
    updated_at: at,
  };
}

export function invoiceRow(row: NewInvoiceRow) {
  return {
    order_id: row.orderId,
    invoice_number: row.invoiceNumber,
    status: row.status,
    status_before_close: row.statusBeforeClose,
    charge_amount_cents: row.priceCents,
    payment_portion: row.portion,
    due_at: row.dueAt,
    created_at: row.at,
    updated_at: row.at,
  };
}

// Building an insert of this many values costs more than running it: the inserts of new
// bookings' orders, items and invoices are compiled once per number of bookings a request writes.
const orderInserts = prepareRowsQuery(
  { confirmationCode: true, customerId: true, status: true, subtotalCents: true, couponId: true, couponCode: true, couponDiscountCents: true, totalCents: true, paymentStatus: true, at: true },
  MAX_BULK_BOOKINGS,
  (trx: Db, rows: NewOrderRow[]) =>
    trx
      .insertInto('orders')
      .values(rows.map(orderRow))
      .returning(['id', 'confirmation_code']),
);

const itemInserts = prepareRowsQuery(
  { orderId: true, bookingId: true, itemData: true, priceCents: true, status: true, at: true },
  MAX_BULK_BOOKINGS,
  (trx: Db, rows: NewItemRow[]) =>
    trx
      .insertInto('order_items')
      .values(rows.map((row) => orderItemRow(row.orderId, row.bookingId, row.itemData, row.priceCents, row.status, row.at)))
      .returning(['id', 'order_id']),
);

const invoiceInserts = prepareRowsQuery(
  { orderId: true, invoiceNumber: true, priceCents: true, status: true, statusBeforeClose: true, portion: true, dueAt: true, at: true },
  // A booking with a deposit has two invoices.
  2 * MAX_BULK_BOOKINGS,
  (trx: Db, rows: NewInvoiceRow[]) =>
    trx
      .insertInto('invoices')
      .values(rows.map(invoiceRow))
      .returning(['id', 'invoice_number']),
);

export interface NewOrderRow {
  confirmationCode: string;
  customerId: number;
  status: OrdersTable['status'];
  subtotalCents: number;
  couponId: number | null;
  couponCode: string | null;
  couponDiscountCents: number;
  totalCents: number;
  paymentStatus: OrdersTable['payment_status'];
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
  status: 'active' | 'cancelled';
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
  status: InvoicesTable['status'];
  /** A booking created cancelled voids its invoice as a close does: open, should it come back. */
  statusBeforeClose: 'open' | null;
  /** full, or deposit and remaining. */
  portion: string;
  dueAt: string | null;
  at: string;
}

/** Inserts one open invoice per row, in one prepared statement; their ids and numbers, in any order. */
export function insertInvoiceRows(trx: Db, rows: NewInvoiceRow[]): Promise<{ id: number; invoice_number: string }[]> {
  return invoiceInserts.execute(trx, rows);
}

/** Every transaction of the order, oldest first. */
export function orderTransactions(db: Db, orderId: number): Promise<TransactionRow[]> {
  return db.selectFrom('transactions').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
}
