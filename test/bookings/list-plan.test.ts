import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { countBookings, pageIdsQuery } from '../../src/modules/bookings/repository.js';
import { insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';

describe.each(DIALECTS)('GET /bookings of one agent by status, in start order (%s)', (dialect) => {
  const t = useTestApp(dialect);

  async function plan(compiled: CompiledQuery): Promise<string> {
    if (dialect === 'sqlite') {
      const rows = await t.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
      return rows.rows.map((row) => row.detail).join('\n');
    }
    return t.db.transaction().execute(async (trx) => {
      // A near-empty table would be scanned and sorted whatever the indexes; ask which index serves the query.
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_sort = off`.execute(trx);
      const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
      return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it('takes the page ids in order from the (agent_id, status, start_date, start_time, id) index, without a sort', async () => {
    const agentId = await insertAgent(t.db);
    const r = { agentId, serviceId: await insertService(t.db), locationId: await insertLocation(t.db), customerId: await insertCustomer(t.db) };
    const day = (d: number, status: 'pending' | 'approved') => ({
      start_date: `2030-01-${String(d).padStart(2, '0')}`,
      start_time: '10:00',
      start_at: `2030-01-${String(d).padStart(2, '0')}T09:00:00.000Z`,
      end_at: `2030-01-${String(d).padStart(2, '0')}T10:00:00.000Z`,
      status,
    });
    const third = await insertBooking(t.db, r, day(3, 'pending'));
    const first = await insertBooking(t.db, r, day(1, 'pending'));
    await insertBooking(t.db, r, day(2, 'approved'));
    const second = await insertBooking(t.db, r, day(2, 'pending'));
    const filters = { agentId, statuses: ['pending'] };

    const page = pageIdsQuery(t.db, filters, 'start_date', 'asc', 2, 1);
    expect((await page.execute()).map((row) => row.id)).toEqual([second, third]);
    expect(await countBookings(t.db, filters)).toBe(3);
    expect(first).toBeLessThan(second);

    const text = await plan(page.compile());
    if (dialect === 'sqlite') {
      expect(text).toMatch(/USING COVERING INDEX bookings_agent_status_start \(agent_id=\? AND status=\?\)/);
      expect(text).not.toMatch(/TEMP B-TREE/);
    } else {
      expect(text).toMatch(/Index (Only )?Scan using bookings_agent_status_start/);
      expect(text).not.toMatch(/Sort/);
    }
  });
});
