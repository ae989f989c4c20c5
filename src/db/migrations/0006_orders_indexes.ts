import type { Kysely } from 'kysely';

// The order list filters by status and payment_status and pages newest first; the payment list
// filters by status alone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('orders_status').on('orders').columns(['status', 'id']).execute();
  await db.schema.createIndex('orders_payment_status').on('orders').columns(['payment_status', 'id']).execute();
  await db.schema.createIndex('transactions_status').on('transactions').columns(['status', 'id']).execute();
}
