import { CompiledQuery, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { recordLongestBookings } from '../../src/db/migrations/0014_agent_longest_booking.js';
import { recordWidestBuffers } from '../../src/db/migrations/0019_agent_widest_buffer.js';
import { BUFFER_REACH_MS, boundsOf, busyBookings, busyBookingsOfAgent, busyBookingsOfRanges, busyBookingsQuery } from '../../src/modules/availability/repository.js';
import { probeReferences } from '../../src/modules/bookings/references.js';
import { deleteBookingRows, updateBookingRow } from '../../src/modules/bookings/repository.js';
import { insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';

const H = 3_600_000;

/** An agent, service, location and customer to book. */
async function refs(db: Db) {
  const agentId = await insertAgent(db);
  return { agentId, serviceId: await insertService(db), locationId: await insertLocation(db), customerId: await insertCustomer(db) };
}

/** A booking's start and end: `hours` from `startIso`. */
const span = (startIso: string, hours: number) => ({ start_at: startIso, end_at: new Date(Date.parse(startIso) + hours * H).toISOString() });

describe.each(DIALECTS)('bookings near a range (%s)', (dialect) => {
  const t = useTestApp(dialect);


  it('reads exactly the live bookings within buffer reach (240 minutes) of the range, long ones that began the day before included', async () => {
    const r = await refs(t.db);
    const other = await insertAgent(t.db);
    await insertBooking(t.db, r, span('2030-01-06T18:00:00.000Z', 2));
    const before = await insertBooking(t.db, r, span('2030-01-06T20:00:00.000Z', 2));
    const long = await insertBooking(t.db, r, span('2030-01-06T14:00:00.000Z', 20));
    const inside = await insertBooking(t.db, r, span('2030-01-07T12:00:00.000Z', 1));
    const excluded = await insertBooking(t.db, r, span('2030-01-07T13:00:00.000Z', 1));
    await insertBooking(t.db, r, { ...span('2030-01-07T14:00:00.000Z', 1), status: 'cancelled' });
    const after = await insertBooking(t.db, r, { ...span('2030-01-08T03:00:00.000Z', 1), buffer_before: 60, attendees: 2 });
    await insertBooking(t.db, r, span('2030-01-08T04:00:00.000Z', 1));
    await insertBooking(t.db, { ...r, agentId: other }, span('2030-01-07T12:00:00.000Z', 1));
    const range = { start: Date.parse('2030-01-07T00:00:00.000Z'), end: Date.parse('2030-01-08T00:00:00.000Z') };
    const found = await busyBookings(t.db, [r.agentId], range, { excludeId: excluded });
    expect(found.map((b) => b.id)).toEqual([long, before, inside, after]);
    expect(found[0]).toMatchObject({ agentId: r.agentId, serviceId: r.serviceId, start: Date.parse('2030-01-06T14:00:00.000Z') });
    expect(found[3]).toMatchObject({ bufferBefore: 60 * 60_000, bufferAfter: 0, seats: 2 });
  });

  it('reads them from the (agent_id, start_at, …) covering index alone, with both ends of start_at bounded', async () => {
    const r = await refs(t.db);
    const range = { start: Date.parse('2030-01-07T00:00:00.000Z'), end: Date.parse('2030-01-08T00:00:00.000Z') };
    const compiled = busyBookingsQuery(t.db, [r.agentId], range).compile();
    if (dialect === 'sqlite') {
      const plan = await t.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
      expect(plan.rows.map((row) => row.detail).join('\n')).toMatch(/USING COVERING INDEX bookings_agent_busy_seats \(agent_id=\? AND start_at>\? AND start_at<\?\)/);
    } else {
      const plan = await t.db.transaction().execute(async (trx) => {
        // A near-empty table would be scanned whatever the indexes; ask which index the query can use.
        await sql`set local enable_seqscan = off`.execute(trx);
        return trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
      });
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index (Only )?Scan using bookings_agent_busy_seats/);
      expect(text).toMatch(/Index Cond: \(\(agent_id = \d+\) AND \(start_at < '2030-01-08T04:00:00.000Z'::text\) AND \(start_at > '2030-01-05T18:00:00.000Z'::text\)/);
    }
  });
});

describe.each(DIALECTS)('how far back a check under an agent’s lock reads (%s)', (dialect) => {
  const t = useTestApp(dialect);

  const longestOf = async (agentId: number) =>
    (await t.db.selectFrom('agent_busy_versions').select('longest_booking_ms').where('agent_id', '=', agentId).executeTakeFirst())?.longest_booking_ms;
  const halfHourAt = (iso: string) => ({ start: Date.parse(iso), end: Date.parse(iso) + H / 2 });
  // As a create reads it: with the agent's other facts, in its transaction.
  const boundsRead = async (agentId: number, ownBufferMs = 0) => {
    const [found] = await probeReferences(t.db, [{ serviceId: null, agentId, locationId: null, customerId: null, emailLower: null }]);
    return boundsOf(found?.agent, ownBufferMs);
  };

  it('as far as the agent’s longest booking: one that began hours before the range is found', async () => {
    const r = await refs(t.db);
    await insertBooking(t.db, r, span('2030-01-06T20:00:00.000Z', 1));
    const long = await insertBooking(t.db, r, span('2030-01-07T06:00:00.000Z', 10));
    expect(await longestOf(r.agentId)).toBe(10 * H);
    const range = halfHourAt('2030-01-07T15:00:00.000Z');
    expect(await boundsRead(r.agentId)).toEqual({ lookbackMs: 10 * H, reachMs: 0 });
    expect((await busyBookingsOfAgent(t.db, r.agentId, range, await boundsRead(r.agentId))).map((b) => b.id)).toEqual([long]);
    expect((await busyBookings(t.db, [r.agentId], range)).map((b) => b.id)).toEqual([long]);
    expect((await busyBookingsOfRanges(t.db, [{ agentId: r.agentId, range }], await boundsRead(r.agentId))).map((b) => b.id)).toEqual([long]);
  });

  it('raised by every write that lengthens a booking, never lowered', async () => {
    const r = await refs(t.db);
    const id = await insertBooking(t.db, r, span('2030-01-07T10:00:00.000Z', 1));
    expect(await longestOf(r.agentId)).toBe(H);
    await updateBookingRow(t.db, id, span('2030-01-07T09:00:00.000Z', 3));
    expect(await longestOf(r.agentId)).toBe(3 * H);
    await updateBookingRow(t.db, id, span('2030-01-07T09:00:00.000Z', 0.5));
    await deleteBookingRows(t.db, id);
    expect(await longestOf(r.agentId)).toBe(3 * H);
    // A booking given to another agent raises that agent's bound too.
    const other = await insertAgent(t.db);
    const moved = await insertBooking(t.db, r, span('2030-01-08T08:00:00.000Z', 5));
    await updateBookingRow(t.db, moved, { agent_id: other });
    expect(await longestOf(other)).toBe(5 * H);
  });

  it('a whole day for an agent with no busy-time row', async () => {
    const r = await refs(t.db);
    const long = await insertBooking(t.db, r, span('2030-01-07T02:00:00.000Z', 20));
    await t.db.deleteFrom('agent_busy_versions').where('agent_id', '=', r.agentId).execute();
    const range = halfHourAt('2030-01-07T21:00:00.000Z');
    expect((await busyBookingsOfAgent(t.db, r.agentId, range, await boundsRead(r.agentId))).map((b) => b.id)).toEqual([long]);
    expect((await busyBookings(t.db, [r.agentId], range)).map((b) => b.id)).toEqual([long]);
  });

  const widestOf = async (agentId: number) =>
    (await t.db.selectFrom('agent_busy_versions').select('widest_buffer_ms').where('agent_id', '=', agentId).executeTakeFirst())?.widest_buffer_ms;

  it('out to the widest buffer of the agent’s bookings or of the span checked, whichever is wider', async () => {
    const r = await refs(t.db);
    // Ends 09:00 and keeps 90 minutes after it; the other keeps none and ends 10:00.
    const buffered = await insertBooking(t.db, r, { ...span('2030-01-07T08:00:00.000Z', 1), buffer_after: 90 });
    const plain = await insertBooking(t.db, r, span('2030-01-07T09:00:00.000Z', 1));
    expect(await widestOf(r.agentId)).toBe(90 * 60_000);
    const range = halfHourAt('2030-01-07T10:15:00.000Z');
    expect(await boundsRead(r.agentId)).toEqual({ lookbackMs: H, reachMs: 90 * 60_000 });
    // 10:15 lies inside the first booking's buffer (to 10:30): both are read, from its own reach.
    const read = await busyBookingsOfAgent(t.db, r.agentId, range, await boundsRead(r.agentId));
    expect(read.map((b) => b.id)).toEqual([buffered, plain]);
    // Without buffers anywhere, only what touches the span is read; a span's own buffer widens it.
    const other = await insertAgent(t.db);
    const near = await insertBooking(t.db, { ...r, agentId: other }, span('2030-01-07T09:00:00.000Z', 1));
    expect(await busyBookingsOfAgent(t.db, other, range, await boundsRead(other))).toEqual([]);
    expect((await busyBookingsOfAgent(t.db, other, range, await boundsRead(other, 30 * 60_000))).map((b) => b.id)).toEqual([near]);
    expect((await busyBookingsOfRanges(t.db, [{ agentId: other, range }], await boundsRead(other, 30 * 60_000))).map((b) => b.id)).toEqual([near]);
    // Unknown own buffers (a slot search) read as far as any buffer may reach.
    expect((await busyBookings(t.db, [other], range)).map((b) => b.id)).toEqual([near]);
  });

  it('the widest buffer is raised by every write that widens one, never lowered, and is the widest allowed without a row', async () => {
    const r = await refs(t.db);
    const id = await insertBooking(t.db, r, { ...span('2030-01-07T10:00:00.000Z', 1), buffer_before: 15 });
    expect(await widestOf(r.agentId)).toBe(15 * 60_000);
    await updateBookingRow(t.db, id, { buffer_after: 45 });
    expect(await widestOf(r.agentId)).toBe(45 * 60_000);
    await updateBookingRow(t.db, id, { buffer_before: 0, buffer_after: 0 });
    await deleteBookingRows(t.db, id);
    expect(await widestOf(r.agentId)).toBe(45 * 60_000);
    await t.db.deleteFrom('agent_busy_versions').where('agent_id', '=', r.agentId).execute();
    expect((await boundsRead(r.agentId)).reachMs).toBe(BUFFER_REACH_MS);
  });

  it('migration 0019 records each agent’s widest buffer from the bookings already written', async () => {
    const r = await refs(t.db);
    const other = await insertAgent(t.db);
    await insertBooking(t.db, r, { ...span('2030-01-07T02:00:00.000Z', 1), buffer_before: 20 });
    await insertBooking(t.db, r, { ...span('2030-01-08T02:00:00.000Z', 1), buffer_after: 50 });
    await insertBooking(t.db, { ...r, agentId: other }, span('2030-01-07T02:00:00.000Z', 4));
    await t.db.updateTable('agent_busy_versions').set({ widest_buffer_ms: 0 }).where('agent_id', 'in', [r.agentId, other]).execute();
    await recordWidestBuffers(t.db as unknown as Kysely<unknown>);
    expect([await widestOf(r.agentId), await widestOf(other)]).toEqual([50 * 60_000, 0]);
  });

  it('migration 0014 records each agent’s longest booking from the bookings already written', async () => {
    const r = await refs(t.db);
    const other = await insertAgent(t.db);
    await insertBooking(t.db, r, span('2030-01-07T02:00:00.000Z', 2));
    await insertBooking(t.db, r, span('2030-01-08T02:00:00.000Z', 7));
    await insertBooking(t.db, { ...r, agentId: other }, span('2030-01-07T02:00:00.000Z', 4));
    await t.db.deleteFrom('agent_busy_versions').where('agent_id', 'in', [r.agentId, other]).execute();
    await recordLongestBookings(t.db as unknown as Kysely<unknown>);
    expect([await longestOf(r.agentId), await longestOf(other)]).toEqual([7 * H, 4 * H]);
  });
});
