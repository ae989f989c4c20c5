import type { Kysely } from 'kysely';

/**
 * Scheduling rules a business sets (issue 24, the engine's half):
 * - buffers before and after a service, overridable on an agent's connection to it (null: the
 *   service's), kept free around each booking without being part of it;
 * - a booking window per service: the least notice (null: the site's min_lead_minutes) and how
 *   many days ahead it may be booked (null: the site's max_advance_days);
 * - each booking keeps the buffers it was checked with, so that changing a service's or a
 *   connection's buffer never invalidates a booking already made, and its attendees, the seats
 *   it takes of a group service (capacity_max).
 * Existing rows get no buffers and one attendee: what they meant before. Slot searches read a
 * booking's buffers and attendees with its span: the covering index of migration 0010 takes them
 * too, so that those reads stay on the index alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('services').addColumn('buffer_before', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('services').addColumn('buffer_after', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('services').addColumn('min_notice_minutes', 'integer').execute();
  await db.schema.alterTable('services').addColumn('max_advance_days', 'integer').execute();
  await db.schema.alterTable('agent_services').addColumn('buffer_before', 'integer').execute();
  await db.schema.alterTable('agent_services').addColumn('buffer_after', 'integer').execute();
  await db.schema.alterTable('bookings').addColumn('buffer_before', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('bookings').addColumn('buffer_after', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('bookings').addColumn('attendees', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema
    .createIndex('bookings_agent_busy_seats')
    .on('bookings')
    .columns(['agent_id', 'start_at', 'end_at', 'service_id', 'status', 'buffer_before', 'buffer_after', 'attendees'])
    .execute();
  await db.schema.dropIndex('bookings_agent_busy').execute();
}
