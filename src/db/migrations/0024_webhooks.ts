import type { Kysely } from 'kysely';
import { idColumn } from '../columns.js';
import type { Dialect } from '../database.js';

/**
 * Webhook endpoints, the deliveries of events to them (each a job row: status, attempts,
 * next_attempt_at, locked_until, as the mail outbox has), each delivery's attempts, and the
 * dispatcher's place in the event feed.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumn(dialect);
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'integer', id)
    .addColumn('url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('description', 'varchar(500)')
    .addColumn('event_types', 'text')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('disabled_reason', 'varchar(200)')
    .addColumn('secret_version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('previous_secret_version', 'integer')
    .addColumn('previous_secret_expires_at', 'varchar(32)')
    .addColumn('failing_since', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'integer', id)
    .addColumn('endpoint_id', 'integer', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'integer')
    .addColumn('event_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('payload', 'text')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'varchar(1000)')
    .addColumn('last_status_code', 'integer')
    .addColumn('next_attempt_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('locked_until', 'varchar(32)')
    .addColumn('delivered_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'integer', id)
    .addColumn('delivery_id', 'integer', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'varchar(1024)')
    .addColumn('error', 'varchar(1000)')
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'id']).execute();

  await db.schema
    .createTable('webhook_dispatch')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last_event_id', 'integer')
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.insertInto('webhook_dispatch' as never).values({ id: 1, last_event_id: null, updated_at: new Date(0).toISOString() }).execute();
}
