import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Lookups the catalog makes by reference: members of a category (filter, category delete) and the
// customers who prefer an agent or a location (cleared when it is deleted; also what the foreign
// key check scans on PostgreSQL).
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('services_category').on('services').column('category_id').execute();
  await db.schema.createIndex('locations_category').on('locations').column('category_id').execute();
  await db.schema.createIndex('customers_preferred_agent').on('customers').column('preferred_agent_id').execute();
  await db.schema.createIndex('customers_preferred_location').on('customers').column('preferred_location_id').execute();
}
