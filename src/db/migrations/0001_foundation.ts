import type { Kysely } from 'kysely';
import { idColumn } from '../columns.js';
import type { Dialect } from '../database.js';

// Instants are stored as ISO 8601 UTC text made in code ("2026-11-21T09:00:00.000Z"): it sorts
// correctly on both engines and reads back identically. Booleans are integers 0/1.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('per_minute', 'integer', (c) => c.notNull())
    .addColumn('per_hour', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('key_id', 'integer')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
  await db.schema.createIndex('audit_log_key_at').on('audit_log').columns(['key_id', 'at']).execute();
}
