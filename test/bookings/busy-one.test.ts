import { describe, expect, it } from 'vitest';
import { BUFFER_REACH_MS, busyBookings, busyBookingsOfAgent, busyBoundsOf } from '../../src/modules/availability/repository.js';
import { insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';

const H = 3_600_000;

describe.each(DIALECTS)('busy bookings of one agent (%s)', (dialect) => {
  const t = useTestApp(dialect);

  it('are what busyBookings reads for that agent, range after range', async () => {
    const agentId = await insertAgent(t.db);
    const r = { agentId, serviceId: await insertService(t.db), locationId: await insertLocation(t.db), customerId: await insertCustomer(t.db) };
    const span = (startIso: string, hours: number) => ({ start_at: startIso, end_at: new Date(Date.parse(startIso) + hours * H).toISOString() });
    await insertBooking(t.db, r, span('2030-01-06T20:00:00.000Z', 2));
    await insertBooking(t.db, r, span('2030-01-06T14:00:00.000Z', 20));
    await insertBooking(t.db, r, span('2030-01-07T12:00:00.000Z', 1));
    await insertBooking(t.db, r, span('2030-01-07T12:00:00.000Z', 2));
    await insertBooking(t.db, r, { ...span('2030-01-07T14:00:00.000Z', 1), status: 'cancelled' });
    await insertBooking(t.db, r, span('2030-01-08T00:00:00.000Z', 1));
    await insertBooking(t.db, { ...r, agentId: await insertAgent(t.db) }, span('2030-01-07T12:00:00.000Z', 1));
    const day = (iso: string) => ({ start: Date.parse(iso), end: Date.parse(iso) + 24 * H });
    const ranges = [day('2030-01-06T00:00:00.000Z'), day('2030-01-07T00:00:00.000Z'), day('2030-01-08T00:00:00.000Z'), { start: Date.parse('2030-01-07T12:30:00.000Z'), end: Date.parse('2030-01-07T13:00:00.000Z') }];
    const counts: number[] = [];
    for (const range of ranges) {
      const expected = await busyBookings(t.db, [agentId], range);
      expect(await busyBookingsOfAgent(t.db, agentId, range, await busyBoundsOf(t.db, [agentId], BUFFER_REACH_MS))).toEqual(expected);
      counts.push(expected.length);
    }
    // Each range reads the bookings within buffer reach (240 minutes) of it.
    expect(counts).toEqual([2, 5, 1, 3]);
  });
});
