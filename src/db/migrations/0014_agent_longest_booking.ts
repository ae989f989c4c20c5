import type { Kysely } from 'kysely';

interface Tables {
  bookings: { agent_id: number; start_at: string; end_at: string };
  agent_busy_versions: { agent_id: number; version: number; longest_booking_ms: number };
}

/**
 * Beside each agent's busy-time version, the longest time any of the agent's bookings spans (an
 * upper bound: raised by every write of a booking, never lowered). A check for bookings that
 * overlap a range reads those starting from the range's start minus this, not minus the longest
 * possible booking (a day): a few index entries instead of a day's worth.
 * Filled here from the bookings already written, computed in code so that both engines agree.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agent_busy_versions').addColumn('longest_booking_ms', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await recordLongestBookings(db);
}

/** Sets each agent's longest booking from the bookings written so far. */
export async function recordLongestBookings(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Tables>;
  const agents = await db.selectFrom('bookings').select('agent_id').distinct().execute();
  for (const { agent_id } of agents) {
    const spans = await db.selectFrom('bookings').select(['start_at', 'end_at']).where('agent_id', '=', agent_id).execute();
    const longest = spans.reduce((max, b) => Math.max(max, Date.parse(b.end_at) - Date.parse(b.start_at)), 0);
    await db
      .insertInto('agent_busy_versions')
      .values({ agent_id, version: 0, longest_booking_ms: longest })
      .onConflict((oc) => oc.column('agent_id').doUpdateSet({ longest_booking_ms: longest }))
      .execute();
  }
}
