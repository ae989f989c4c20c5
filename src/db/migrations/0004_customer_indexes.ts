import type { Kysely } from 'kysely';

// What the customer list filters and its per-page statistics read.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('customers_updated_at').on('customers').column('updated_at').execute();
  await db.schema.createIndex('customers_host_user').on('customers').column('host_user_id').execute();
  // Covers the per-customer booking counts and last/next dates: answered from the index alone.
  await db.schema
    .createIndex('bookings_customer_stats')
    .on('bookings')
    .columns(['customer_id', 'status', 'start_date'])
    .execute();
}
