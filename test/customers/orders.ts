import type { Db } from '../../src/db/database.js';
import { orderRow } from '../../src/modules/orders/repository.js';

/** Orders and payments as stored, for customer stats tests (their endpoints belong to another module). */
const AT = '2026-01-01T00:00:00.000Z';
let sequence = 0;

export async function insertOrder(db: Db, customerId: number): Promise<number> {
  const { id } = await db
    .insertInto('orders')
    .values(orderRow({ confirmationCode: `ORD${++sequence}-${customerId}-${Date.now()}`, customerId: customerId, status: 'open', subtotalCents: 0, totalCents: 0, couponId: null, couponCode: null, couponDiscountCents: 0, paymentStatus: 'not_paid', at: AT }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function insertTransaction(
  db: Db,
  values: { orderId: number; customerId: number; cents: number; status: 'succeeded' | 'processing' | 'failed' },
): Promise<void> {
  await db
    .insertInto('transactions')
    .values({
      order_id: values.orderId,
      booking_id: null,
      invoice_id: null,
      customer_id: values.customerId,
      processor: 'stripe',
      payment_method: 'card',
      payment_portion: 'full',
      kind: 'capture',
      amount_cents: values.cents,
      status: values.status,
      token: null,
      notes: null,
      receipt_number: null,
      created_at: AT,
      updated_at: AT,
    })
    .execute();
}
