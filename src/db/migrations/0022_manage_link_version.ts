import type { Kysely } from 'kysely';

/**
 * Manage-link keys are no longer stored: each is derived from the server's secret, the booking's
 * id and this version, which renewal raises. The stored keys go, and every link made before this
 * migration stops opening its booking; GET /bookings/{id} shows the new ones.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bookings').addColumn('manage_link_version', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('bookings').dropColumn('access_key').execute();
}
