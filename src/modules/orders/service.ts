import { DateTime } from 'luxon';
import { isUniqueViolation } from '../../db/constraints.js';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import { AppError, notFound } from '../../core/errors.js';
import { formatCents, toCents } from '../../lib/money.js';
import { nowIso } from '../../lib/time.js';
import { applyCoupon, heldCouponDiscount } from '../coupons/index.js';
import type { Site } from '../../core/site.js';
import { presentInvoice, presentOrder, presentOrderSummary, presentTransaction } from './present.js';
import * as repository from './repository.js';
import type { InvoiceUpdateBody, InvoiceView, OrderListQuery, OrderUpdateBody, OrderView, SubListQuery, TransactionView } from './schemas.js';
import {
  bookingPaymentStatus,
  invoiceSettlementCents,
  orderPaymentStatus,
  orderTotalCents,
  type OrderAmounts,
  type OrderPaymentStatus,
} from './totals.js';
import { couponLock, customerLock, type LockKey, orderLock } from '../../core/locks.js';
import { pageRequest, pagination } from '../../core/pagination.js';

const OWNER_CHANGED = Symbol('owner changed');

/**
 * Runs `work` in a transaction holding the order's lock, the `also` locks and, shared, the lock of
 * the customer the order belongs to: a customer's delete takes it exclusively and removes their
 * orders, so no payment, invoice or order change lands on an order being removed. If the order
 * moved to another customer between the read of its owner and the locks, it runs again.
 */
export async function underOrderLocks<T>(db: Db, orderId: number, also: readonly LockKey[], work: (trx: Db) => Promise<T>): Promise<T> {
  for (;;) {
    const owner = (await repository.findOrder(db, orderId))?.customer_id;
    const locks: LockKey[] = [orderLock(orderId), ...also, ...(owner === undefined ? [] : [{ shared: customerLock(owner) }])];
    const outcome = await lockedTransaction(db, locks, async (trx) => {
      const order = await repository.findOrder(trx, orderId);
      if (order !== undefined && order.customer_id !== owner) return OWNER_CHANGED;
      return { value: await work(trx) };
    });
    if (outcome !== OWNER_CHANGED) return outcome.value;
  }
}

/** A schema-checked amount (0 to MAX_AMOUNT) in cents, half-up. */
function cents(amount: number): number {
  return toCents(amount) ?? 0;
}

export async function requireOrder(db: Db, id: number): Promise<repository.OrderRow> {
  const order = await repository.findOrder(db, id);
  if (!order) throw notFound('order_not_found', 'Order', id);
  return order;
}

export async function listOrders(db: Db, site: Site, query: OrderListQuery) {
  const page = pageRequest(query, 10);
  const { rows, total } = await repository.listOrders(
    db,
    { customerId: query.customer_id, status: query.status, paymentStatus: query.payment_status },
    page,
  );
  const { timezone } = await site();
  return { data: rows.map((row) => presentOrderSummary(row, timezone)), pagination: pagination(page, total) };
}

export async function getOrder(db: Db, site: Site, id: number): Promise<OrderView> {
  const order = await requireOrder(db, id);
  return presentOrder(order, await repository.orderItems(db, id), (await site()).timezone);
}

/**
 * Sets the order's payment_status from its succeeded transactions, and its bookings' to match
 * (contract §8). Call it in the transaction of the change that moves the money.
 */
export async function syncPaymentStatus(trx: Db, orderId: number, at: string): Promise<void> {
  const order = await requireOrder(trx, orderId);
  const status = orderPaymentStatus(order.total_cents, await repository.succeededCents(trx, orderId));
  if (status !== order.payment_status) await repository.updateOrder(trx, orderId, { payment_status: status, updated_at: at });
  await repository.setBookingsPaymentStatus(trx, orderId, bookingPaymentStatus(status), at);
}

/** An order's payment_status set directly: the bookings follow where their states have a match. */
async function bookingsFollow(trx: Db, orderId: number, status: OrderPaymentStatus, at: string): Promise<void> {
  const booking = bookingPaymentStatus(status);
  if (booking !== undefined) await repository.setBookingsPaymentStatus(trx, orderId, booking, at);
}

function confirmationCodeTaken(): AppError {
  return new AppError('validation_failed', 'This confirmation code belongs to another order', {
    confirmation_code: 'is already used by another order',
  });
}

const PLAIN_FIELDS = ['status', 'fulfillment_status', 'customer_comment', 'notes', 'ip_address', 'source_id', 'source_url'] as const;

interface MoneyChanges {
  amounts: OrderAmounts;
  total: number;
  /** The coupon to store: one applied, null to take it off, undefined to leave it. */
  coupon: { id: number; code: string } | null | undefined;
}

const TOTAL_FORMULA = 'subtotal − discount_total − coupon_discount + tax_total';

/** A total below zero is refused, named after the request field that would cause it. */
function refuseNegativeTotal(total: number, field: string): void {
  if (total < 0) {
    throw new AppError('validation_failed', 'Discounts exceed the subtotal plus tax', {
      [field]: `${TOTAL_FORMULA} would be ${formatCents(total)}; it must not be negative`,
    });
  }
}

/**
 * The order's amounts after the update: given values, a coupon applied (checked, its discount
 * computed on the new subtotal unless coupon_discount is given) or removed, and the total that
 * follows from them, which a given total must equal.
 */
async function moneyChanges(trx: Db, order: repository.OrderRow, body: OrderUpdateBody, timezone: string): Promise<MoneyChanges> {
  const given = (amount: number | undefined, current: number) => (amount === undefined ? current : cents(amount));
  const amounts: OrderAmounts = {
    subtotalCents: given(body.subtotal, order.subtotal_cents),
    discountTotalCents: given(body.discount_total, order.discount_total_cents),
    couponDiscountCents: given(body.coupon_discount, order.coupon_discount_cents),
    taxTotalCents: given(body.tax_total, order.tax_total_cents),
  };
  let coupon: MoneyChanges['coupon'];
  const code = body.coupon_code?.trim();
  if (code) {
    const today = DateTime.now().setZone(timezone).toISODate() ?? '';
    const applied = await applyCoupon(trx, code, { id: order.id, subtotalCents: amounts.subtotalCents, today });
    coupon = { id: applied.id, code: applied.code };
    if (body.coupon_discount === undefined) amounts.couponDiscountCents = applied.discountCents;
  } else if (body.coupon_code !== undefined) {
    // null or empty: the coupon comes off, and its discount with it unless one is given.
    coupon = null;
    if (body.coupon_discount === undefined) amounts.couponDiscountCents = 0;
  } else if (body.coupon_discount === undefined && amounts.subtotalCents !== order.subtotal_cents) {
    // Contract §8: the coupon's discount is computed on the subtotal, so it follows a new one.
    amounts.couponDiscountCents = await heldCouponDiscount(trx, { couponId: order.coupon_id, discountCents: order.coupon_discount_cents }, amounts.subtotalCents);
  }

  const total = orderTotalCents(amounts);
  refuseNegativeTotal(total, 'total');
  if (body.total !== undefined && cents(body.total) !== total) {
    throw new AppError('validation_failed', `total must equal ${TOTAL_FORMULA} (${formatCents(total)})`, {
      total: `must equal ${TOTAL_FORMULA} = ${formatCents(total)}`,
    });
  }
  return { amounts, total, coupon };
}

/**
 * Updates an order in one transaction: plain fields, confirmation code, a transfer to another
 * customer (with its bookings), amounts and coupon. A new total moves payment_status with the
 * succeeded payments unless payment_status is given, which is then set as is.
 */
export async function updateOrder(db: Db, site: Site, id: number, body: OrderUpdateBody): Promise<OrderView> {
  if (Object.keys(body).length === 0) {
    throw new AppError('invalid_request', 'Nothing to update: send at least one order field', { body: 'no updatable field given' });
  }
  const { timezone } = await site();
  const couponCode = body.coupon_code?.trim();
  const locks: LockKey[] = [
    ...(couponCode ? [couponLock(couponCode)] : []),
    ...(body.customer_id !== undefined ? [{ shared: customerLock(body.customer_id) }] : []),
  ];

  await underOrderLocks(db, id, locks, async (trx) => {
    const order = await requireOrder(trx, id);
    const at = nowIso();
    const changes: Partial<Omit<repository.OrderRow, 'id'>> = { updated_at: at };
    for (const field of PLAIN_FIELDS) {
      if (body[field] !== undefined) Object.assign(changes, { [field]: body[field] });
    }
    if (body.payment_status !== undefined) changes.payment_status = body.payment_status;

    if (body.confirmation_code !== undefined && body.confirmation_code !== order.confirmation_code) {
      if ((await repository.orderWithConfirmationCode(trx, body.confirmation_code)) !== undefined) throw confirmationCodeTaken();
      changes.confirmation_code = body.confirmation_code;
    }

    if (body.customer_id !== undefined && body.customer_id !== order.customer_id) {
      if (!(await repository.customerExists(trx, body.customer_id))) {
        throw new AppError('invalid_request', `Customer ${body.customer_id} does not exist`, { customer_id: 'no customer has this id' });
      }
      changes.customer_id = body.customer_id;
      await repository.transferBookings(trx, id, body.customer_id, at);
    }

    const money = await moneyChanges(trx, order, body, timezone);
    if (money.coupon !== undefined) Object.assign(changes, { coupon_code: money.coupon?.code ?? null, coupon_id: money.coupon?.id ?? null });
    await repository.updateOrder(trx, id, {
      ...changes,
      subtotal_cents: money.amounts.subtotalCents,
      discount_total_cents: money.amounts.discountTotalCents,
      coupon_discount_cents: money.amounts.couponDiscountCents,
      tax_total_cents: money.amounts.taxTotalCents,
      total_cents: money.total,
    });

    const totalMoved = money.total !== order.total_cents;
    if (totalMoved) await repository.followTotal(trx, id, money.total, at);
    if (body.payment_status !== undefined) await bookingsFollow(trx, id, body.payment_status, at);
    else if (totalMoved) await syncPaymentStatus(trx, id, at);
  }).catch((error: unknown) => {
    // Another order took the same confirmation code between the check and the write.
    if (isUniqueViolation(error, 'orders', 'confirmation_code')) throw confirmationCodeTaken();
    throw error;
  });
  return getOrder(db, site, id);
}

/**
 * A booking's new price flows into its order (contract §8): its item, the subtotal, the held
 * coupon's discount on it, the total, the open invoices for the full amount and payment_status.
 * Refused when the order's other discounts would take the total below zero. The caller's
 * transaction holds orderLock(orderId).
 */
export async function repriceBooking(trx: Db, orderId: number, bookingId: number, priceCents: number, at: string): Promise<void> {
  const order = await requireOrder(trx, orderId);
  const subtotalCents = await repository.repriceBookingItem(trx, orderId, bookingId, priceCents, at);
  const amounts: OrderAmounts = {
    subtotalCents,
    discountTotalCents: order.discount_total_cents,
    couponDiscountCents: await heldCouponDiscount(trx, { couponId: order.coupon_id, discountCents: order.coupon_discount_cents }, subtotalCents),
    taxTotalCents: order.tax_total_cents,
  };
  const total = orderTotalCents(amounts);
  refuseNegativeTotal(total, 'price');
  await repository.updateOrder(trx, orderId, {
    subtotal_cents: subtotalCents,
    coupon_discount_cents: amounts.couponDiscountCents,
    total_cents: total,
    updated_at: at,
  });
  if (total !== order.total_cents) {
    await repository.followTotal(trx, orderId, total, at);
    await syncPaymentStatus(trx, orderId, at);
  }
}

/**
 * The order of a deleted booking: left without items, it is cancelled and its unsettled
 * invoices voided, so that it charges nothing; its amounts and payments stay on record. (Every
 * booking has an order of its own, so its order is left without items.) The caller's
 * transaction holds orderLock(orderId).
 */
export async function closeOrderOfDeletedBooking(trx: Db, orderId: number, at: string): Promise<void> {
  if ((await repository.orderItems(trx, orderId)).length > 0) return;
  await repository.updateOrder(trx, orderId, { status: 'cancelled', updated_at: at });
  await repository.voidUnsettledInvoices(trx, orderId, at);
}

async function requireInvoice(db: Db, orderId: number, invoiceId: number): Promise<repository.InvoiceRow> {
  await requireOrder(db, orderId);
  const invoice = await repository.findInvoice(db, orderId, invoiceId);
  if (!invoice) throw notFound('invoice_not_found', 'Invoice', `${invoiceId} of order ${orderId}`);
  return invoice;
}

export async function listInvoices(db: Db, site: Site, orderId: number, query: SubListQuery) {
  await requireOrder(db, orderId);
  const page = pageRequest(query, 10);
  const { rows, total } = await repository.listInvoices(db, orderId, page);
  const { timezone } = await site();
  return { success: true as const, data: rows.map((row) => presentInvoice(row, timezone)), pagination: pagination(page, total) };
}

export async function getInvoice(db: Db, site: Site, orderId: number, invoiceId: number): Promise<InvoiceView> {
  return presentInvoice(await requireInvoice(db, orderId, invoiceId), (await site()).timezone);
}

/**
 * Updates an invoice. Setting it to paid records one succeeded transaction for the order's unpaid
 * balance, at most the invoice's charge amount (none when nothing is owed), and moves the order's
 * and bookings' payment_status, all in one transaction.
 */
export async function updateInvoice(db: Db, site: Site, orderId: number, invoiceId: number, body: InvoiceUpdateBody): Promise<InvoiceView> {
  if (body.status === undefined && body.charge_amount === undefined) {
    throw new AppError('invalid_request', 'Nothing to update: send status or charge_amount', { body: 'no updatable field given' });
  }
  await underOrderLocks(db, orderId, [], async (trx) => {
    const invoice = await requireInvoice(trx, orderId, invoiceId);
    const at = nowIso();
    const chargeCents = body.charge_amount === undefined ? invoice.charge_amount_cents : cents(body.charge_amount);
    await repository.updateInvoice(trx, invoiceId, {
      ...(body.status === undefined ? {} : { status: body.status }),
      charge_amount_cents: chargeCents,
      updated_at: at,
    });
    if (body.status !== 'paid' || invoice.status === 'paid') return;

    const order = await requireOrder(trx, orderId);
    const amount = invoiceSettlementCents(order.total_cents, await repository.succeededCents(trx, orderId), chargeCents);
    if (amount > 0) {
      await repository.insertTransaction(trx, {
        order_id: orderId,
        booking_id: await repository.firstBookingOfOrder(trx, orderId),
        invoice_id: invoiceId,
        customer_id: order.customer_id,
        processor: 'manual',
        payment_method: 'other',
        payment_portion: invoice.payment_portion,
        kind: 'capture',
        amount_cents: amount,
        status: 'succeeded',
        token: null,
        notes: `Invoice ${invoice.invoice_number} set to paid`,
        receipt_number: null,
        created_at: at,
        updated_at: at,
      });
    }
    await syncPaymentStatus(trx, orderId, at);
  });
  return getInvoice(db, site, orderId, invoiceId);
}

export async function listOrderTransactions(db: Db, site: Site, orderId: number, query: SubListQuery) {
  await requireOrder(db, orderId);
  const page = pageRequest(query, 10);
  const { rows, total } = await repository.listTransactions(db, { orderId }, page, 'asc');
  const { timezone } = await site();
  return { success: true as const, data: rows.map((row) => presentTransaction(row, timezone)), pagination: pagination(page, total) };
}

export async function getOrderTransaction(db: Db, site: Site, orderId: number, transactionId: number): Promise<TransactionView> {
  await requireOrder(db, orderId);
  const transaction = await repository.findTransaction(db, transactionId);
  if (!transaction || transaction.order_id !== orderId) {
    throw notFound('transaction_not_found', 'Transaction', `${transactionId} of order ${orderId}`);
  }
  return presentTransaction(transaction, (await site()).timezone);
}
