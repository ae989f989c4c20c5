import type { Kysely } from 'kysely';

// GET /bookings of one agent by status, in start order (the agenda of pending or confirmed
// bookings): the page's ids (id last, the tie-breaker) and the total come from this index
// alone, in order, however deep the page.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('bookings_agent_status_start')
    .on('bookings')
    .columns(['agent_id', 'status', 'start_date', 'start_time', 'id'])
    .execute();
}
