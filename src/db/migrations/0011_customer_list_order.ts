import type { Kysely } from 'kysely';

/**
 * The customer list's default order is created_at then id (the tie-breaker that keeps pages from
 * overlapping). With id in the index, a page's ids come from the index in order, however deep
 * the page; created_at alone left PostgreSQL sorting every customer for each page. It replaces
 * the created_at index, which is its prefix.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('customers_created_at_id').on('customers').columns(['created_at', 'id']).execute();
  await db.schema.dropIndex('customers_created_at').execute();
}
