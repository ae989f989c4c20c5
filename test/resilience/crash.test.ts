/**
 * Crash safety: the real server (`node --import tsx src/server.ts`) is killed with SIGKILL in
 * the middle of a load of bulk and single creates, restarted on the same database and killed
 * again, KILLS times; after the last restart every booking that was answered 201 exists with its
 * order, order item and invoice, and nothing anywhere is half-written. Every request carries an
 * Idempotency-Key, and a retry of each request a kill cut off runs it only if none of it committed.
 */
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, stopServer, type RunningServer } from '../../bench/processes.js';
import { openDatabase, type DatabaseHandle, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { WEEKDAYS, type Weekly } from '../../src/modules/schedules/model.js';
import { writeSiteSchedule } from '../../src/modules/schedules/repository.js';
import { initialiseSettings, setSettings } from '../../src/modules/settings/service.js';
import { MAX_ADVANCE_DAYS } from '../../src/core/limits.js';
import { connectAgent, insertAgent, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { createTestDatabase, DIALECTS, type Json, type TestDatabase } from '../helper.js';

const SERVER = ['--import', 'tsx', path.join(import.meta.dirname, '..', '..', 'src', 'server.ts')];
const API = '/booking-api/v1';
const AGENTS = 4;
/** Concurrent clients: when the kill comes, the others' requests are in flight. */
const CLIENTS = 6;
const BULK_SIZE = 10;
/** Crashes per dialect: each kill falls at a random moment of the server's work. */
const KILLS = 3;
/** Bookings answered 201 before each kill. */
const TARGET = 100;
/** A bound on each load should its target never be reached. */
const SLOTS_PER_LOAD = TARGET * 6;
/** Half-hour slots from 06:00 to 22:00, every day from FIRST_DAY on (far ahead, never past). */
const SLOTS_PER_DAY = 32;
const FIRST_DAY = Date.UTC(2031, 2, 3);

interface Site {
  serviceId: number;
  locationId: number;
  customerId: number;
  agentIds: number[];
  apiKey: string;
}

/** A request a kill cut off, as its client would retry it. */
interface CutOff {
  url: string;
  body: object;
  idempotencyKey: string;
  numbers: number[];
}

interface Slot {
  agentId: number;
  date: string;
  time: string;
}

/** Slot n: agents in turn, then half-hours, then days; no two slots of one agent overlap. */
function slotOf(site: Site, n: number): Slot {
  const perAgent = Math.floor(n / AGENTS);
  const day = new Date(FIRST_DAY + Math.floor(perAgent / SLOTS_PER_DAY) * 86_400_000).toISOString().slice(0, 10);
  const minutes = 6 * 60 + (perAgent % SLOTS_PER_DAY) * 30;
  const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return { agentId: site.agentIds[n % AGENTS] as number, date: day, time };
}

/** A booking of slot n; every fifth creates its customer, so that customer rows are written too. */
function bookingBody(site: Site, n: number): Record<string, unknown> {
  const slot = slotOf(site, n);
  return {
    service_id: site.serviceId,
    agent_id: slot.agentId,
    location_id: site.locationId,
    start_date: slot.date,
    start_time: slot.time,
    ...(n % 5 === 0 ? { customer: { first_name: 'Crash', last_name: 'Load', email: `crash-${n}@example.test` } } : { customer_id: site.customerId }),
    meta: { load: 'crash', element: String(n) },
  };
}

/** Runs `work` on a connection of its own to the database, closed afterwards. */
async function withDatabase<T>(url: string, work: (db: Db, handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = openDatabase(url);
  try {
    return await work(handle.db, handle);
  } finally {
    await handle.destroy();
  }
}

describe.each(DIALECTS)('crash safety: SIGKILL in the middle of a bulk load (%s)', (dialect) => {
  let database: TestDatabase;
  let site: Site;
  let server: RunningServer | undefined;
  /** Bookings answered 201 (POST /bookings, or a bulk success), with the slot each asked for. */
  const answered = new Map<number, Slot>();
  /** Per crash: requests left unanswered by the kill, and whether SIGKILL ended the server. */
  const crashes: { cutOff: number; bySigkill: boolean }[] = [];
  /** Answers other than 201 (none is expected: every slot asked for is free). */
  const unexpected: string[] = [];
  const cutOffRequests: CutOff[] = [];
  /** The answers to the retries of the cut-off requests: status and error code. */
  const retried: string[] = [];
  let nextSlot = 0;

  function start(): Promise<RunningServer> {
    return startServer(SERVER, { DATABASE_URL: database.url, LOG_LEVEL: 'error' });
  }

  function post(running: RunningServer, url: string, body: object, idempotencyKey?: string): Promise<Response> {
    return fetch(`${running.url}${API}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': site.apiKey, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      body: JSON.stringify(body),
    });
  }

  /** Sends a request of the load; bookings answered 201 are recorded, other answers returned. */
  async function send(running: RunningServer, request: CutOff): Promise<{ status: number; body: Json }> {
    const res = await post(running, request.url, request.body, request.idempotencyKey);
    const body: Json = await res.json();
    if (request.url === '/bookings' && res.status === 201) answered.set(body.data.id, slotOf(site, request.numbers[0] as number));
    if (request.url !== '/bookings' && (res.status === 201 || res.status === 207)) {
      for (const s of body.results.success) answered.set(s.booking_id, slotOf(site, request.numbers[s.index] as number));
    }
    return { status: res.status, body };
  }

  /**
   * CLIENTS clients send bulk requests (and every fourth request a single create) of distinct
   * free slots back to back; once TARGET more bookings have been answered 201, the server is
   * killed with SIGKILL while the clients' requests are in flight.
   */
  async function loadAndKill(running: RunningServer): Promise<void> {
    const answeredBefore = answered.size;
    const slotLimit = nextSlot + SLOTS_PER_LOAD;
    const crash = { cutOff: 0, bySigkill: false };
    let nextRequest = 0;
    let killed: Promise<void> | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const kill = () => (killed ??= stopServer(running, 'SIGKILL'));

    const client = async () => {
      while (!killed && nextSlot < slotLimit) {
        const single = nextRequest++ % 4 === 3;
        const first = nextSlot;
        nextSlot += single ? 1 : BULK_SIZE;
        const numbers = Array.from({ length: single ? 1 : BULK_SIZE }, (_, i) => first + i);
        const request: CutOff = single
          ? { url: '/bookings', body: bookingBody(site, first), idempotencyKey: `load-${first}`, numbers }
          : {
              url: '/bookings/bulk',
              body: { bookings: numbers.map((n) => bookingBody(site, n)), send_confirmation: first % 2 === 0 },
              idempotencyKey: `load-${first}`,
              numbers,
            };
        const sent = performance.now();
        try {
          const { status, body } = await send(running, request);
          if (status !== 201) unexpected.push(`${status} ${JSON.stringify(body).slice(0, 300)}`);
        } catch {
          // No answer: the kill cut this request off (its bookings may or may not have committed).
          crash.cutOff++;
          cutOffRequests.push(request);
        }
        // Killing on an answer would always hit the server just after a commit, as it starts the
        // next request; a random moment within one request's time falls anywhere in its work.
        if (answered.size - answeredBefore >= TARGET && !killTimer) {
          killTimer = setTimeout(() => void kill(), Math.random() * (performance.now() - sent));
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    clearTimeout(killTimer);
    await kill();
    crash.bySigkill = running.child.signalCode === 'SIGKILL';
    crashes.push(crash);
  }

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    site = await withDatabase(database.url, async (db, handle) => {
      await migrateToLatest(handle);
      await initialiseSettings(db, 'UTC');
      // Its bookings lie years ahead, past the default booking window.
      await setSettings(db, { max_advance_days: MAX_ADVANCE_DAYS });
      const weekly = Object.fromEntries(WEEKDAYS.map((day) => [day, [{ start: '06:00', end: '22:00' }]])) as Weekly;
      await writeSiteSchedule(db, { weekly, exceptions: [] });
      const serviceId = await insertService(db, { duration: 30, charge_amount_cents: 3000 });
      const locationId = await insertLocation(db);
      const agentIds: number[] = [];
      for (let i = 0; i < AGENTS; i++) {
        const agentId = await insertAgent(db);
        await connectAgent(db, agentId, { serviceIds: [serviceId], locationIds: [locationId] });
        agentIds.push(agentId);
      }
      const customerId = await insertCustomer(db);
      const { key } = await createKey(db, { name: 'crash', perMinute: 1_000_000, perHour: 1_000_000 });
      return { serviceId, locationId, customerId, agentIds, apiKey: key };
    });
    // The test holds no connection while the server runs: each start alone recovers the database.
    for (let i = 0; i < KILLS; i++) await loadAndKill(await start());
    // Time passes: the cut-off requests' claims on their keys count as abandoned (60 s on).
    await withDatabase(database.url, (db) =>
      db.updateTable('idempotency_keys').set({ updated_at: new Date(Date.now() - 10 * 60_000).toISOString() }).where('state', '!=', 'done').execute(),
    );
    server = await start();
    for (const request of cutOffRequests) {
      const { status, body } = await send(server, request);
      retried.push(status === 201 ? '201' : `${status} ${body.error?.code ?? JSON.stringify(body).slice(0, 300)}`);
    }
  });

  afterAll(async () => {
    if (server) await stopServer(server);
    await database?.drop();
  });

  it(`the server was killed by SIGKILL ${KILLS} times with requests in flight, every answered request having succeeded`, () => {
    expect(crashes).toHaveLength(KILLS);
    for (const crash of crashes) {
      expect(crash.bySigkill).toBe(true);
      expect(crash.cutOff).toBeGreaterThan(0);
    }
    expect(answered.size).toBeGreaterThanOrEqual(KILLS * TARGET);
    expect(unexpected).toEqual([]);
  });

  it('a retry of each cut-off request ran it only if none of it had committed, else said its response was lost', () => {
    expect(retried).toHaveLength(cutOffRequests.length);
    // A run of work that had committed would find its own slots taken (409 time_slot_unavailable).
    expect(retried.filter((answer) => answer !== '201' && answer !== '409 idempotency_response_lost')).toEqual([]);
  });

  it('every booking answered 201 exists at its slot with its order, booking item and invoice', async () => {
    const rows = await withDatabase(database.url, (db) =>
      db
        .selectFrom('bookings as b')
        .innerJoin('orders as o', 'o.id', 'b.order_id')
        .innerJoin('order_items as i', (join) => join.onRef('i.booking_id', '=', 'b.id').onRef('i.order_id', '=', 'o.id').on('i.variant', '=', 'booking'))
        .innerJoin('invoices as v', 'v.order_id', 'o.id')
        .select(['b.id', 'b.agent_id', 'b.start_date', 'b.start_time'])
        .where('b.id', 'in', [...answered.keys()])
        .execute(),
    );
    const found = new Map(rows.map((r) => [r.id, { agentId: r.agent_id, date: r.start_date, time: r.start_time }]));
    const missing = [...answered.keys()].filter((id) => !found.has(id));
    expect(missing).toEqual([]);
    expect(found).toEqual(answered);
    // The load asked for confirmations too, so the mail check below has mails to look at.
    expect((await withDatabase(database.url, confirmedBookingIds)).length).toBeGreaterThan(0);
  });

  it('nothing is half-written', async () => {
    const offenders = await withDatabase(database.url, halfWritten);
    expect(offenders).toEqual({
      bookingsWithoutOrder: [],
      bookingsWithoutItem: [],
      bookingsWithoutMeta: [],
      ordersWithoutBooking: [],
      ordersWithoutInvoice: [],
      itemsWithoutBooking: [],
      invoicesWithoutOrder: [],
      metaWithoutBooking: [],
      customersWithoutBooking: [],
      mailsAboutNoBooking: [],
      overlappingPairs: [],
    });
  });

  it('the restarted server reads an answered booking and takes new ones', async () => {
    const running = server as RunningServer;
    const id = Math.max(...answered.keys());
    const read = await fetch(`${running.url}${API}/bookings/${id}`, { headers: { 'x-api-key': site.apiKey } });
    expect(read.status).toBe(200);
    const booking: Json = ((await read.json()) as Json).data;
    expect(booking).toMatchObject({ id, agent_id: answered.get(id)?.agentId, meta: { load: 'crash' } });
    expect(booking.order).toMatchObject({ id: booking.order_id, status: 'open' });

    const created = await post(running, '/bookings', bookingBody(site, nextSlot));
    expect(created.status).toBe(201);
  });
});

const ids = (rows: { id: number }[]) => rows.map((r) => r.id);

/** Every kind of partial write a crash could leave, each as the ids of the rows at fault. */
async function halfWritten(db: Db): Promise<Record<string, unknown[]>> {
  return {
    bookingsWithoutOrder: ids(await db.selectFrom('bookings as b').leftJoin('orders as o', 'o.id', 'b.order_id').select('b.id').where('o.id', 'is', null).execute()),
    bookingsWithoutItem: ids(
      await db
        .selectFrom('bookings as b')
        .select('b.id')
        .where((eb) =>
          eb.not(eb.exists(eb.selectFrom('order_items as i').whereRef('i.booking_id', '=', 'b.id').whereRef('i.order_id', '=', 'b.order_id').where('i.variant', '=', 'booking').select('i.id'))),
        )
        .execute(),
    ),
    // Every booking of the load carries metadata, written with it.
    bookingsWithoutMeta: ids(
      await db
        .selectFrom('bookings as b')
        .select('b.id')
        .where((eb) => eb.not(eb.exists(eb.selectFrom('booking_meta as m').whereRef('m.booking_id', '=', 'b.id').where('m.meta_key', '=', 'load').select('m.booking_id'))))
        .execute(),
    ),
    // An order's booking item names a booking that points back at the order.
    ordersWithoutBooking: ids(
      await db
        .selectFrom('orders as o')
        .select('o.id')
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('order_items as i')
                .innerJoin('bookings as b', (join) => join.onRef('b.id', '=', 'i.booking_id').onRef('b.order_id', '=', 'i.order_id'))
                .whereRef('i.order_id', '=', 'o.id')
                .where('i.variant', '=', 'booking')
                .select('i.id'),
            ),
          ),
        )
        .execute(),
    ),
    ordersWithoutInvoice: ids(
      await db
        .selectFrom('orders as o')
        .select('o.id')
        .where((eb) => eb.not(eb.exists(eb.selectFrom('invoices as v').whereRef('v.order_id', '=', 'o.id').select('v.id'))))
        .execute(),
    ),
    itemsWithoutBooking: ids(await db.selectFrom('order_items as i').leftJoin('bookings as b', 'b.id', 'i.booking_id').select('i.id').where('b.id', 'is', null).execute()),
    invoicesWithoutOrder: ids(await db.selectFrom('invoices as v').leftJoin('orders as o', 'o.id', 'v.order_id').select('v.id').where('o.id', 'is', null).execute()),
    metaWithoutBooking: (
      await db.selectFrom('booking_meta as m').leftJoin('bookings as b', 'b.id', 'm.booking_id').select('m.booking_id').where('b.id', 'is', null).execute()
    ).map((m) => m.booking_id),
    // Customers the load created exist only with the booking that named them.
    customersWithoutBooking: ids(
      await db
        .selectFrom('customers as c')
        .select('c.id')
        .where('c.email', 'like', 'crash-%')
        .where((eb) => eb.not(eb.exists(eb.selectFrom('bookings as b').whereRef('b.customer_id', '=', 'c.id').select('b.id'))))
        .execute(),
    ),
    mailsAboutNoBooking: await mailsAboutMissingBookings(db),
    overlappingPairs: (
      await sql<{ first: number; second: number }>`
        select a.id as first, b.id as second
        from bookings a join bookings b on a.agent_id = b.agent_id and a.id < b.id
        where a.status <> 'cancelled' and b.status <> 'cancelled'
          and a.start_at < b.end_at and b.start_at < a.end_at`.execute(db)
    ).rows,
  };
}

/** The bookings that queued confirmation mails name. */
async function confirmedBookingIds(db: Db): Promise<number[]> {
  const mails = await db.selectFrom('outbox').select('payload').where('kind', '=', 'booking_confirmation').execute();
  return mails.map((m) => (JSON.parse(m.payload) as { booking_id: number }).booking_id);
}

/** Confirmation mails queued for bookings that do not exist. */
async function mailsAboutMissingBookings(db: Db): Promise<number[]> {
  const mailed = await confirmedBookingIds(db);
  if (mailed.length === 0) return [];
  const existing = new Set(ids(await db.selectFrom('bookings').select('id').where('id', 'in', mailed).execute()));
  return mailed.filter((id) => !existing.has(id));
}
