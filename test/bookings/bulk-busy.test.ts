import { describe, expect, it } from 'vitest';
import { insertBooking } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { addAgent, MONDAY, newSite, requester, TUESDAY } from './setup.js';

interface Outcome {
  index: number;
  code?: string;
  agent?: number;
  conflict?: number | null;
}

/**
 * A bulk request reads the bookings its elements check against once, for all of them: each
 * element must still see exactly the stored bookings (and earlier elements) its own check would.
 */
describe.each(DIALECTS)('POST /bookings/bulk checks every element against the bookings of its agents and day (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);

  it('across agents, days, durations and agent any', async () => {
    const site = await newSite(t.db);
    const second = await addAgent(t.db, site);
    const refs = { serviceId: site.serviceId, locationId: site.locationId, customerId: site.customerId };
    // Berlin is UTC+1 in January: Monday 10:00–11:00 for the first agent, Tuesday 10:00–11:00 for the second.
    const monday = await insertBooking(t.db, { ...refs, agentId: site.agentId }, { start_at: '2030-01-07T09:00:00.000Z', end_at: '2030-01-07T10:00:00.000Z' });
    const tuesday = await insertBooking(t.db, { ...refs, agentId: second }, { start_at: '2030-01-08T09:00:00.000Z', end_at: '2030-01-08T10:00:00.000Z' });
    // Cancelled bookings take no time.
    await insertBooking(t.db, { ...refs, agentId: second }, { status: 'cancelled', start_at: '2030-01-07T12:00:00.000Z', end_at: '2030-01-07T13:00:00.000Z' });

    const element = (agent: number | string, date: string, time: string, extra: object = {}) => ({
      service_id: site.serviceId,
      agent_id: agent,
      start_date: date,
      start_time: time,
      customer_id: site.customerId,
      ...extra,
    });
    const res = await call('POST', '/bookings/bulk', {
      bookings: [
        element(site.agentId, MONDAY, '10:30'),
        element(second, MONDAY, '10:30'),
        element('any', TUESDAY, '10:00'),
        element(second, TUESDAY, '09:30', { duration: 45 }),
        element(second, TUESDAY, '09:00', { duration: 60 }),
        element('any', MONDAY, '10:45', { duration: 15 }),
        element(second, MONDAY, '13:00'),
        element('any', MONDAY, '15:00'),
      ],
    });
    expect(res.statusCode).toBe(207);
    const body: Json = res.json();
    const outcomes: Outcome[] = [
      ...body.results.success.map((s: Json) => ({ index: s.index, agent: s.data.agent.id })),
      ...body.results.errors.map((e: Json) => ({ index: e.index, code: e.code })),
    ].sort((a: Outcome, b: Outcome) => a.index - b.index);
    expect(outcomes).toEqual([
      { index: 0, code: 'time_slot_unavailable' },
      { index: 1, agent: second },
      // The second agent is busy then: the first one, free that day.
      { index: 2, agent: site.agentId },
      { index: 3, code: 'time_slot_unavailable' },
      { index: 4, agent: second },
      // The first agent's stored booking and the second's element 1 both cover 10:45.
      { index: 5, code: 'time_slot_unavailable' },
      { index: 6, agent: second },
      // Both work then; the first has one booking on Monday, the second two (elements 1 and 6).
      { index: 7, agent: site.agentId },
    ]);
    const errors = body.results.errors;
    expect(errors[0].error).toContain(`booking ${monday}`);
    expect(errors[1].error).toContain(`booking ${tuesday}`);
    expect(errors[2].error).toContain(`booking ${monday}`);
  });
});
