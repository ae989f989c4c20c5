import fs from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MONDAY, newSite, requester } from '../bookings/setup.js';
import { buildTestApp, DIALECTS, useTestApp, type Json } from '../helper.js';

const PUBLIC_URL = 'https://book.example.test';

describe.each(DIALECTS)('manage-link keys are never stored (%s)', (dialect) => {
  const t = useTestApp(dialect, { PUBLIC_URL });
  const call = requester(t);

  const linksOf = (booking: Json): string[] => [String(booking.manage_booking_for_customer), String(booking.manage_booking_for_agent)];
  const keyOf = (link: string): string => new URL(link).searchParams.get('key') ?? '';
  const open = async (app: typeof t.app, link: string) => (await app.inject({ method: 'GET', url: link.slice(PUBLIC_URL.length) })).statusCode;
  const withKey = (idempotencyKey: string, method: 'POST' | 'PUT', url: string, payload: object, apiKey: string) =>
    t.app.inject({ method, url: `/booking-api/v1${url}`, headers: { 'x-api-key': apiKey, 'idempotency-key': idempotencyKey }, payload });

  /** Everything the database holds: the SQLite file and its write-ahead log as bytes, or every row of every PostgreSQL table as text. */
  async function storedText(): Promise<string> {
    if (dialect === 'sqlite') {
      const file = t.databaseUrl.slice('sqlite:'.length);
      return [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1')).join('\n');
    }
    const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(t.db);
    const dumps = await Promise.all(tables.rows.map(({ name }) => sql<{ dump: string | null }>`select string_agg(r::text, ' ') as dump from ${sql.table(name)} r`.execute(t.db)));
    return dumps.map((d) => d.rows[0]?.dump ?? '').join('\n');
  }

  it('creates, replays, mails and changes bookings with links that work, and the database holds none of their keys', async () => {
    const site = await newSite(t.db);
    const apiKey = await t.key();
    const customer = { first_name: 'Ada', last_name: 'Byron', email: `ada.${Math.random()}@example.test` };
    const one = { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '09:00', customer, send_confirmation: true };
    const created = await withKey('create-1', 'POST', '/bookings', one, apiKey);
    expect(created.statusCode, created.body).toBe(201);
    const replayed = await withKey('create-1', 'POST', '/bookings', one, apiKey);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(created.body);

    const customerId = created.json().data.customer.id as number;
    const bulkBody = { bookings: [11, 13].map((hour) => ({ service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: `${hour}:00`, customer_id: customerId })), send_confirmation: true };
    const bulk = await withKey('bulk-1', 'POST', '/bookings/bulk', bulkBody, apiKey);
    expect(bulk.statusCode, bulk.body).toBe(201);
    expect((await withKey('bulk-1', 'POST', '/bookings/bulk', bulkBody, apiKey)).body).toBe(bulk.body);

    const id = created.json().data.id as number;
    const moved = await withKey('move-1', 'PUT', `/bookings/${id}`, { start_time: '10:00', send_notification: true }, apiKey);
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await withKey('move-1', 'PUT', `/bookings/${id}`, { start_time: '10:00', send_notification: true }, apiKey)).body).toBe(moved.body);

    // A move keeps the links; the bulk's answer shows none, GET does.
    expect(linksOf(moved.json().data)).toEqual(linksOf(created.json().data));
    const read = async (bookingId: number): Promise<Json> => (await call('GET', `/bookings/${bookingId}`)).json().data;
    const bookings: Json[] = [await read(id), ...(await Promise.all(bulk.json().results.success.map((s: Json) => read(s.booking_id))))];
    expect(linksOf(bookings[0])).toEqual(linksOf(created.json().data));
    const links = bookings.flatMap(linksOf);
    expect(new Set(links).size).toBe(6);
    for (const link of links) expect(await open(t.app, link), link).toBe(200);
    const mails = await t.db.selectFrom('outbox').select('kind').where('recipient', '=', customer.email).execute();
    expect(mails.map((m) => m.kind).sort()).toEqual(['booking_change', 'booking_confirmation', 'booking_confirmation', 'booking_confirmation']);

    const stored = await storedText();
    // What was written is there to be found (the codes sit in the bookings, the replies and the mail)…
    for (const booking of bookings) expect(stored).toContain(booking.booking_code);
    // …but no key of any link.
    for (const link of links) expect(stored).not.toContain(keyOf(link));
  });

  it("replays a reply with the booking's current links, and never takes text a client sent for a key", async () => {
    const site = await newSite(t.db);
    const apiKey = await t.key();
    const other = (await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '09:00', customer_id: site.customerId })).json().data;
    const forged = `${other.manage_booking_for_agent.slice(0, -32)}${'A'.repeat(32)}`;
    const body = { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '11:00', customer: { first_name: 'Bo', last_name: 'Cy', email: `b.${Math.random()}@example.test` }, notes: forged };
    const created = await withKey('replay-1', 'POST', '/bookings', body, apiKey);
    expect(created.statusCode, created.body).toBe(201);
    const booking = created.json().data;

    // A new email renews the links: the old ones are revoked, and a replay shows the new ones.
    expect((await call('PUT', `/customers/${booking.customer.id}`, { email: `new.${Math.random()}@example.test` })).statusCode).toBe(200);
    const replay = (await withKey('replay-1', 'POST', '/bookings', body, apiKey)).json().data;
    const current = (await call('GET', `/bookings/${booking.id}`)).json().data;
    expect(linksOf(replay)).toEqual(linksOf(current));
    expect(linksOf(replay)).not.toEqual(linksOf(booking));
    for (const link of linksOf(booking)) expect(await open(t.app, link)).toBe(404);
    for (const link of linksOf(replay)) expect(await open(t.app, link)).toBe(200);
    expect(replay.notes).toBe(forged);
    expect(await open(t.app, forged)).toBe(404);
  });

  it("signs links with the service's secret: a restart opens them, a service with another secret does not", async () => {
    const site = await newSite(t.db);
    const booking = (await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '15:00', customer_id: site.customerId })).json().data;
    for (const [env, status] of [
      [{ PUBLIC_URL }, 200],
      [{ PUBLIC_URL, MANAGE_LINK_SECRET: 'b'.repeat(64) }, 404],
    ] as const) {
      const restarted = await buildTestApp(t.databaseUrl, env);
      try {
        for (const link of linksOf(booking)) expect(await open(restarted, link)).toBe(status);
      } finally {
        await restarted.close();
      }
    }
  });
});
