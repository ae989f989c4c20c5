import { sql, type Kysely } from 'kysely';
import { idColumn } from '../columns.js';
import type { Dialect } from '../database.js';

/**
 * What the messages around a booking need: when the booking got its current time (a reminder
 * that was already due then is never sent late), the iCalendar SEQUENCE its copies in calendars
 * carry, each reminder's outcome (one row per booking, offset and start: written once, so sent
 * once), and the agents' calendar feeds (their secret tokens stored as SHA-256 hashes).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumn(dialect);
  await db.schema.alterTable('bookings').addColumn('scheduled_at', 'varchar(32)').execute();
  await db.schema.alterTable('bookings').addColumn('calendar_sequence', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // Bookings made before reminders existed count from now: a reminder that fell due before the
  // upgrade is not sent late to every booking of the next day at once.
  await sql`update bookings set scheduled_at = ${new Date().toISOString()}`.execute(db);
  // Status first: the reminder scan's two equalities then a range; the availability reads, which filter on status <> 'cancelled', keep their agent index.
  await db.schema.createIndex('bookings_status_start_at').on('bookings').columns(['status', 'start_at']).execute();

  await db.schema
    .createTable('booking_reminders')
    .addColumn('id', 'integer', id)
    .addColumn('booking_id', 'integer', (c) => c.notNull().references('bookings.id').onDelete('cascade'))
    .addColumn('offset_minutes', 'integer', (c) => c.notNull())
    .addColumn('start_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('outcome', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('booking_reminders_once', ['booking_id', 'offset_minutes', 'start_at'])
    .execute();

  await db.schema
    .createTable('calendar_feeds')
    .addColumn('id', 'integer', id)
    .addColumn('agent_id', 'integer', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('label', 'varchar(200)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_used_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('calendar_feeds_agent').on('calendar_feeds').columns(['agent_id', 'id']).execute();
}
