import type { Kysely } from 'kysely';

/**
 * A counter per agent, raised in the same transaction as every change of the agent's bookings:
 * an API instance keeps an agent's busy times in memory while the counter it reads is unchanged,
 * so every instance on the database sees each change on its next read. An agent without a row
 * has version 0; agent ids are never reused, so a counter never starts again for the same id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agent_busy_versions')
    .addColumn('agent_id', 'integer', (c) => c.primaryKey().references('agents.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
}
