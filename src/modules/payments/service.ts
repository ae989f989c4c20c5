import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import { AppError } from '../../core/errors.js';
import { toCents } from '../../lib/money.js';
import { nowIso } from '../../lib/time.js';
import { presentTransaction, syncPaymentStatus, type TransactionView, underOrderLocks } from '../orders/index.js';
import * as orders from '../orders/index.js';
import type { Site } from '../../core/site.js';
import type { PaymentCreateBody, PaymentListQuery, PaymentUpdateBody } from './schemas.js';
import { customerLock, type LockKey, orderLock } from '../../core/locks.js';
import { pageRequest, pagination } from '../../core/pagination.js';

// Payments answer in error style 2, whose only text is the message: each one says what is wrong.

/** A positive amount (schema-checked) in cents; one that rounds to nothing is refused. */
function amountCents(amount: number): number {
  const cents = toCents(amount) ?? 0;
  if (cents < 1) throw new AppError('invalid_request', 'Invalid amount: must be at least 0.01');
  return cents;
}

function orderNotFound(id: number): AppError {
  return new AppError('order_not_found', `Order ${id} not found`);
}

function paymentNotFound(id: number): AppError {
  return new AppError('payment_not_found', `Payment ${id} not found`);
}

async function requirePayment(db: Db, id: number): Promise<orders.TransactionRow> {
  const payment = await orders.findTransaction(db, id);
  if (!payment) throw paymentNotFound(id);
  return payment;
}

export async function getPayment(db: Db, site: Site, id: number): Promise<TransactionView> {
  return presentTransaction(await requirePayment(db, id), (await site()).timezone);
}

export async function listPayments(db: Db, site: Site, query: PaymentListQuery) {
  const page = pageRequest(query, 10);
  const { rows, total } = await orders.listTransactions(
    db,
    { orderId: query.order_id, customerId: query.customer_id, status: query.status },
    page,
    'desc',
  );
  const { timezone } = await site();
  return { success: true as const, data: rows.map((row) => presentTransaction(row, timezone)), pagination: pagination(page, total) };
}

/** Records a payment of an order and moves the order's and its bookings' payment_status with it. */
export async function createPayment(db: Db, site: Site, body: PaymentCreateBody): Promise<TransactionView> {
  const amount = amountCents(body.amount);
  const payer: LockKey[] = body.customer_id ? [{ shared: customerLock(body.customer_id) }] : [];
  const id = await underOrderLocks(db, body.order_id, payer, async (trx) => {
    const order = await orders.findOrder(trx, body.order_id);
    if (!order) throw orderNotFound(body.order_id);
    const customerId = body.customer_id === undefined || body.customer_id === 0 ? order.customer_id : body.customer_id;
    if (!(await orders.customerExists(trx, customerId))) {
      throw new AppError('invalid_request', `Invalid customer_id: customer ${customerId} does not exist`);
    }
    const at = nowIso();
    const paymentId = await orders.insertTransaction(trx, {
      order_id: order.id,
      booking_id: await orders.firstBookingOfOrder(trx, order.id),
      invoice_id: null,
      customer_id: customerId,
      processor: body.processor ?? 'manual',
      payment_method: body.payment_method ?? 'other',
      payment_portion: body.payment_portion ?? 'full',
      kind: body.kind ?? 'capture',
      amount_cents: amount,
      status: body.status ?? 'succeeded',
      token: body.token ?? null,
      notes: body.notes ?? null,
      receipt_number: null,
      created_at: at,
      updated_at: at,
    });
    await syncPaymentStatus(trx, order.id, at);
    return paymentId;
  });
  return getPayment(db, site, id);
}

const UPDATABLE = ['amount', 'processor', 'payment_method', 'payment_portion', 'kind', 'status', 'token', 'notes', 'receipt_number'];

export async function updatePayment(db: Db, site: Site, id: number, body: PaymentUpdateBody): Promise<TransactionView> {
  if (Object.keys(body).length === 0) throw new AppError('invalid_request', `No fields to update: send at least one of ${UPDATABLE.join(', ')}`);
  const amount = body.amount === undefined ? undefined : amountCents(body.amount);
  const { order_id: orderId } = await requirePayment(db, id);
  await lockedTransaction(db, [orderLock(orderId)], async (trx) => {
    // Read again under the lock: the payment may have gone since.
    await requirePayment(trx, id);
    const at = nowIso();
    await orders.updateTransaction(trx, id, {
      ...(amount === undefined ? {} : { amount_cents: amount }),
      ...(body.processor === undefined ? {} : { processor: body.processor }),
      ...(body.payment_method === undefined ? {} : { payment_method: body.payment_method }),
      ...(body.payment_portion === undefined ? {} : { payment_portion: body.payment_portion }),
      ...(body.kind === undefined ? {} : { kind: body.kind }),
      ...(body.status === undefined ? {} : { status: body.status }),
      ...(body.token === undefined ? {} : { token: body.token }),
      ...(body.notes === undefined ? {} : { notes: body.notes }),
      ...(body.receipt_number === undefined ? {} : { receipt_number: body.receipt_number }),
      updated_at: at,
    });
    await syncPaymentStatus(trx, orderId, at);
  });
  return getPayment(db, site, id);
}
