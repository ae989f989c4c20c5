import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { busyBookings, busyBookingsQuery } from '../../src/modules/availability/repository.js';
import { insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';

const H = 3_600_000;

describe.each(DIALECTS)('bookings near a range (%s)', (dialect) => {
  const t = useTestApp(dialect);

  async function refs() {
    const agentId = await insertAgent(t.db);
    return { agentId, serviceId: await insertService(t.db), locationId: await insertLocation(t.db), customerId: await insertCustomer(t.db) };
  }
  const span = (startIso: string, hours: number) => ({ start_at: startIso, end_at: new Date(Date.parse(startIso) + hours * H).toISOString() });

  it('reads exactly the live bookings overlapping the range, long ones that began the day before included', async () => {
    const r = await refs();
    const other = await insertAgent(t.db);
    const before = await insertBooking(t.db, r, span('2030-01-06T20:00:00.000Z', 2));
    const long = await insertBooking(t.db, r, span('2030-01-06T14:00:00.000Z', 20));
    const inside = await insertBooking(t.db, r, span('2030-01-07T12:00:00.000Z', 1));
    const excluded = await insertBooking(t.db, r, span('2030-01-07T13:00:00.000Z', 1));
    await insertBooking(t.db, r, { ...span('2030-01-07T14:00:00.000Z', 1), status: 'cancelled' });
    await insertBooking(t.db, r, span('2030-01-08T00:00:00.000Z', 1));
    await insertBooking(t.db, { ...r, agentId: other }, span('2030-01-07T12:00:00.000Z', 1));
    const range = { start: Date.parse('2030-01-07T00:00:00.000Z'), end: Date.parse('2030-01-08T00:00:00.000Z') };
    const found = await busyBookings(t.db, [r.agentId], range, excluded);
    expect(found.map((b) => b.id)).toEqual([long, inside]);
    expect(found[0]).toMatchObject({ agentId: r.agentId, serviceId: r.serviceId, start: Date.parse('2030-01-06T14:00:00.000Z') });
    expect(before).toBeGreaterThan(0);
  });

  it('reads them from the (agent_id, start_at, …) covering index alone, with both ends of start_at bounded', async () => {
    const r = await refs();
    const range = { start: Date.parse('2030-01-07T00:00:00.000Z'), end: Date.parse('2030-01-08T00:00:00.000Z') };
    const compiled = busyBookingsQuery(t.db, [r.agentId], range).compile();
    if (dialect === 'sqlite') {
      const plan = await t.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
      expect(plan.rows.map((row) => row.detail).join('\n')).toMatch(/USING COVERING INDEX bookings_agent_busy \(agent_id=\? AND start_at>\? AND start_at<\?\)/);
    } else {
      const plan = await t.db.transaction().execute(async (trx) => {
        // A near-empty table would be scanned whatever the indexes; ask which index the query can use.
        await sql`set local enable_seqscan = off`.execute(trx);
        return trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
      });
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index (Only )?Scan using bookings_agent_busy/);
      expect(text).toMatch(/Index Cond: \(\(agent_id = \d+\) AND \(start_at < '2030-01-08T00:00:00.000Z'::text\) AND \(start_at > '2030-01-05T22:00:00.000Z'::text\)/);
    }
  });
});
