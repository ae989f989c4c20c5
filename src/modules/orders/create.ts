import type { Db } from '../../db/database.js';
import { readableCode } from '../../lib/random.js';
import { insertInvoiceRows, insertItemRows, insertOrderRows, type NewInvoiceRow, type NewOrderRow } from './repository.js';

export interface BookingOrderInput {
  customerId: number;
  bookingId: number;
  priceCents: number;
  /** What the order item records about the booking; stored as a JSON-encoded string. */
  itemData: Record<string, unknown>;
}

/** A new booking's order: its customer, the booking's price and the coupon applied, if any. */
export interface NewBookingOrderInput {
  customerId: number;
  priceCents: number;
  /** Checked under the coupon's lock by the caller (applyCoupon). */
  coupon: { id: number; code: string; discountCents: number } | null;
  /** A booking created cancelled (recorded after the fact): its order is cancelled from the start, charging nothing. */
  cancelled: boolean;
}

/** A booking's new order, as the booking's representation shows it. */
export interface NewBookingOrder {
  id: number;
  confirmation_code: string;
  created_at: string;
}

/**
 * Contract §8: one order (open, not_fulfilled; not_paid, or fully_paid for a total of 0) per
 * booking to be written, for the booking's price less its coupon's discount; ahead of the
 * bookings, which name their order. One statement; the orders in the order of `orders`.
 */
export async function insertBookingOrders(trx: Db, orders: readonly NewBookingOrderInput[], at: string): Promise<NewBookingOrder[]> {
  const rows = orders.map((order): NewOrderRow => {
    const coupon = order.cancelled ? null : order.coupon;
    const subtotalCents = order.cancelled ? 0 : order.priceCents;
    const discountCents = coupon?.discountCents ?? 0;
    const totalCents = subtotalCents - discountCents;
    return {
      confirmationCode: readableCode(),
      customerId: order.customerId,
      status: order.cancelled ? 'cancelled' : 'open',
      subtotalCents,
      couponId: coupon?.id ?? null,
      couponCode: coupon?.code ?? null,
      couponDiscountCents: discountCents,
      totalCents,
      // A zero-total order is fully paid at once (docs/money.md), and its invoice with it.
      paymentStatus: totalCents === 0 && !order.cancelled ? 'fully_paid' : 'not_paid',
      at,
    };
  });
  const inserted = await insertOrderRows(trx, rows);
  // The returned rows need not come in the order of the values; the codes are unique.
  const ids = new Map(inserted.map((row) => [row.confirmation_code, row.id]));
  return rows.map((row) => ({ id: ids.get(row.confirmationCode) as number, confirmation_code: row.confirmationCode, created_at: at }));
}

export type BookingItemInput = Omit<BookingOrderInput, 'customerId'> & {
  orderId: number;
  /** The order's total, which its invoices charge. */
  totalCents: number;
  /** The service's deposit: above 0 (and a total above 0), the order is invoiced in two. */
  depositCents: number;
  /** When the booking starts: the remainder after a deposit is due then. */
  startAt: string;
  /** Created cancelled: the item is cancelled and the one invoice void. */
  cancelled: boolean;
};

/**
 * The new order's invoices (docs/money.md): one for the full total; with a deposit, the deposit
 * (at most the total) due at booking and the remainder due at the start.
 */
function invoicesOf(item: BookingItemInput, at: string): NewInvoiceRow[] {
  const invoice = (portion: string, cents: number, dueAt: string | null): NewInvoiceRow => ({
    orderId: item.orderId,
    invoiceNumber: `INV-${readableCode()}`,
    priceCents: cents,
    status: cents === 0 ? 'paid' : 'open',
    statusBeforeClose: null,
    portion,
    dueAt,
    at,
  });
  if (item.cancelled) return [{ ...invoice('full', 0, null), status: 'void', statusBeforeClose: 'open' }];
  if (item.depositCents <= 0 || item.totalCents <= 0) return [invoice('full', item.totalCents, null)];
  const deposit = Math.min(item.depositCents, item.totalCents);
  return [invoice('deposit', deposit, at), invoice('remaining', item.totalCents - deposit, item.startAt)];
}

/**
 * Contract §8: each booking's `booking` item in its order and one open invoice for the total, in
 * two statements; their ids in the order of `items`.
 */
export async function insertBookingItems(trx: Db, items: readonly BookingItemInput[], at: string): Promise<{ orderItemId: number; invoiceId: number }[]> {
  if (items.length === 0) return [];
  const insertedItems = await insertItemRows(
    trx,
    items.map((item) => ({
      orderId: item.orderId,
      bookingId: item.bookingId,
      itemData: JSON.stringify(item.itemData),
      priceCents: item.priceCents,
      status: item.cancelled ? ('cancelled' as const) : ('active' as const),
      at,
    })),
  );
  const invoices = items.map((item) => invoicesOf(item, at));
  const insertedInvoices = await insertInvoiceRows(trx, invoices.flat());
  // Each order here is new and gets one item; invoice numbers are unique.
  const itemIds = new Map(insertedItems.map((row) => [row.order_id, row.id]));
  const invoiceIds = new Map(insertedInvoices.map((row) => [row.invoice_number, row.id]));
  return invoices.map(([first]) => ({
    orderItemId: itemIds.get((first as NewInvoiceRow).orderId) as number,
    invoiceId: invoiceIds.get((first as NewInvoiceRow).invoiceNumber) as number,
  }));
}
