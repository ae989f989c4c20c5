import { sql, type Kysely } from 'kysely';
import { idColumn } from '../columns.js';
import type { Dialect } from '../database.js';

/**
 * The events: one row per change, written in the change's transaction. On PostgreSQL each row
 * also records its transaction's id (`tx_id`, xid8), by which the change feed orders events and
 * holds back those of transactions that may still commit (see modules/events/repository.ts).
 * SQLite has one writer at a time, so there the id order is the commit order.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  let table = db.schema
    .createTable('events')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('type', 'varchar(64)', (c) => c.notNull())
    .addColumn('resource_id', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('previous_attributes', 'text')
    .addColumn('source_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('source_id', 'integer')
    .addColumn('source_role', 'varchar(16)')
    .addColumn('request_id', 'varchar(128)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull());
  if (dialect === 'postgres') table = table.addColumn('tx_id', sql`xid8`, (c) => c.notNull().defaultTo(sql`pg_current_xact_id()`));
  await table.execute();
  if (dialect === 'postgres') await db.schema.createIndex('events_feed_order').on('events').columns(['tx_id', 'id']).execute();
}
