import type { Actor } from '../../core/actor.js';
import type { Db } from '../../db/database.js';
import { changedAttributes, recordEvents, type NewEvent } from '../events/index.js';
import { presentInvoice, presentOrder, presentTransaction, type MoneySite } from './present.js';
import * as repository from './repository.js';
import { countsAsRefund } from './totals.js';

/** An order, its invoices and its payments as their GETs show them, at one moment of a transaction. */
export interface OrderSnapshot {
  order: object | undefined;
  invoices: Map<number, { status: string } & object>;
  payments: Map<number, { kind: string } & object>;
}

async function snapshot(trx: Db, orderId: number, site: MoneySite): Promise<OrderSnapshot> {
  const order = await repository.findOrder(trx, orderId);
  if (!order) return { order: undefined, invoices: new Map(), payments: new Map() };
  const items = await repository.orderItems(trx, orderId);
  const invoices = await repository.orderInvoices(trx, orderId);
  const payments = await repository.orderTransactions(trx, orderId);
  return {
    order: presentOrder(order, items, site),
    invoices: new Map(invoices.map((row) => [row.id, presentInvoice(row, site)])),
    payments: new Map(payments.map((row) => [row.id, presentTransaction(row, site)])),
  };
}

/**
 * The events of what a change did to an order, read as a difference: money moves through one
 * ledger and several paths (payments, invoices, booking cancellations, order updates), and the
 * states that follow from it (an invoice paid, an order closed) are derived, so comparing the
 * order before and after the change finds every consequence, whichever path caused it. Causes
 * come first: the payments, then the invoices they settle, then the order.
 */
function changes(before: OrderSnapshot, after: OrderSnapshot, orderId: number): NewEvent[] {
  const events: NewEvent[] = [];
  for (const [id, payment] of after.payments) {
    const old = before.payments.get(id);
    if (old === undefined) {
      events.push({ type: countsAsRefund(payment.kind) ? 'payment.refunded' : 'payment.created', resourceId: id, data: payment });
      continue;
    }
    const previousAttributes = changedAttributes(old, payment);
    if (previousAttributes !== undefined) events.push({ type: 'payment.updated', resourceId: id, data: payment, previousAttributes });
  }
  for (const [id, invoice] of after.invoices) {
    const old = before.invoices.get(id);
    if (old === undefined || old.status === invoice.status) continue;
    if (invoice.status === 'paid') events.push({ type: 'invoice.paid', resourceId: id, data: invoice, previousAttributes: { status: old.status } });
    if (invoice.status === 'void') events.push({ type: 'invoice.voided', resourceId: id, data: invoice, previousAttributes: { status: old.status } });
  }
  if (before.order && after.order) {
    const previousAttributes = changedAttributes(before.order, after.order);
    if (previousAttributes !== undefined) {
      const cancelled = (after.order as { status: string }).status === 'cancelled' && (before.order as { status: string }).status !== 'cancelled';
      events.push({ type: cancelled ? 'order.cancelled' : 'order.updated', resourceId: orderId, data: after.order, previousAttributes });
    }
  }
  return events;
}

/**
 * Runs `work`, which changes the order inside the caller's transaction, and records the events
 * of what it changed in the same transaction.
 */
export async function withOrderEvents<T>(trx: Db, actor: Actor, orderId: number, site: MoneySite, work: () => Promise<T>): Promise<T> {
  const before = await snapshot(trx, orderId, site);
  const result = await work();
  await recordEvents(trx, actor, changes(before, await snapshot(trx, orderId, site), orderId));
  return result;
}
