import { describe, expect, it } from 'vitest';
import { bumpBusyVersions } from '../../src/modules/availability/repository.js';
import { addAgent, MONDAY, newSite, requester, SATURDAY, type Site } from '../bookings/setup.js';
import { insertCustomer } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

const PUBLIC_URL = 'https://book.example.test';
const MINUTE_MS = 60_000;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe.each(DIALECTS)("the customer's manage page: cancel, reschedule, cut-offs (%s)", (dialect) => {
  const t = useTestApp(dialect, { PUBLIC_URL });
  const call = requester(t);

  interface Booked {
    id: number;
    code: string;
    customer: URL;
    agent: URL;
  }

  /** A booking on MONDAY at `time` (UTC site) with its manage links. */
  async function booked(site: Site, options: { agentId?: number; customerId?: number; time?: string } = {}): Promise<Booked> {
    const created = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: options.agentId ?? site.agentId,
      start_date: MONDAY,
      start_time: options.time ?? '10:00',
      customer_id: options.customerId ?? (await insertCustomer(t.db)),
    });
    expect(created.statusCode, created.body).toBe(201);
    const data: Json = created.json().data;
    return { id: data.id, code: data.booking_code, customer: new URL(data.manage_booking_for_customer), agent: new URL(data.manage_booking_for_agent) };
  }

  /** Moves the booking, as stored, to start `minutes` from now: the clock cannot be moved, the booking can. */
  async function startsIn(id: number, minutes: number): Promise<void> {
    const before = await t.db.selectFrom('bookings').select(['agent_id', 'start_at', 'end_at', 'buffer_before', 'buffer_after']).where('id', '=', id).executeTakeFirstOrThrow();
    const start = Date.now() + minutes * MINUTE_MS;
    const [startAt, endAt] = [new Date(start).toISOString(), new Date(start + 60 * MINUTE_MS).toISOString()];
    await t.db
      .updateTable('bookings')
      .set({ start_at: startAt, end_at: endAt, start_date: startAt.slice(0, 10), start_time: startAt.slice(11, 16), end_date: endAt.slice(0, 10), end_time: endAt.slice(11, 16) })
      .where('id', '=', id)
      .execute();
    await bumpBusyVersions(t.db, [before, { ...before, start_at: startAt, end_at: endAt }]);
  }

  const setCutoffs = async (cancel: number, reschedule: number) =>
    expect((await call('PUT', '/settings', { cancel_cutoff_minutes: cancel, reschedule_cutoff_minutes: reschedule })).statusCode).toBe(200);
  const page = (link: URL) => t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
  const post = (link: URL, action: 'cancel' | 'reschedule', extra: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `${link.pathname}/${action}`,
      headers: FORM,
      payload: new URLSearchParams({ role: link.searchParams.get('role') ?? '', key: link.searchParams.get('key') ?? '', ...extra }).toString(),
    });
  const read = async (id: number): Promise<Json> => (await call('GET', `/bookings/${id}`)).json().data;
  const offeredStarts = (body: string) => [...body.matchAll(/<option value="([^"]+)">/g)].map((match) => match[1] as string);

  it('refuses cancel and reschedule after their cut-offs, saying why on the page and in a 422; an API key still may', async () => {
    await setCutoffs(120, 1440);
    const booking = await booked(await newSite(t.db));

    // Three hours ahead: within the reschedule cut-off (a day), not the cancel one (two hours).
    await startsIn(booking.id, 180);
    let view = await page(booking.customer);
    expect(view.statusCode).toBe(200);
    expect(view.body).toContain('Cancel this booking');
    expect(view.body).toContain('A booking can be rescheduled here until 1 day before it starts; please contact us instead.');
    expect(view.body).not.toContain('Move to this time');
    const lateMove = await post(booking.customer, 'reschedule', { slot: `${MONDAY} 11:00` });
    expect(lateMove.statusCode).toBe(422);
    expect(lateMove.body).toContain('until 1 day before it starts');

    // One hour ahead: within both.
    await startsIn(booking.id, 60);
    view = await page(booking.customer);
    expect(view.body).toContain('A booking can be cancelled here until 2 hours before it starts; please contact us instead.');
    expect(view.body).not.toContain('Cancel this booking');
    const lateCancel = await post(booking.customer, 'cancel');
    expect(lateCancel.statusCode).toBe(422);
    expect(lateCancel.body).toContain('until 2 hours before it starts');
    const unchanged = await read(booking.id);
    expect(unchanged.status).toBe('pending');
    expect(unchanged.start_date).not.toBe(MONDAY);

    // The business overrides its own policy.
    const moved = await call('PUT', `/bookings/${booking.id}`, { start_date: MONDAY, start_time: '11:00' });
    expect(moved.statusCode, moved.body).toBe(200);
    view = await page(booking.customer);
    expect(view.body).toContain('Cancel this booking');
    expect(view.body).toContain('Move to this time');
    const cancelled = await post(booking.customer, 'cancel');
    expect(cancelled.statusCode).toBe(303);
    expect((await read(booking.id)).status).toBe('cancelled');
  });

  it('refuses both once the booking has started, whatever the cut-offs; the agent link and API keys still cancel', async () => {
    await setCutoffs(0, 0);
    const site = await newSite(t.db);
    const [first, second] = [await booked(site), await booked(site, { time: '12:00' })];
    await startsIn(first.id, -10);
    await startsIn(second.id, -120);

    const view = await page(first.customer);
    expect(view.body).toContain('The booking has started, so it can no longer be cancelled here.');
    expect(view.body).toContain('The booking has started, so it can no longer be rescheduled here.');
    expect(view.body).not.toContain('Cancel this booking');
    expect(view.body).not.toContain('Move to this time');
    for (const [action, extra] of [['cancel', {}], ['reschedule', { slot: `${MONDAY} 11:00` }]] as const) {
      const refused = await post(first.customer, action, extra);
      expect(refused.statusCode, action).toBe(422);
      expect(refused.body).toContain('The booking has started');
    }
    expect((await read(first.id)).status).toBe('pending');

    // The agent's link cancels as it always could.
    expect((await page(first.agent)).body).toContain('Cancel this booking');
    expect((await post(first.agent, 'cancel')).statusCode).toBe(303);
    expect((await read(first.id)).status).toBe('cancelled');
    const byKey = await call('PUT', `/bookings/${second.id}`, { status: 'cancelled' });
    expect(byKey.statusCode, byKey.body).toBe(200);
    expect(byKey.json().data.status).toBe('cancelled');
  });

  it('moves the booking to a free time the page offers, with the change notice an API reschedule writes', async () => {
    await setCutoffs(0, 0);
    const site = await newSite(t.db);
    const otherAgent = await addAgent(t.db, site);
    const customerId = await insertCustomer(t.db);
    const [viaPage, viaApi] = [await booked(site, { customerId }), await booked(site, { customerId, agentId: otherAgent })];

    const view = await page(viaPage.customer);
    const offered = offeredStarts(view.body);
    expect(offered.length).toBeGreaterThan(0);
    // The next 14 days of the site's (UTC) calendar, on the site's hours: Monday to Friday.
    const [today, last] = [new Date().toISOString().slice(0, 10), new Date(Date.now() + 13 * 24 * 60 * MINUTE_MS).toISOString().slice(0, 10)];
    for (const start of offered) {
      expect(start.slice(0, 10) >= today && start.slice(0, 10) <= last, start).toBe(true);
      expect([0, 6], start).not.toContain(new Date(`${start.slice(0, 10)}T00:00:00Z`).getUTCDay());
      expect(start.slice(11) >= '09:00' && start.slice(11) <= '16:00', start).toBe(true);
    }
    // The last one offered: the earliest could pass while the test runs.
    const slot = offered[offered.length - 1] as string;
    const [date, time] = slot.split(' ') as [string, string];

    const moved = await post(viaPage.customer, 'reschedule', { slot });
    expect(moved.statusCode, moved.body).toBe(303);
    expect(moved.headers.location).toBe(`${viaPage.customer.pathname}${viaPage.customer.search}&done=rescheduled`);
    expect(await read(viaPage.id)).toMatchObject({ start_date: date, start_time: time, status: 'pending' });
    const after = await page(new URL(String(moved.headers.location), PUBLIC_URL));
    expect(after.body).toContain('The booking is moved to its new time.');
    expect(after.body).toContain(`${date} ${time}–`);

    expect((await call('PUT', `/bookings/${viaApi.id}`, { start_date: date, start_time: time, send_notification: true })).statusCode).toBe(200);
    const notices = await t.db
      .selectFrom('outbox')
      .innerJoin('customers', 'customers.email', 'outbox.recipient')
      .select(['outbox.subject', 'outbox.payload'])
      .where('customers.id', '=', customerId)
      .where('outbox.kind', '=', 'booking_change')
      .orderBy('outbox.id')
      .execute();
    expect(notices).toHaveLength(2);
    // The same notice but for what tells the two bookings apart.
    const comparable = (notice: { subject: string; payload: string }, code: string): Record<string, unknown> => {
      const { booking_id, booking_code, agent_name, ...rest } = JSON.parse(notice.payload) as Record<string, unknown>;
      expect([booking_id, booking_code, agent_name].every((value) => value !== undefined)).toBe(true);
      return { subject: notice.subject.replace(code, 'CODE'), ...rest };
    };
    const [pageNotice, apiNotice] = [comparable(notices[0]!, viaPage.code), comparable(notices[1]!, viaApi.code)];
    expect(pageNotice).toEqual(apiNotice);
    expect(pageNotice.changes).toContain(`Date: ${MONDAY} → ${date}`);
  });

  it('refuses a forged, taken or out-of-hours move with a 4xx page and changes nothing', async () => {
    await setCutoffs(0, 0);
    const site = await newSite(t.db);
    const booking = await booked(site);
    const offered = offeredStarts((await page(booking.customer)).body);
    const taken = offered[offered.length - 1] as string;
    // Another customer takes the time after the page was shown: the move is checked under the lock.
    const rival = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      start_date: taken.slice(0, 10),
      start_time: taken.slice(11),
      customer_id: await insertCustomer(t.db),
    });
    expect(rival.statusCode, rival.body).toBe(201);

    for (const [extra, status, text] of [
      [{ slot: taken }, 422, 'That time is no longer free'],
      [{ slot: `${SATURDAY} 10:00` }, 422, 'Not possible'],
      [{ slot: '2030-02-30 10:00' }, 422, 'Choose one of the times offered.'],
      [{ slot: '2030-01-08 25:00' }, 422, 'Choose one of the times offered.'],
      [{}, 422, 'Choose one of the times offered.'],
    ] as const) {
      const res = await post(booking.customer, 'reschedule', extra);
      expect(res.statusCode, JSON.stringify(extra)).toBe(status);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain(text);
    }
    expect((await post(booking.agent, 'reschedule', { slot: `${MONDAY} 12:00` })).statusCode).toBe(422);
    const wrongKey = new URL(booking.customer);
    wrongKey.searchParams.set('key', 'not-the-key');
    expect((await post(wrongKey, 'reschedule', { slot: `${MONDAY} 12:00` })).statusCode).toBe(404);

    // A blocked customer is not booked anew, by the page either.
    const customerId = (await read(booking.id)).customer.id as number;
    await t.db.updateTable('customers').set({ status: 'blocked' }).where('id', '=', customerId).execute();
    const blocked = await post(booking.customer, 'reschedule', { slot: `${MONDAY} 12:00` });
    expect(blocked.statusCode).toBe(422);
    expect(blocked.body).toContain('is blocked');
    expect(await read(booking.id)).toMatchObject({ start_date: MONDAY, start_time: '10:00', status: 'pending' });
  });
});
