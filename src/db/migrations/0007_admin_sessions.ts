import type { Kysely } from 'kysely';

// Admin page sessions. The cookie carries a random token; only its SHA-256 is stored, so a copy of
// the database does not sign anyone in. Changing the admin password deletes every row.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('admin_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('admin_sessions_expires_at').on('admin_sessions').column('expires_at').execute();
  // The outbox page lists newest first.
  await db.schema.createIndex('outbox_created_at').on('outbox').column('created_at').execute();
}
