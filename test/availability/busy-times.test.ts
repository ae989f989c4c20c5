import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/core/app.js';
import { BusyTimes } from '../../src/modules/availability/busy-times.js';
import { busyBookings, bumpBusyVersions, connectedAgents } from '../../src/modules/availability/repository.js';
import { deleteBookingRows, updateBookingRow } from '../../src/modules/bookings/repository.js';
import { insertAgent, insertBooking } from '../fixtures.js';
import { buildTestApp, DIALECTS, useTestApp, type Json } from '../helper.js';
import { addAgent, API, MONDAY, newSite, requester, TUESDAY, type Site } from '../bookings/setup.js';

const H = 3_600_000;
const at = (iso: string): number => Date.parse(iso);

describe.each(DIALECTS)('busy-time versions and the busy-time cache (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = requester(t);

  const versionOf = async (site: Site, agentId: number): Promise<number> =>
    (await connectedAgents(t.db, site.serviceId, [agentId]))[0]?.busy_version ?? -1;
  const booked = (site: Site, agentId: number, startIso: string, hours: number, values: Parameters<typeof insertBooking>[2] = {}) =>
    insertBooking(t.db, { ...site, agentId }, { start_at: startIso, end_at: new Date(at(startIso) + hours * H).toISOString(), ...values });

  describe('versions', () => {
    it('start at 0 and rise with every write of an agent’s bookings, for the agent it leaves and the one it goes to', async () => {
      const site = await newSite(t.db);
      const other = await addAgent(t.db, site);
      expect(await versionOf(site, site.agentId)).toBe(0);
      const id = await booked(site, site.agentId, '2030-01-07T09:00:00.000Z', 1);
      expect(await versionOf(site, site.agentId)).toBe(1);
      await updateBookingRow(t.db, id, { agent_id: other });
      expect([await versionOf(site, site.agentId), await versionOf(site, other)]).toEqual([2, 1]);
      await updateBookingRow(t.db, id, { status: 'cancelled' });
      expect([await versionOf(site, site.agentId), await versionOf(site, other)]).toEqual([2, 2]);
      await deleteBookingRows(t.db, id);
      expect([await versionOf(site, site.agentId), await versionOf(site, other)]).toEqual([2, 3]);
      const span = { start_at: '2030-01-07T09:00:00.000Z', end_at: '2030-01-07T10:00:00.000Z', buffer_before: 0, buffer_after: 0 };
      await bumpBusyVersions(t.db, [{ agent_id: other, ...span }, { agent_id: other, ...span }, { agent_id: site.agentId, ...span }]);
      expect([await versionOf(site, site.agentId), await versionOf(site, other)]).toEqual([3, 4]);
    });
  });

  describe('BusyTimes', () => {
    const range = { start: at('2030-01-07T00:00:00.000Z'), end: at('2030-01-09T00:00:00.000Z') };
    const idsOf = (found: Map<number, { id: number }[]>, agentId: number) => (found.get(agentId) ?? []).map((b) => b.id);

    it('reuses the bookings read under a version until the version changes', async () => {
      const site = await newSite(t.db);
      const id = await booked(site, site.agentId, '2030-01-07T09:00:00.000Z', 1);
      const busy = new BusyTimes();
      const version = await versionOf(site, site.agentId);
      expect(idsOf(await busy.bookingsOf(t.db, [{ agentId: site.agentId, busyVersion: version }], range), site.agentId)).toEqual([id]);
      // Changed behind the versions' back: the kept bookings still answer for the same version…
      await t.db.updateTable('bookings').set({ status: 'cancelled' }).where('id', '=', id).execute();
      expect(idsOf(await busy.bookingsOf(t.db, [{ agentId: site.agentId, busyVersion: version }], range), site.agentId)).toEqual([id]);
      // …and a read under a newer version finds the change.
      expect(idsOf(await busy.bookingsOf(t.db, [{ agentId: site.agentId, busyVersion: version + 1 }], range), site.agentId)).toEqual([]);
      // A read under an older version (a request that read it before the change) replaces nothing.
      await t.db.updateTable('bookings').set({ status: 'approved' }).where('id', '=', id).execute();
      expect(idsOf(await busy.bookingsOf(t.db, [{ agentId: site.agentId, busyVersion: version }], range), site.agentId)).toEqual([id]);
      expect(idsOf(await busy.bookingsOf(t.db, [{ agentId: site.agentId, busyVersion: version + 1 }], range), site.agentId)).toEqual([]);
    });

    it('answers exactly what the database holds for any range, from a cold or a warm cache', async () => {
      const site = await newSite(t.db);
      const other = await addAgent(t.db, site);
      // Over six weeks: short bookings, one running across midnight, a cancelled one, and the other agent's.
      const starts = ['2029-12-24T10:00:00.000Z', '2029-12-31T23:00:00.000Z', '2030-01-06T20:00:00.000Z', '2030-01-07T09:00:00.000Z', '2030-01-14T12:00:00.000Z', '2030-01-30T08:00:00.000Z'];
      for (const [i, start] of starts.entries()) await booked(site, site.agentId, start, 5, { buffer_after: i * 30, attendees: 1 + (i % 2) });
      await booked(site, site.agentId, '2030-01-08T09:00:00.000Z', 1, { status: 'cancelled' });
      await booked(site, other, '2030-01-07T09:00:00.000Z', 1);
      const agents = [
        { agentId: site.agentId, busyVersion: await versionOf(site, site.agentId) },
        { agentId: other, busyVersion: await versionOf(site, other) },
      ];
      const warm = new BusyTimes();
      const ranges = [
        range,
        { start: at('2029-12-20T00:00:00.000Z'), end: at('2030-02-10T00:00:00.000Z') },
        { start: at('2030-01-01T03:00:00.000Z'), end: at('2030-01-01T04:00:00.000Z') },
        { start: at('2030-01-07T01:00:00.000Z'), end: at('2030-01-07T09:00:00.000Z') },
        { start: at('2030-01-07T09:00:00.000Z'), end: at('2030-01-31T00:00:00.000Z') },
      ];
      for (const asked of ranges) {
        const expected = await busyBookings(t.db, [site.agentId, other], asked);
        for (const busy of [warm, new BusyTimes()]) {
          const found = await busy.bookingsOf(t.db, agents, asked);
          for (const agentId of [site.agentId, other]) {
            expect(found.get(agentId)).toEqual(
              expected.filter((b) => b.agentId === agentId).map(({ agentId: _agent, ...booking }) => booking),
            );
          }
        }
      }
    });

    it('keeps no more than its limit, dropping the agents asked for longest ago', async () => {
      const site = await newSite(t.db);
      const agents = [site.agentId, await addAgent(t.db, site), await addAgent(t.db, site)];
      const first: number[] = [];
      for (const agentId of agents) {
        for (let day = 7; day <= 9; day++) {
          const id = await booked(site, agentId, `2030-01-0${day}T09:00:00.000Z`, 1);
          if (day === 7) first.push(id);
        }
      }
      const versioned = await Promise.all(agents.map(async (agentId) => ({ agentId, busyVersion: await versionOf(site, agentId) })));
      // Each agent keeps 3 bookings (2 of them in the range) and the one block they lie in: 4 of the 10 allowed.
      const busy = new BusyTimes(10);
      for (const agent of versioned) {
        await busy.bookingsOf(t.db, [agent], range);
        expect(busy.keptSize).toBeLessThanOrEqual(10);
      }
      expect(busy.keptSize).toBe(8);
      // Changed behind the versions' back: only the agent dropped is read again.
      await t.db.updateTable('bookings').set({ status: 'cancelled' }).where('id', 'in', first).execute();
      const [oldest, , newest] = versioned as [(typeof versioned)[number], unknown, (typeof versioned)[number]];
      expect(idsOf(await busy.bookingsOf(t.db, [newest], range), newest.agentId)).toHaveLength(2);
      expect(idsOf(await busy.bookingsOf(t.db, [oldest], range), oldest.agentId)).toHaveLength(1);
    });
  });

  describe('GET /availability right after a write', () => {
    const startsOf = async (site: Site, date: string, agentId?: number, app: App = t.app): Promise<string[]> => {
      const key = await t.key();
      const res = await app.inject({
        url: `${API}/availability?service_id=${site.serviceId}&date=${date}${agentId ? `&agent_id=${agentId}` : ''}`,
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode).toBe(200);
      const body: Json = res.json();
      return (body.data.days[0].slots as { start_time: string }[]).map((s) => s.start_time);
    };
    const create = async (site: Site, values: Record<string, unknown> = {}): Promise<number> => {
      const res = await call('POST', '/bookings', {
        service_id: site.serviceId,
        agent_id: site.agentId,
        start_date: MONDAY,
        start_time: '10:00',
        customer_id: site.customerId,
        send_confirmation: false,
        ...values,
      });
      expect(res.statusCode).toBe(201);
      const body: Json = res.json();
      return body.data.id as number;
    };
    const put = async (id: number, payload: object) => expect((await call('PUT', `/bookings/${id}`, payload)).statusCode).toBe(200);

    it('shows a booking made, moved, cancelled, brought back, given to another agent and deleted through the API', async () => {
      const site = await newSite(t.db);
      const other = await addAgent(t.db, site);
      expect(await startsOf(site, MONDAY, site.agentId)).toContain('10:00');

      const id = await create(site);
      expect(await startsOf(site, MONDAY, site.agentId)).not.toContain('10:00');

      await put(id, { start_time: '13:00' });
      const moved = await startsOf(site, MONDAY, site.agentId);
      expect(moved).toContain('10:00');
      expect(moved).not.toContain('13:00');

      await put(id, { status: 'cancelled' });
      expect(await startsOf(site, MONDAY, site.agentId)).toContain('13:00');
      await put(id, { status: 'approved' });
      expect(await startsOf(site, MONDAY, site.agentId)).not.toContain('13:00');

      expect(await startsOf(site, MONDAY, other)).toContain('13:00');
      await put(id, { agent_id: other });
      expect(await startsOf(site, MONDAY, site.agentId)).toContain('13:00');
      expect(await startsOf(site, MONDAY, other)).not.toContain('13:00');

      expect((await call('DELETE', `/bookings/${id}`)).statusCode).toBe(200);
      expect(await startsOf(site, MONDAY, other)).toContain('13:00');
    });

    it('shows the bookings of a bulk request', async () => {
      const site = await newSite(t.db);
      expect(await startsOf(site, TUESDAY)).toEqual(expect.arrayContaining(['09:00', '15:00']));
      const element = (start_time: string) => ({ service_id: site.serviceId, agent_id: site.agentId, start_date: TUESDAY, start_time, customer_id: site.customerId });
      expect((await call('POST', '/bookings/bulk', { bookings: [element('09:00'), element('15:00')] })).statusCode).toBe(201);
      const starts = await startsOf(site, TUESDAY);
      expect(starts).not.toContain('09:00');
      expect(starts).not.toContain('15:00');
    });

    describe('made by another instance on the same database', () => {
      let second: App;
      beforeAll(async () => {
        second = await buildTestApp(t.databaseUrl, { SITE_TIMEZONE: 'Europe/Berlin' });
      });
      afterAll(async () => {
        await second.close();
      });

      it('shows it on this instance’s next read', async () => {
        const site = await newSite(t.db);
        const key = await t.key();
        const onSecond = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
          second.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload }) });
        expect(await startsOf(site, MONDAY)).toContain('11:00');
        expect(await startsOf(site, MONDAY, undefined, second)).toContain('11:00');

        const res = await onSecond('POST', '/bookings', {
          service_id: site.serviceId,
          agent_id: site.agentId,
          start_date: MONDAY,
          start_time: '11:00',
          customer_id: site.customerId,
          send_confirmation: false,
        });
        expect(res.statusCode).toBe(201);
        expect(await startsOf(site, MONDAY)).not.toContain('11:00');

        const body: Json = res.json();
        const id = body.data.id as number;
        expect((await onSecond('PUT', `/bookings/${id}`, { start_time: '14:00' })).statusCode).toBe(200);
        expect(await startsOf(site, MONDAY)).toContain('11:00');
        expect(await startsOf(site, MONDAY)).not.toContain('14:00');

        expect((await onSecond('DELETE', `/bookings/${id}`)).statusCode).toBe(200);
        expect(await startsOf(site, MONDAY)).toContain('14:00');
      });
    });
  });

  it('leaves other agents’ versions alone', async () => {
    const site = await newSite(t.db);
    const bystander = await insertAgent(t.db);
    await booked(site, site.agentId, '2030-01-07T09:00:00.000Z', 1);
    const row = await t.db.selectFrom('agent_busy_versions').select('version').where('agent_id', '=', bystander).executeTakeFirst();
    expect(row).toBeUndefined();
  });
});
