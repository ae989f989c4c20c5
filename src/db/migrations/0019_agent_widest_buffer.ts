import type { Kysely } from 'kysely';

interface Tables {
  bookings: { agent_id: number; buffer_before: number; buffer_after: number };
  agent_busy_versions: { agent_id: number; version: number; longest_booking_ms: number; widest_buffer_ms: number };
}

/**
 * Beside each agent's longest booking, the widest buffer any of the agent's bookings keeps (an
 * upper bound: raised by every write of a booking, never lowered). A check under the agent's lock
 * reads the bookings within this (or its own buffers, if wider) of the asked time, not within the
 * widest buffer allowed (four hours): on a full day, a few index entries instead of sixteen.
 * Filled here from the bookings already written.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agent_busy_versions').addColumn('widest_buffer_ms', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await recordWidestBuffers(db);
}

/** Sets each agent's widest buffer from the bookings written so far. */
export async function recordWidestBuffers(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Tables>;
  const agents = await db
    .selectFrom('bookings')
    .select((eb) => ['agent_id', eb.fn.max('buffer_before').as('before'), eb.fn.max('buffer_after').as('after')])
    .groupBy('agent_id')
    .execute();
  for (const { agent_id, before, after } of agents) {
    const widest = Math.max(Number(before), Number(after)) * 60_000;
    if (widest === 0) continue;
    await db
      .insertInto('agent_busy_versions')
      // A new row must not narrow what its absence meant: the longest booking possible (lookbackOf).
      .values({ agent_id, version: 0, longest_booking_ms: 26 * 3_600_000, widest_buffer_ms: widest })
      .onConflict((oc) => oc.column('agent_id').doUpdateSet({ widest_buffer_ms: widest }))
      .execute();
  }
}
