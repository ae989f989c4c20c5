import type { Db } from '../../db/database.js';
import { AppError } from '../../core/errors.js';
import { toCents } from '../../lib/money.js';
import { nowIso } from '../../lib/time.js';
import {
  countsAsRefund,
  followLedger,
  isTransactionKind,
  presentTransaction,
  refuseBeyondLedger,
  refuseNegativeNetPaid,
  TRANSACTION_KINDS,
  type TransactionKind,
  type TransactionView,
  underOrderLocks,
} from '../orders/index.js';
import * as orders from '../orders/index.js';
import type { Site } from '../../core/site.js';
import type { PaymentCreateBody, PaymentListQuery, PaymentUpdateBody } from './schemas.js';
import { customerLock, type LockKey } from '../../core/locks.js';
import { pageRequest, pagination } from '../../core/pagination.js';

// Payments answer in error style 2, whose only text is the message: each one says what is wrong.

/** A positive amount (schema-checked) in cents; one that rounds to nothing is refused. */
function amountCents(amount: number): number {
  const cents = toCents(amount) ?? 0;
  if (cents < 1) throw new AppError('invalid_request', 'Invalid amount: must be at least 0.01');
  return cents;
}

/** A transaction takes money in (capture) or gives it back (refund); nothing else is a kind. */
function transactionKind(kind: string): TransactionKind {
  if (!isTransactionKind(kind)) throw new AppError('validation_failed', `Invalid kind: must be one of ${TRANSACTION_KINDS.join(', ')}`);
  return kind;
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
  return presentTransaction(await requirePayment(db, id), await site());
}

export async function listPayments(db: Db, site: Site, query: PaymentListQuery) {
  const page = pageRequest(query, 10);
  const { rows, total } = await orders.listTransactions(
    db,
    { orderId: query.order_id, customerId: query.customer_id, status: query.status },
    page,
    'desc',
  );
  const context = await site();
  return { success: true as const, data: rows.map((row) => presentTransaction(row, context)), pagination: pagination(page, total) };
}

/**
 * Records a capture or refund of an order within the ledger's limits (docs/money.md), and moves
 * the order's, its bookings' and its invoices' states with it, under the order's lock: of
 * simultaneous captures of one balance, exactly one is taken.
 */
export async function createPayment(db: Db, change: orders.OrderChange, body: PaymentCreateBody): Promise<TransactionView> {
  const { site } = change;
  const amount = amountCents(body.amount);
  const kind = transactionKind(body.kind ?? 'capture');
  const status = body.status ?? 'succeeded';
  const payer: LockKey[] = body.customer_id ? [{ shared: customerLock(body.customer_id) }] : [];
  const id = await underOrderLocks(db, change, body.order_id, payer, async (trx) => {
    const order = await orders.findOrder(trx, body.order_id);
    if (!order) throw orderNotFound(body.order_id);
    const customerId = body.customer_id === undefined || body.customer_id === 0 ? order.customer_id : body.customer_id;
    if (!(await orders.customerExists(trx, customerId))) {
      throw new AppError('invalid_request', `Invalid customer_id: customer ${customerId} does not exist`);
    }
    if (status === 'succeeded') await refuseBeyondLedger(trx, order, kind, amount);
    const at = nowIso();
    const paymentId = await orders.insertTransaction(trx, {
      order_id: order.id,
      booking_id: await orders.firstBookingOfOrder(trx, order.id),
      invoice_id: null,
      customer_id: customerId,
      processor: body.processor ?? 'manual',
      payment_method: body.payment_method ?? 'other',
      payment_portion: body.payment_portion ?? 'full',
      kind,
      amount_cents: amount,
      status,
      token: body.token ?? null,
      notes: body.notes ?? null,
      receipt_number: null,
      created_at: at,
      updated_at: at,
    });
    await followLedger(trx, order.id, at);
    return paymentId;
  });
  return getPayment(db, site, id);
}

const UPDATABLE = ['amount', 'processor', 'payment_method', 'payment_portion', 'kind', 'status', 'token', 'notes', 'receipt_number'];

/**
 * Updates a payment. What the ledger counted stays counted as it was (docs/money.md): a succeeded
 * payment keeps its amount and kind and never goes back to processing, though it may fail (it
 * bounced) and stop counting; a failed one stays failed. One turning succeeded must fit the
 * ledger's limits like a new one.
 */
export async function updatePayment(db: Db, change: orders.OrderChange, id: number, body: PaymentUpdateBody): Promise<TransactionView> {
  const { site } = change;
  if (Object.keys(body).length === 0) throw new AppError('invalid_request', `No fields to update: send at least one of ${UPDATABLE.join(', ')}`);
  const amount = body.amount === undefined ? undefined : amountCents(body.amount);
  const kind = body.kind === undefined ? undefined : transactionKind(body.kind);
  const { order_id: orderId } = await requirePayment(db, id);
  await underOrderLocks(db, change, orderId, [], async (trx) => {
    // Read again under the lock: the payment may have changed since.
    const payment = await requirePayment(trx, id);
    const status = body.status ?? payment.status;
    refuseLedgerRewrite(payment, { amount, kind, status });
    const newKind: TransactionKind = kind ?? (countsAsRefund(payment.kind) ? 'refund' : 'capture');
    const newAmount = amount ?? payment.amount_cents;
    if (payment.status !== 'succeeded' && status === 'succeeded') {
      const order = await orders.findOrder(trx, orderId);
      if (!order) throw orderNotFound(orderId);
      await refuseBeyondLedger(trx, order, newKind, newAmount);
    }
    if (payment.status === 'succeeded' && status === 'failed' && newKind === 'capture') await refuseNegativeNetPaid(trx, orderId, newAmount);
    const at = nowIso();
    await orders.updateTransaction(trx, id, {
      ...(amount === undefined ? {} : { amount_cents: amount }),
      ...(body.processor === undefined ? {} : { processor: body.processor }),
      ...(body.payment_method === undefined ? {} : { payment_method: body.payment_method }),
      ...(body.payment_portion === undefined ? {} : { payment_portion: body.payment_portion }),
      ...(kind === undefined ? {} : { kind }),
      ...(body.status === undefined ? {} : { status: body.status }),
      ...(body.token === undefined ? {} : { token: body.token }),
      ...(body.notes === undefined ? {} : { notes: body.notes }),
      ...(body.receipt_number === undefined ? {} : { receipt_number: body.receipt_number }),
      updated_at: at,
    });
    await followLedger(trx, orderId, at);
  });
  return getPayment(db, site, id);
}

/** The changes the ledger refuses on a payment it has counted, or that failed. */
function refuseLedgerRewrite(payment: orders.TransactionRow, next: { amount: number | undefined; kind: string | undefined; status: string }): void {
  if (payment.status === 'failed' && next.status !== 'failed') {
    throw new AppError('validation_failed', 'Invalid status: a failed payment stays failed; record a new one');
  }
  if (payment.status !== 'succeeded') return;
  if (next.status === 'processing') throw new AppError('validation_failed', 'Invalid status: a succeeded payment never goes back to processing');
  if (next.amount !== undefined && next.amount !== payment.amount_cents) {
    throw new AppError('validation_failed', 'Invalid amount: a succeeded payment keeps its amount; correct it with a refund');
  }
  if (next.kind !== undefined && next.kind !== payment.kind) {
    throw new AppError('validation_failed', 'Invalid kind: a succeeded payment keeps its kind');
  }
}
