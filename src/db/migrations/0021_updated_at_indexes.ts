import type { Kysely } from 'kysely';

/**
 * The booking, customer and order lists filter on updated_at (updated_after, updated_before) and
 * sort by it with id as the tie-breaker: with id in the index, a page's ids come from the index in
 * order, however deep the page. The customers' updated_at index, the new one's prefix, gives way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('bookings_updated_at_id').on('bookings').columns(['updated_at', 'id']).execute();
  await db.schema.createIndex('customers_updated_at_id').on('customers').columns(['updated_at', 'id']).execute();
  await db.schema.dropIndex('customers_updated_at').execute();
  await db.schema.createIndex('orders_updated_at_id').on('orders').columns(['updated_at', 'id']).execute();
}
