import { DateTime } from 'luxon';
import { isUniqueViolation } from '../../db/constraints.js';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import type { Actor } from '../../core/actor.js';
import { withOrderEvents } from './events.js';
import { AppError, notFound } from '../../core/errors.js';
import { updatedBounds } from '../../http/list-query.js';
import { formatCents, toCents } from '../../lib/money.js';
import { nowIso } from '../../lib/time.js';
import { applyCoupon, heldCouponDiscount } from '../coupons/index.js';
import type { Site } from '../../core/site.js';
import { presentInvoice, presentOrder, presentOrderSummary, presentTransaction } from './present.js';
import * as repository from './repository.js';
import type { InvoiceUpdateBody, InvoiceView, OrderListQuery, OrderUpdateBody, OrderView, SubListQuery, TransactionView } from './schemas.js';
import {
  bookingPaymentStatus,
  captureLimitCents,
  invoiceSettlementCents,
  invoiceStatuses,
  invoiceUncoveredCents,
  ledgerSums,
  netPaidCents,
  orderPaymentStatus,
  refundLimitCents,
  type TransactionKind,
  orderTotalCents,
  type InvoiceCharge,
  type LedgerSums,
  type OrderAmounts,
  type OrderPaymentStatus,
} from './totals.js';
import { agentLock, bookingLock, couponLock, customerLock, type LockKey, orderLock } from '../../core/locks.js';
import { pageRequest, pagination } from '../../core/pagination.js';

const OWNER_CHANGED = Symbol('owner changed');

/**
 * Runs `work`, which may change the given bookings inside the caller's transaction, and records
 * their events: the bookings module provides it, as an order's changes (a cancellation, a
 * transfer, a payment moving their payment status) reach its bookings.
 */
export type BookingEvents = <T>(trx: Db, actor: Actor, bookingIds: readonly number[], work: () => Promise<T>) => Promise<T>;

/** Who changes an order, the site it is shown in, and how its bookings' events are written. */
export interface OrderChange {
  actor: Actor;
  site: Site;
  bookings: BookingEvents;
}

/**
 * Runs `work` in a transaction holding the order's lock, the `also` locks and, shared, the lock of
 * the customer the order belongs to: a customer's delete takes it exclusively and removes their
 * orders, so no payment, invoice or order change lands on an order being removed. If the order
 * moved to another customer between the read of its owner and the locks, it runs again. The
 * events of what `work` changed (the order, its invoices, its payments) are written with it.
 */
export async function underOrderLocks<T>(db: Db, change: OrderChange, orderId: number, also: readonly LockKey[], work: (trx: Db) => Promise<T>): Promise<T> {
  for (;;) {
    const owner = (await repository.findOrder(db, orderId))?.customer_id;
    const locks: LockKey[] = [orderLock(orderId), ...also, ...(owner === undefined ? [] : [{ shared: customerLock(owner) }])];
    const outcome = await lockedTransaction(db, locks, async (trx) => {
      const order = await repository.findOrder(trx, orderId);
      if (order !== undefined && order.customer_id !== owner) return OWNER_CHANGED;
      const bookingIds = (await repository.orderBookings(trx, orderId)).map((booking) => booking.id);
      const value = await withOrderEvents(trx, change.actor, orderId, await change.site(), () => change.bookings(trx, change.actor, bookingIds, () => work(trx)));
      return { value };
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
  const updated = updatedBounds(query);
  const { rows, total } = await repository.listOrders(
    db,
    { customerId: query.customer_id, status: query.status, paymentStatus: query.payment_status, updatedAfter: updated.after, updatedBefore: updated.before },
    { column: query.sort ?? 'id', direction: query.order ?? 'desc' },
    page,
  );
  const context = await site();
  return { data: rows.map((row) => presentOrderSummary(row, context)), pagination: pagination(page, total) };
}

export async function getOrder(db: Db, site: Site, id: number): Promise<OrderView> {
  const order = await requireOrder(db, id);
  return presentOrder(order, await repository.orderItems(db, id), await site());
}

function charges(invoices: readonly repository.InvoiceRow[]): InvoiceCharge[] {
  return invoices.map((invoice) => ({ status: invoice.status, chargeCents: invoice.charge_amount_cents }));
}

/**
 * Applies the ledger (docs/money.md) to the order: its net paid and payment_status, its bookings'
 * payment_status and its invoices' statuses. Every change that moves money or the total calls it
 * in its own transaction, under the order's lock; a payment_status set by hand gives way here.
 */
export async function followLedger(trx: Db, orderId: number, at: string, cancelRequested = false): Promise<LedgerSums> {
  const order = await requireOrder(trx, orderId);
  const sums = ledgerSums(await repository.ledgerEntries(trx, orderId));
  const net = netPaidCents(sums);
  // An order whose bookings are all cancelled closes once it holds no money (docs/money.md).
  const closes = order.status === 'open' && net === 0 && (cancelRequested || isCancelledThrough(await repository.itemCounts(trx, orderId)));
  if (closes) await closeOrder(trx, orderId, at);
  const status = orderPaymentStatus(order.total_cents, sums, closes || order.status === 'cancelled');
  if (status !== order.payment_status || net !== order.amount_paid_cents) {
    await repository.updateOrder(trx, orderId, { payment_status: status, amount_paid_cents: net, updated_at: at });
  }
  await repository.setBookingsPaymentStatus(trx, orderId, bookingPaymentStatus(status), at);
  const invoices = await repository.orderInvoices(trx, orderId);
  const statuses = invoiceStatuses(charges(invoices), sums.capturedCents);
  for (const [i, invoice] of invoices.entries()) {
    const next = statuses[i];
    if (next !== undefined && next !== invoice.status) await repository.updateInvoice(trx, invoice.id, { status: next, updated_at: at });
  }
  return sums;
}

function isCancelledThrough(items: { all: number; active: number }): boolean {
  return items.all > 0 && items.active === 0;
}

/** A closed order is cancelled, charges nothing more and gives its coupon's use back (uses count open orders). */
async function closeOrder(trx: Db, orderId: number, at: string): Promise<void> {
  await repository.updateOrder(trx, orderId, { status: 'cancelled', updated_at: at });
  await repository.voidUnsettledInvoices(trx, orderId, at);
}

/** The order's amounts with a new subtotal: its discounts and tax as they stand, its coupon's discount on the new subtotal. */
async function amountsWith(trx: Db, order: repository.OrderRow, subtotalCents: number): Promise<OrderAmounts> {
  return {
    subtotalCents,
    discountTotalCents: order.discount_total_cents,
    couponDiscountCents: await heldCouponDiscount(trx, { couponId: order.coupon_id, discountCents: order.coupon_discount_cents }, subtotalCents),
    taxTotalCents: order.tax_total_cents,
  };
}

/**
 * The order's amounts after its items changed: the subtotal of its active items, the held
 * coupon's discount on it and the total; the full invoices still to be paid follow. Where
 * cancelled items leave other discounts above what remains, discount_total shrinks to leave a
 * total of 0: a cancellation is never refused for its money.
 */
async function followItems(trx: Db, orderId: number, at: string): Promise<void> {
  const order = await requireOrder(trx, orderId);
  const subtotalCents = await repository.liveItemsSubtotalCents(trx, orderId);
  const amounts = await amountsWith(trx, order, subtotalCents);
  const computed = orderTotalCents(amounts);
  if (computed < 0) amounts.discountTotalCents = Math.max(0, amounts.discountTotalCents + computed);
  const total = Math.max(0, orderTotalCents(amounts));
  await repository.updateOrder(trx, orderId, {
    subtotal_cents: subtotalCents,
    discount_total_cents: amounts.discountTotalCents,
    coupon_discount_cents: amounts.couponDiscountCents,
    total_cents: total,
    updated_at: at,
  });
  if (total !== order.total_cents) await repository.followTotal(trx, orderId, total, at);
}

/**
 * The one cancellation path (docs/money.md), for a booking cancelled or brought back by any
 * route: its item is cancelled (or active again), the order's amounts follow, and the ledger
 * decides whether the order closes (nothing held) or stays open showing what to refund. A
 * closed order brought back reopens with its void invoices open again. The caller holds the
 * order's lock and the booking's agents'.
 */
export async function bookingCancelled(trx: Db, orderId: number, bookingId: number, cancelled: boolean, at: string): Promise<void> {
  await repository.setBookingItemStatus(trx, orderId, bookingId, cancelled ? 'cancelled' : 'active', at);
  if (!cancelled && (await requireOrder(trx, orderId)).status === 'cancelled') {
    await repository.updateOrder(trx, orderId, { status: 'open', updated_at: at });
    await repository.reopenVoidInvoices(trx, orderId, at);
  }
  await followItems(trx, orderId, at);
  await followLedger(trx, orderId, at);
}

/**
 * Before a booking is deleted: refused while its order holds money (409 booking_has_payments:
 * cancel it, refund, then delete); otherwise it goes the cancellation path first, so that its
 * order charges nothing for it. The caller holds the order's lock.
 */
export async function releaseBookingForDelete(trx: Db, orderId: number, bookingId: number, alreadyCancelled: boolean, at: string): Promise<void> {
  const net = netPaidCents(ledgerSums(await repository.ledgerEntries(trx, orderId)));
  if (net > 0) {
    throw new AppError('booking_has_payments', `Booking ${bookingId} has payments on its order (${formatCents(net)} held): cancel it, refund, then delete it`, {
      amount_paid: formatCents(net),
    });
  }
  if (!alreadyCancelled) await bookingCancelled(trx, orderId, bookingId, true, at);
}

/** An order's payment_status set directly: the bookings follow, until the next ledger change (docs/money.md). */
async function bookingsFollow(trx: Db, orderId: number, status: OrderPaymentStatus, at: string): Promise<void> {
  await repository.setBookingsPaymentStatus(trx, orderId, bookingPaymentStatus(status), at);
}

/** A ledger refusal names the limit in `details.amount` (payments answer in style 2, which carries details beside the text). */
function beyondLimit(text: string, limit: string): AppError {
  return new AppError('validation_failed', `Invalid amount: ${text}`, undefined, { extra: { details: { amount: limit } } });
}

/**
 * Refuses a transaction about to count (docs/money.md, the ledger): a capture above the balance
 * due, a refund above the net paid. The caller holds the order's lock and has not yet counted
 * the transaction.
 */
export async function refuseBeyondLedger(trx: Db, order: repository.OrderRow, kind: TransactionKind, amountCents: number): Promise<void> {
  const net = netPaidCents(ledgerSums(await repository.ledgerEntries(trx, order.id)));
  if (kind === 'capture') {
    const limit = captureLimitCents(order.total_cents, net);
    if (amountCents > limit) {
      throw beyondLimit(`a capture may take at most the balance due, ${formatCents(limit)}`, `must be at most ${formatCents(limit)} (the balance due)`);
    }
    return;
  }
  const limit = refundLimitCents(net);
  if (amountCents > limit) {
    throw beyondLimit(`a refund may give back at most the net paid, ${formatCents(limit)}`, `must be at most ${formatCents(limit)} (the net paid)`);
  }
}

/** Refuses a succeeded capture turning failed when refunds already gave more back than would remain. */
export async function refuseNegativeNetPaid(trx: Db, orderId: number, lostCents: number): Promise<void> {
  const net = netPaidCents(ledgerSums(await repository.ledgerEntries(trx, orderId)));
  if (net - lostCents < 0) {
    throw beyondLimit(
      `failing this capture would leave the net paid at ${formatCents(net - lostCents)}; fail the refunds first`,
      `the net paid (${formatCents(net)}) must stay at least 0`,
    );
  }
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
  if (body.subtotal !== undefined) {
    // The subtotal is the sum of the order's live items (docs/money.md): one that contradicts them is refused.
    const itemsCents = await repository.liveItemsSubtotalCents(trx, order.id);
    if (cents(body.subtotal) !== itemsCents) {
      throw new AppError('validation_failed', `subtotal must equal the sum of the order's items (${formatCents(itemsCents)})`, {
        subtotal: `must equal the sum of the order's items, ${formatCents(itemsCents)}; change a booking's price instead`,
      });
    }
  }
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
export async function updateOrder(db: Db, change: OrderChange, id: number, body: OrderUpdateBody): Promise<OrderView> {
  const { site } = change;
  if (Object.keys(body).length === 0) {
    throw new AppError('invalid_request', 'Nothing to update: send at least one order field', { body: 'no updatable field given' });
  }
  const { timezone } = await site();
  const couponCode = body.coupon_code?.trim();
  const locks: LockKey[] = [
    ...(couponCode ? [couponLock(couponCode)] : []),
    ...(body.customer_id !== undefined ? [{ shared: customerLock(body.customer_id) }] : []),
  ];
  // Cancelling the order cancels its bookings, under their agents' locks (as any booking write).
  const cancelling = body.status === 'cancelled';
  for (;;) {
    const bookings = cancelling ? await repository.orderBookings(db, id) : [];
    const bookingLocks = bookings.flatMap((booking) => [agentLock(booking.agent_id), bookingLock(booking.id)]);
    const done = await underOrderLocks(db, change, id, [...locks, ...bookingLocks], async (trx) => {
      if (cancelling && !sameAgents(bookings, await repository.orderBookings(trx, id))) return false;
      await applyOrderUpdate(trx, id, body, timezone);
      return true;
    }).catch((error: unknown) => {
      // Another order took the same confirmation code between the check and the write.
      if (isUniqueViolation(error, 'orders', 'confirmation_code')) throw confirmationCodeTaken();
      throw error;
    });
    if (done) return getOrder(db, site, id);
  }
}

function sameAgents(before: readonly { id: number; agent_id: number }[], now: readonly { id: number; agent_id: number }[]): boolean {
  return before.length === now.length && before.every((booking, i) => booking.id === now[i]?.id && booking.agent_id === now[i]?.agent_id);
}

async function applyOrderUpdate(trx: Db, id: number, body: OrderUpdateBody, timezone: string): Promise<void> {
  const order = await requireOrder(trx, id);
  const at = nowIso();
  if (order.status === 'cancelled' && body.status !== undefined && body.status !== 'cancelled') {
    throw new AppError('validation_failed', 'A cancelled order comes back through its bookings', {
      status: 'the order is cancelled; bring a booking back with PUT /bookings/{id} status',
    });
  }
  const changes: Partial<Omit<repository.OrderRow, 'id'>> = { updated_at: at };
  for (const field of PLAIN_FIELDS) {
    // Cancelling goes the one cancellation path below: the ledger decides when the order closes.
    if (field === 'status' && body.status === 'cancelled') continue;
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
  if (body.status === 'cancelled' && order.status !== 'cancelled') {
    await repository.cancelOrderBookings(trx, id, at);
    await repository.cancelItems(trx, id, at);
    await followItems(trx, id, at);
    await followLedger(trx, id, at, true);
  } else if (body.payment_status !== undefined) await bookingsFollow(trx, id, body.payment_status, at);
  else if (totalMoved) await followLedger(trx, id, at);
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
  const amounts = await amountsWith(trx, order, subtotalCents);
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
    await followLedger(trx, orderId, at);
  }
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
  const context = await site();
  return { success: true as const, data: rows.map((row) => presentInvoice(row, context)), pagination: pagination(page, total) };
}

export async function getInvoice(db: Db, site: Site, orderId: number, invoiceId: number): Promise<InvoiceView> {
  return presentInvoice(await requireInvoice(db, orderId, invoiceId), await site());
}

/** Invoice states the ledger sets as money arrives; by hand only `paid` may be asked for (it records the capture). */
const DERIVED_INVOICE_STATES: readonly string[] = ['partially_paid'];

/**
 * Updates an invoice under the order's lock (docs/money.md): a paid one cannot go back; a charge
 * may not exceed what the captures already cover on it plus the order's balance due; setting it
 * to paid records one succeeded capture of what it still lacks, at most the balance due. Then the
 * ledger sets the order's, the bookings' and the invoices' states.
 */
export async function updateInvoice(db: Db, change: OrderChange, orderId: number, invoiceId: number, body: InvoiceUpdateBody): Promise<InvoiceView> {
  const { site } = change;
  if (body.status === undefined && body.charge_amount === undefined) {
    throw new AppError('invalid_request', 'Nothing to update: send status or charge_amount', { body: 'no updatable field given' });
  }
  if (body.status !== undefined && DERIVED_INVOICE_STATES.includes(body.status)) {
    throw new AppError('validation_failed', 'An invoice becomes partially_paid as captures arrive', {
      status: 'partially_paid follows the ledger; set open, paid, draft, void or uncollectible',
    });
  }
  await underOrderLocks(db, change, orderId, [], async (trx) => {
    const invoice = await requireInvoice(trx, orderId, invoiceId);
    if (invoice.status === 'paid' && body.status !== undefined && body.status !== 'paid') {
      throw new AppError('validation_failed', 'A paid invoice cannot change its status', {
        status: `the invoice is paid; it cannot become ${body.status} (refund through POST /payments instead)`,
      });
    }
    const at = nowIso();
    const order = await requireOrder(trx, orderId);
    if (order.status === 'cancelled' && (body.status === 'paid' || body.status === 'open' || body.status === 'draft')) {
      throw new AppError('validation_failed', 'Nothing is collected on a cancelled order', {
        status: `the order is cancelled; its invoices cannot become ${body.status} (bring a booking of it back first)`,
      });
    }
    const sums = ledgerSums(await repository.ledgerEntries(trx, orderId));
    // Set to paid, a void, draft or uncollectible invoice is collected again: open, for the ledger to fill.
    const status = body.status === 'paid' ? (invoice.status === 'partially_paid' || invoice.status === 'paid' ? invoice.status : 'open') : body.status;
    const invoices = (await repository.orderInvoices(trx, orderId)).map((row) => (row.id === invoiceId && status !== undefined ? { ...row, status } : row));
    const position = invoices.findIndex((row) => row.id === invoiceId);
    const uncovered = invoiceUncoveredCents(charges(invoices), sums.capturedCents)[position] ?? 0;
    const coveredCents = invoice.charge_amount_cents - uncovered;
    const balanceCents = captureLimitCents(order.total_cents, netPaidCents(sums));

    const chargeCents = body.charge_amount === undefined ? invoice.charge_amount_cents : cents(body.charge_amount);
    if (body.charge_amount !== undefined && chargeCents > coveredCents + balanceCents) {
      throw new AppError('validation_failed', 'The charge exceeds the order’s balance', {
        charge_amount: `must be at most ${formatCents(coveredCents + balanceCents)} (covered ${formatCents(coveredCents)} + balance due ${formatCents(balanceCents)})`,
      });
    }
    await repository.updateInvoice(trx, invoiceId, {
      ...(status === undefined ? {} : { status }),
      charge_amount_cents: chargeCents,
      updated_at: at,
    });

    if (body.status === 'paid') {
      const amount = invoiceSettlementCents(chargeCents - coveredCents, order.total_cents, netPaidCents(sums));
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
    }
    await followLedger(trx, orderId, at);
  });
  return getInvoice(db, site, orderId, invoiceId);
}

export async function listOrderTransactions(db: Db, site: Site, orderId: number, query: SubListQuery) {
  await requireOrder(db, orderId);
  const page = pageRequest(query, 10);
  const { rows, total } = await repository.listTransactions(db, { orderId }, page, 'asc');
  const context = await site();
  return { success: true as const, data: rows.map((row) => presentTransaction(row, context)), pagination: pagination(page, total) };
}

export async function getOrderTransaction(db: Db, site: Site, orderId: number, transactionId: number): Promise<TransactionView> {
  await requireOrder(db, orderId);
  const transaction = await repository.findTransaction(db, transactionId);
  if (!transaction || transaction.order_id !== orderId) {
    throw notFound('transaction_not_found', 'Transaction', `${transactionId} of order ${orderId}`);
  }
  return presentTransaction(transaction, await site());
}
