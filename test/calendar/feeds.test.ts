import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { addAgent, API, newSite, requester } from '../bookings/setup.js';
import { insertBooking } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

const PUBLIC_URL = 'https://book.example.test';
const HOST = 'book.example.test';
const DAY_MS = 86_400_000;

/** The Friday before and the Monday after Berlin's next spring change still ahead (CET +1 → CEST +2). */
function aroundSpringForward(): { friday: string; monday: string } {
  const now = DateTime.now().setZone('Europe/Berlin');
  for (let year = now.year; ; year += 1) {
    let sunday = DateTime.fromObject({ year, month: 3, day: 31 }, { zone: 'Europe/Berlin' });
    while (sunday.weekday !== 7) sunday = sunday.minus({ days: 1 });
    if (sunday.minus({ days: 3 }) > now) return { friday: sunday.minus({ days: 2 }).toISODate()!, monday: sunday.plus({ days: 1 }).toISODate()! };
  }
}

/** The events of an iCalendar text, read by ical.js (an implementation independent of the writer's). */
function eventsOf(text: string): ICAL.Event[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  return calendar.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent));
}

/** RFC 5545 §3.1: CRLF after every line, none longer than 75 octets. */
function expectWellFormed(text: string): void {
  expect(text.endsWith('\r\n')).toBe(true);
  expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
  for (const line of text.split('\r\n')) expect(Buffer.byteLength(line, 'utf8'), line).toBeLessThanOrEqual(75);
}

const utc = (date: string, time: string) => `${date}T${time}:00.000Z`;
const path = (url: string) => new URL(url).pathname + new URL(url).search;

describe.each(DIALECTS)('calendar feeds (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin', PUBLIC_URL });
  const call = requester(t);
  const fetchFeed = (url: string) => t.app.inject({ method: 'GET', url: path(url) });

  it('shows the URL once, stores only its hash, lists without it, and answers 404 once revoked', async () => {
    const { agentId } = await newSite(t.db);
    const created = await call('POST', `/agents/${agentId}/calendar-feeds`, { label: 'Phone' });
    expect(created.statusCode, created.body).toBe(201);
    const feed: Json = created.json().data;
    expect(feed).toMatchObject({ agent_id: agentId, label: 'Phone' });
    const token = new RegExp(`^${PUBLIC_URL}/calendar-feeds/([A-Za-z0-9_-]{43})\\.ics$`).exec(feed.url)?.[1] as string;
    expect(token).toBeDefined();
    expect((await call('POST', `/agents/${agentId}/calendar-feeds`, {})).statusCode).toBe(201);

    const row = await t.db.selectFrom('calendar_feeds').selectAll().where('id', '=', feed.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);

    const answer = await fetchFeed(feed.url);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-store');

    const list = await call('GET', `/agents/${agentId}/calendar-feeds`);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(token);
    expect(list.body).not.toContain(row.token_hash);
    expect(list.json().pagination).toMatchObject({ page: 1, total: 2 });
    const listed: Json = list.json().data.find((f: Json) => f.id === feed.id);
    expect(Object.keys(listed).sort()).toEqual(['agent_id', 'created_at', 'id', 'label', 'last_used_at']);
    expect(listed.last_used_at).not.toBeNull();

    const other = await addAgent(t.db, await newSite(t.db));
    expect((await call('DELETE', `/agents/${other}/calendar-feeds/${feed.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/agents/${agentId}/calendar-feeds/${feed.id}`)).json().data).toEqual({ id: feed.id, deleted: true });
    expect((await call('DELETE', `/agents/${agentId}/calendar-feeds/${feed.id}`)).statusCode).toBe(404);
    const revoked = await fetchFeed(feed.url);
    expect(revoked.statusCode).toBe(404);
    expect(revoked.body).not.toContain('BEGIN:VCALENDAR');
    expect((await t.app.inject({ method: 'GET', url: `/calendar-feeds/${'A'.repeat(43)}.ics` })).statusCode).toBe(404);
  });

  it('keeps no token in a stored idempotent reply: a retry answers that the response is lost', async () => {
    const { agentId } = await newSite(t.db);
    const key = await t.key();
    const post = () =>
      t.app.inject({ method: 'POST', url: `${API}/agents/${agentId}/calendar-feeds`, headers: { 'x-api-key': key, 'idempotency-key': 'feed-1' }, payload: { label: 'Retry' } });
    const first = await post();
    expect(first.statusCode).toBe(201);
    const token = /\/calendar-feeds\/([^.]+)\.ics/.exec(first.json().data.url as string)?.[1] as string;
    const stored = await t.db.selectFrom('idempotency_keys').select('response_body').where('idempotency_key', '=', 'feed-1').executeTakeFirstOrThrow();
    expect(stored.response_body).not.toContain(token);
    const retry = await post();
    expect(retry.statusCode).toBe(409);
    expect(retry.json().error.code).toBe('idempotency_response_lost');
    expect(await t.db.selectFrom('calendar_feeds').select('id').where('agent_id', '=', agentId).execute()).toHaveLength(1);
  });

  it('needs agents:write to make or revoke, agents:read to list; refuses unknown agents and fields', async () => {
    const { agentId } = await newSite(t.db);
    const reader = await t.key({ permissions: ['agents:read'] });
    const as = (key: string, method: 'GET' | 'POST', payload?: object) =>
      t.app.inject({ method, url: `${API}/agents/${agentId}/calendar-feeds`, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
    expect((await as(reader, 'POST', {})).statusCode).toBe(403);
    expect((await as(reader, 'GET')).statusCode).toBe(200);
    expect((await as(await t.key({ permissions: ['bookings:read'] }), 'GET')).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: `${API}/agents/${agentId}/calendar-feeds` })).statusCode).toBe(401);

    const unknown = await call('POST', '/agents/999999/calendar-feeds', {});
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('agent_not_found');
    expect((await call('GET', '/agents/999999/calendar-feeds')).statusCode).toBe(404);
    const extra = await call('POST', `/agents/${agentId}/calendar-feeds`, { label: 'x', token: 'mine' });
    expect(extra.statusCode).toBe(400);
    expect(extra.body).toContain('token');
    expect((await call('POST', `/agents/${agentId}/calendar-feeds`, { label: 'x'.repeat(201) })).statusCode).toBe(400);
  });

  it("lists the agent's live bookings of the window, at their instants across a DST change, in RFC 5545 text", async () => {
    const site = await newSite(t.db);
    const { friday, monday } = aroundSpringForward();
    const notes = 'Bring: forms, ID; park at the back\nSecond line – über 75 octets: ' + 'ä'.repeat(60);
    const book = async (date: string, extra: object = {}) => {
      const created = await call('POST', '/bookings', {
        service_id: site.serviceId,
        agent_id: site.agentId,
        start_date: date,
        start_time: '10:00',
        customer: { first_name: 'Ada', last_name: 'Byron', email: `ada.${Math.random()}@example.test`, phone: '+49 30 1234' },
        ...extra,
      });
      expect(created.statusCode, created.body).toBe(201);
      return created.json().data.id as number;
    };
    const before = await book(friday, { notes });
    const after = await book(monday);
    expect((await call('PUT', `/bookings/${after}`, { status: 'approved' })).statusCode).toBe(200);

    const now = Date.now();
    const at = (ms: number) => ({ start_at: new Date(ms).toISOString(), end_at: new Date(ms + 3_600_000).toISOString() });
    const recent = await insertBooking(t.db, site, at(now - 29 * DAY_MS));
    const absent = [
      await insertBooking(t.db, site, { ...at(Date.parse(utc(friday, '13:00'))), status: 'cancelled' }),
      await insertBooking(t.db, { ...site, agentId: await addAgent(t.db, site) }, at(Date.parse(utc(friday, '13:00')))),
      await insertBooking(t.db, site, at(now - 31 * DAY_MS)),
      await insertBooking(t.db, site, at(now + 367 * DAY_MS)),
    ];

    const url = (await call('POST', `/agents/${site.agentId}/calendar-feeds`, {})).json().data.url as string;
    const answer = await fetchFeed(url);
    expect(answer.statusCode).toBe(200);
    expectWellFormed(answer.body);
    const events = eventsOf(answer.body);
    const uid = (id: number) => `booking-${id}@${HOST}`;
    expect(events.map((e) => e.uid)).toEqual([uid(recent), uid(before), uid(after)]);
    for (const id of absent) expect(answer.body).not.toContain(uid(id));

    const [, first, second] = events as [ICAL.Event, ICAL.Event, ICAL.Event];
    expect(first.startDate.toJSDate().toISOString()).toBe(utc(friday, '09:00'));
    expect(first.endDate.toJSDate().toISOString()).toBe(utc(friday, '10:00'));
    expect(second.startDate.toJSDate().toISOString()).toBe(utc(monday, '08:00'));
    expect(second.endDate.toJSDate().toISOString()).toBe(utc(monday, '09:00'));
    const { name } = await t.db.selectFrom('services').select('name').where('id', '=', site.serviceId).executeTakeFirstOrThrow();
    expect(first.summary).toBe(`${name} – Ada Byron`);
    expect(first.description).toContain(notes);
    expect(first.description).toContain('+49 30 1234');
    expect(first.location).toMatch(/^Location \d+, 1 Main Street$/);
    expect(first.component.getFirstPropertyValue('status')).toBe('TENTATIVE');
    expect(second.component.getFirstPropertyValue('status')).toBe('CONFIRMED');
    const sequences = await t.db.selectFrom('bookings').select(['id', 'calendar_sequence']).where('id', 'in', [before, after]).orderBy('id').execute();
    expect([first.sequence, second.sequence]).toEqual(sequences.map((s) => s.calendar_sequence));

    // The same UIDs at the next fetch: a calendar updates the entries it has.
    expect(eventsOf((await fetchFeed(url)).body).map((e) => e.uid)).toEqual(events.map((e) => e.uid));
  });

  it("offers the booking's .ics on its manage page, for the right key only", async () => {
    const site = await newSite(t.db);
    const { monday } = aroundSpringForward();
    const created = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      start_date: monday,
      start_time: '10:00',
      customer: { first_name: 'Ada', last_name: 'Byron', email: `ada.${Math.random()}@example.test` },
    });
    expect(created.statusCode, created.body).toBe(201);
    const booking: Json = (await call('GET', `/bookings/${created.json().data.id}`)).json().data;
    const link = new URL(booking.manage_booking_for_customer as string);
    const page = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
    const href = /<a id="calendar" href="([^"]+)">Add to calendar \(\.ics\)<\/a>/.exec(page.body)?.[1]?.replaceAll('&#38;', '&');
    expect(href).toBe(`${link.pathname}/calendar.ics${link.search}`);

    const answer = await t.app.inject({ method: 'GET', url: href as string });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expectWellFormed(answer.body);
    const [event] = eventsOf(answer.body) as [ICAL.Event];
    expect(event.uid).toBe(`booking-${booking.id}@${HOST}`);
    expect(event.startDate.toJSDate().toISOString()).toBe(utc(monday, '08:00'));
    expect(event.summary).toBe(`${booking.service_name} with ${booking.agent.display_name}`);
    expect(event.location).toBe(`${booking.location.name}, ${booking.location.full_address}`);

    const key = link.searchParams.get('key') as string;
    const wrong = await t.app.inject({ method: 'GET', url: `${link.pathname}/calendar.ics?role=customer&key=${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}` });
    expect(wrong.statusCode).toBe(404);
    expect(wrong.body).toContain('Booking not found');
    expect((await t.app.inject({ method: 'GET', url: `${link.pathname}/calendar.ics?role=agent&key=${key}` })).statusCode).toBe(404);
  });
});
