import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // A deleted agent, service or location that bookings still refer to stays as their history,
  // marked deleted and gone from the API (a foreign key keeps the row; the bookings keep their names).
  for (const table of ['agents', 'services', 'locations']) {
    await db.schema.alterTable(table).addColumn('deleted_at', 'text').execute();
  }
  // Lookups by reference: members of a category (filter, category delete) and the customers who
  // prefer an agent or a location (cleared on delete; also what the foreign key check scans).
  await db.schema.createIndex('services_category').on('services').column('category_id').execute();
  await db.schema.createIndex('locations_category').on('locations').column('category_id').execute();
  await db.schema.createIndex('customers_preferred_agent').on('customers').column('preferred_agent_id').execute();
  await db.schema.createIndex('customers_preferred_location').on('customers').column('preferred_location_id').execute();
}
