import { describe, expect, it } from 'vitest';
import { API, MONDAY, newSite, requester, TUESDAY, type Site } from '../bookings/setup.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { feedSettled, type FeedEvent } from './settle.js';

const BOOKING_EVENTS = 'booking.created,booking.updated,booking.rescheduled,booking.status_changed,booking.cancelled,booking.deleted';

describe.each(DIALECTS)('the change feed: GET /events and booking events (%s)', (dialect) => {
  const t = useTestApp(dialect, { PUBLIC_URL: 'https://book.example.test/' });
  const call = requester(t);
  let site: Site;

  /** Every event after `after`, walking the feed a page of `limit` at a time. */
  async function walk(after?: number, limit = 2, types = BOOKING_EVENTS): Promise<FeedEvent[]> {
    await feedSettled(t.db);
    const events: FeedEvent[] = [];
    let cursor = after;
    for (;;) {
      const res = await call('GET', `/events?limit=${limit}&types=${types}${cursor === undefined ? '' : `&after=${cursor}`}`);
      expect(res.statusCode).toBe(200);
      const page = res.json();
      events.push(...(page.data as FeedEvent[]));
      cursor = page.next_after ?? undefined;
      if (!page.has_more) return events;
    }
  }
  const lastEventId = async () => (await walk(undefined, 1000)).at(-1)?.id;

  it('records each booking change once, with its data, previous attributes, request id and source', async () => {
    site ??= await newSite(t.db);
    const from = await lastEventId();
    const keyId = (await t.db.selectFrom('api_keys').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id;

    const created = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId, send_confirmation: false });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id as number;
    const noted = await call('PUT', `/bookings/${id}`, { notes: 'window seat' });
    const unchanged = await call('PUT', `/bookings/${id}`, { notes: 'window seat' });
    const moved = await call('PUT', `/bookings/${id}`, { start_date: TUESDAY, start_time: '11:00' });
    const approved = await call('PUT', `/bookings/${id}`, { status: 'approved' });
    const cancelled = await call('PUT', `/bookings/${id}`, { status: 'cancelled' });
    // Refused changes record nothing.
    expect((await call('PUT', `/bookings/${id}`, { start_time: '25:00' })).statusCode).toBe(400);
    expect((await call('PUT', `/bookings/999999`, { notes: 'x' })).statusCode).toBe(404);
    const deleted = await call('DELETE', `/bookings/${id}`);
    for (const res of [noted, unchanged, moved, approved, cancelled, deleted]) expect(res.statusCode).toBe(200);

    const events = await walk(from);
    expect(events.map((e) => e.type)).toEqual(['booking.created', 'booking.updated', 'booking.rescheduled', 'booking.status_changed', 'booking.cancelled', 'booking.deleted']);
    const requests = [created, noted, moved, approved, cancelled, deleted];
    events.forEach((event, i) => {
      expect(event.request_id).toBe(requests[i]!.headers['x-request-id']);
      expect(event.source).toEqual({ type: 'api_key', api_key_id: expect.any(Number) });
      expect(event.data.id).toBe(id);
    });
    expect(events[0]!.source.api_key_id).toBeGreaterThan(keyId - 1);

    // data is the booking as GET showed it after each change, less its manage links.
    const createdData = { ...created.json().data } as Record<string, unknown>;
    delete createdData.manage_booking_for_agent;
    delete createdData.manage_booking_for_customer;
    expect(events[0]!.data).toEqual(createdData);
    expect(events[0]!.previous_attributes).toBeNull();
    expect(events[1]!.previous_attributes).toEqual({ notes: null, updated_at: events[0]!.data.updated_at });
    expect(events[1]!.data.notes).toBe('window seat');
    expect(events[2]!.previous_attributes).toMatchObject({ start_date: MONDAY, start_time: '10:00' });
    expect(events[2]!.data).toMatchObject({ start_date: TUESDAY, start_time: '11:00' });
    expect(events[3]!.previous_attributes).toMatchObject({ status: 'pending' });
    expect(events[4]!.previous_attributes).toMatchObject({ status: 'approved' });
    expect(events[5]!.data).toMatchObject({ id, status: 'cancelled' });

    // No stored event holds a manage link's key.
    const stored = await t.db.selectFrom('events').select(['data', 'previous_attributes']).execute();
    expect(JSON.stringify(stored)).not.toMatch(/manage-booking|key=/);
  });

  it('an order cancelled or paid records the events of its bookings too', async () => {
    site ??= await newSite(t.db);
    const created = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: TUESDAY, start_time: '15:00', customer_id: site.customerId, send_confirmation: false });
    const { id, order } = created.json().data as { id: number; order: { id: number } };
    const from = await lastEventId();
    expect((await call('POST', '/payments', { order_id: order.id, amount: 45 })).statusCode).toBe(201);
    expect((await call('PUT', `/orders/${order.id}`, { status: 'cancelled' })).statusCode).toBe(200);
    const events = await walk(from);
    expect(events.map((e) => [e.type, e.data.id as number])).toEqual([
      ['booking.updated', id],
      ['booking.cancelled', id],
    ]);
    expect(events[0]!.previous_attributes).toMatchObject({ payment_status: 'not_paid' });
    expect(events[1]!.previous_attributes).toMatchObject({ status: 'pending' });
  });

  it('a bulk request records one event per created booking and none for its refused elements', async () => {
    site ??= await newSite(t.db);
    const from = await lastEventId();
    const element = (time: string) => ({ service_id: site.serviceId, agent_id: site.agentId, start_date: '2030-01-09', start_time: time, customer_id: site.customerId });
    const res = await call('POST', '/bookings/bulk', { bookings: [element('09:00'), element('09:00'), element('13:00')], send_confirmation: false });
    expect(res.statusCode).toBeLessThan(300);
    const events = await walk(from);
    expect(events.map((e) => e.type)).toEqual(['booking.created', 'booking.created']);
    expect(new Set(events.map((e) => e.data.start_time as string))).toEqual(new Set(['09:00', '13:00']));
  });

  it('filters by type, pages without repeats, and names a bad cursor or type', async () => {
    const all = await walk(undefined, 1000);
    expect(all.length).toBeGreaterThan(3);
    const paged = await walk(undefined, 1);
    expect(paged.map((e) => e.id)).toEqual(all.map((e) => e.id));
    const created = (await call('GET', '/events?types=booking.created,booking.deleted&limit=1000')).json().data as FeedEvent[];
    expect(created.length).toBeGreaterThan(0);
    expect(created.every((e) => e.type === 'booking.created' || e.type === 'booking.deleted')).toBe(true);
    const end = await call('GET', `/events?after=${all.at(-1)!.id}`);
    expect(end.json()).toMatchObject({ data: [], has_more: false, next_after: all.at(-1)!.id });

    const badType = await call('GET', '/events?types=booking.created,booking.exploded');
    expect(badType.statusCode).toBe(400);
    expect(JSON.stringify(badType.json())).toContain('booking.exploded');
    expect(badType.json().details ?? badType.json().error?.details).toHaveProperty('types');
    const badAfter = await call('GET', '/events?after=99999999');
    expect(badAfter.statusCode).toBe(400);
    expect(JSON.stringify(badAfter.json())).toContain('after');
  });

  it('needs events:read', async () => {
    const key = await t.key({ permissions: ['bookings:read'] });
    const res = await t.app.inject({ method: 'GET', url: `${API}/events`, headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(403);
  });
});
