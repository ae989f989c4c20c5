import { DateTime } from 'luxon';
import type { Db } from '../src/db/database.js';
import { bumpBusyVersions } from '../src/modules/availability/repository.js';
import { newCustomerRow } from '../src/modules/customers/repository.js';
import { readableCode } from '../src/lib/random.js';
import { invoiceRow, orderItemRow, orderRow } from '../src/modules/orders/repository.js';
import { setSettings } from '../src/modules/settings/service.js';
import { WEEKDAYS, type Schedule, type Weekly } from '../src/modules/schedules/model.js';
import { writeSiteSchedule } from '../src/modules/schedules/repository.js';

/** The benchmark site: agents work every day 08:00–20:00 in Europe/Berlin, bookings start on the half hour. */
export const BENCH_TIMEZONE = 'Europe/Berlin';
export const DAY_START_HOUR = 8;
export const DAY_END_HOUR = 20;
const SLOTS_PER_DAY = (DAY_END_HOUR - DAY_START_HOUR) * 2;
const BATCH = 500;
/** Every generated booking's price, and so its order's, item's and invoice's. */
const PRICE_CENTS = 4500;

/** Agents who offer the same services, and only those. */
export interface Team {
  agentIds: number[];
  serviceIds: number[];
}

export interface Catalog {
  agentIds: number[];
  serviceIds: number[];
  locationIds: number[];
  customerIds: number[];
  teams: Team[];
}

/** The team of an agent of the catalog. */
export function teamOf(catalog: Catalog, agentId: number): Team {
  const team = catalog.teams.find((t) => t.agentIds.includes(agentId));
  if (!team) throw new Error(`agent ${agentId} is in no team`);
  return team;
}

/** Deterministic pseudo-random numbers, so two runs measure the same data. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Progress = (label: string, done: number, total: number) => void;

export function progressBar(stream: NodeJS.WriteStream = process.stderr): Progress {
  let last = -1;
  return (label, done, total) => {
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    if (percent === last && done !== total) return;
    last = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    stream.write(`\r  ${label.padEnd(10)} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(percent).padStart(3)}% ${done}/${total}`);
    if (done === total) {
      stream.write('\n');
      last = -1;
    }
  };
}

async function insertBatched<T>(db: Db, rows: T[], write: (trx: Db, chunk: T[]) => Promise<unknown>, label: string, progress: Progress) {
  for (let i = 0; i < rows.length; i += BATCH) {
    const chunk = rows.slice(i, i + BATCH);
    await db.transaction().execute((trx) => write(trx, chunk));
    progress(label, Math.min(i + BATCH, rows.length), rows.length);
  }
}

/**
 * Site settings, the services, 2 locations, the agents and the customers. Agents and services are
 * split into `teams` equal teams, each agent offering its team's services (as a salon's stylists
 * offer the cuts, its beauticians the treatments); every agent works at both locations.
 */
export async function generateCatalog(
  db: Db,
  counts: { agents: number; services: number; teams: number; customers: number },
  progress: Progress,
): Promise<Catalog> {
  const at = new Date().toISOString();
  const hours = [{ start: `${String(DAY_START_HOUR).padStart(2, '0')}:00`, end: `${DAY_END_HOUR}:00` }];
  const schedule: Schedule = { weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, hours])) as Weekly, exceptions: [] };
  // The bench books 400 days ahead and more: past the default booking window of 365 days.
  await setSettings(db, { timezone: BENCH_TIMEZONE, slot_interval_minutes: 30, min_lead_minutes: 0, max_advance_days: 3660 });
  await writeSiteSchedule(db, schedule);

  const locationIds: number[] = [];
  for (const name of ['Downtown', 'Riverside']) {
    const row = await db
      .insertInto('locations')
      .values({ name, full_address: `${name} 1`, status: 'active', category_id: null, order_number: 0, selection_image_id: 0, created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    locationIds.push(row.id);
  }
  const serviceIds: number[] = [];
  for (let i = 1; i <= counts.services; i++) {
    const price = 2000 + i * 250;
    const row = await db
      .insertInto('services')
      .values({
        name: `Service ${i}`,
        short_description: `Short description ${i}`,
        description: `Description of service ${i}`,
        duration: i % 2 === 0 ? 60 : 30,
        price_min_cents: price,
        price_max_cents: price,
        charge_amount_cents: price,
        deposit_amount_cents: 0,
        capacity_min: 1,
        capacity_max: 1,
        order_number: i,
        selection_image_id: 0,
        status: 'active',
        visibility: 'visible',
        category_id: null,
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    serviceIds.push(row.id);
  }
  const teams: Team[] = Array.from({ length: counts.teams }, (_, t) => ({
    agentIds: [],
    serviceIds: serviceIds.filter((_, i) => Math.floor((i * counts.teams) / serviceIds.length) === t),
  }));
  const agentIds: number[] = [];
  for (let i = 1; i <= counts.agents; i++) {
    const team = teams[Math.floor(((i - 1) * counts.teams) / counts.agents)]!;
    const row = await db
      .insertInto('agents')
      .values({
        first_name: `Agent${i}`,
        last_name: 'Bench',
        display_name: null,
        email: `agent${i}@bench.test`,
        phone: null,
        bio: null,
        features: null,
        status: 'active',
        schedule: null,
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    agentIds.push(row.id);
    team.agentIds.push(row.id);
    await db
      .insertInto('agent_services')
      .values(team.serviceIds.map((service_id) => ({ agent_id: row.id, service_id, custom_price_cents: null, custom_duration: null, custom_hours: null })))
      .execute();
    await db.insertInto('agent_locations').values(locationIds.map((location_id) => ({ agent_id: row.id, location_id }))).execute();
  }

  const customers = Array.from({ length: counts.customers }, (_, i) => ({
    ...newCustomerRow(
      {
        first_name: `First${i + 1}`,
        last_name: `Last${i + 1}`,
        email: `customer${i + 1}@bench.test`,
        email_lower: `customer${i + 1}@bench.test`,
        phone: `+4930${String(1000000 + i)}`,
      },
      at,
    ),
    customer_code: `BENCH${i + 1}`,
  }));
  const customerIds: number[] = [];
  await insertBatched(
    db,
    customers,
    async (trx, chunk) => {
      const ids = await trx.insertInto('customers').values(chunk).returning('id').execute();
      customerIds.push(...ids.map((r) => r.id));
    },
    'customers',
    progress,
  );
  return { agentIds, serviceIds, locationIds, customerIds, teams };
}

const YEAR_MS = 365 * 24 * 3_600_000;

export interface PlannedBooking {
  agentId: number;
  /** Half-hour slot index from the first day's opening: day × slots per day + slot of the day. */
  slot: number;
}

/**
 * `count` bookings spread over `days` days, never overlapping for an agent (each takes a distinct
 * half-hour of its agent), in a shuffled order: any prefix of the plan is itself spread over the
 * whole year, so the benchmark can load a tenth, measure, then load the rest.
 */
export function planBookings(catalog: Catalog, options: { count: number; days: number; seed: number }): PlannedBooking[] {
  const random = prng(options.seed);
  const slotsPerAgent = options.days * SLOTS_PER_DAY;
  const perAgent = Math.ceil(options.count / catalog.agentIds.length);
  if (perAgent > slotsPerAgent) throw new Error(`${perAgent} bookings per agent do not fit in ${slotsPerAgent} slots`);
  const planned: PlannedBooking[] = [];
  for (const agentId of catalog.agentIds) {
    let chosen = 0;
    for (let slot = 0; slot < slotsPerAgent && chosen < perAgent; slot++) {
      // Pick with the probability that leaves exactly enough slots for the rest.
      if (random() < (perAgent - chosen) / (slotsPerAgent - slot)) {
        planned.push({ agentId, slot });
        chosen++;
      }
    }
  }
  planned.length = Math.min(planned.length, options.count);
  for (let i = planned.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [planned[i], planned[j]] = [planned[j]!, planned[i]!];
  }
  return planned;
}

/**
 * Inserts planned bookings, each of a service its agent offers, with its order, booking item and
 * invoice as the service writes them.
 */
export async function insertBookings(
  db: Db,
  catalog: Catalog,
  planned: readonly PlannedBooking[],
  options: { firstDay: string; seed: number },
  progress: Progress,
): Promise<void> {
  const random = prng(options.seed);
  const start = DateTime.fromISO(options.firstDay, { zone: BENCH_TIMEZONE });
  const at = new Date().toISOString();
  let done = 0;
  for (let i = 0; i < planned.length; i += BATCH) {
    const chunk = planned.slice(i, i + BATCH);
    await db.transaction().execute(async (trx) => {
      const customerIds = chunk.map(() => catalog.customerIds[Math.floor(random() * catalog.customerIds.length)]!);
      // Codes as the service makes them, as if the bookings were made over the past year: spread
      // over the unique indexes as a year of use spreads them, where new codes land.
      const madeAt = chunk.map(() => Date.now() - random() * YEAR_MS);
      const orders = await trx
        .insertInto('orders')
        .values(
          customerIds.map((customerId, k) =>
            orderRow({
              confirmationCode: readableCode(madeAt[k]),
              customerId,
              status: 'open',
              subtotalCents: PRICE_CENTS,
              totalCents: PRICE_CENTS,
              couponId: null,
              couponCode: null,
              couponDiscountCents: 0,
              paymentStatus: 'not_paid',
              at,
            }),
          ),
        )
        .returning('id')
        .execute();
      const rows = chunk.map(({ agentId, slot }, k) => {
        const day = Math.floor(slot / SLOTS_PER_DAY);
        const minuteOfDay = DAY_START_HOUR * 60 + (slot % SLOTS_PER_DAY) * 30;
        const local = start.plus({ days: day }).set({ hour: Math.floor(minuteOfDay / 60), minute: minuteOfDay % 60 });
        const end = local.plus({ minutes: 30 });
        const services = teamOf(catalog, agentId).serviceIds;
        const serviceId = services[Math.floor(random() * services.length)]!;
        const status = random() < 0.1 ? ('cancelled' as const) : random() < 0.3 ? ('pending' as const) : ('approved' as const);
        return {
          booking_code: readableCode(madeAt[k]),
          status,
          payment_status: 'not_paid' as const,
          service_id: serviceId,
          agent_id: agentId,
          location_id: catalog.locationIds[agentId % catalog.locationIds.length]!,
          customer_id: customerIds[k]!,
          order_id: orders[k]!.id,
          start_date: local.toFormat('yyyy-MM-dd'),
          start_time: local.toFormat('HH:mm'),
          end_date: end.toFormat('yyyy-MM-dd'),
          end_time: end.toFormat('HH:mm'),
          timezone: BENCH_TIMEZONE,
          start_at: local.toUTC().toISO()!,
          end_at: end.toUTC().toISO()!,
          duration: 30,
          buffer_before: 0,
          buffer_after: 0,
          price_cents: PRICE_CENTS,
          notes: null,
          customer_comment: null,
          scheduled_at: at,
          created_at: at,
          updated_at: at,
        };
      });
      const bookings = await trx.insertInto('bookings').values(rows).returning('id').execute();
      // As the bookings repository does: a running service sees these agents' busy times change.
      await bumpBusyVersions(trx, rows);
      await trx
        .insertInto('order_items')
        .values(bookings.map((b, k) => orderItemRow(orders[k]!.id, b.id, JSON.stringify({ booking_id: b.id }), PRICE_CENTS, 'active', at)))
        .execute();
      await trx
        .insertInto('invoices')
        .values(orders.map((o, k) => invoiceRow({ orderId: o.id, invoiceNumber: `INV-${readableCode(madeAt[k])}`, priceCents: PRICE_CENTS, status: 'open', statusBeforeClose: null, portion: 'full', dueAt: null, at })))
        .execute();
    });
    done += chunk.length;
    progress('bookings', done, planned.length);
  }
}

/**
 * The plan reordered so that every booking of the first `days` days comes first, then the rest:
 * loading the first part alone and then the rest adds bookings only outside that window, which is
 * how the bench shows that a window's cost does not depend on bookings outside it.
 */
export function windowFirst(planned: readonly PlannedBooking[], days: number): PlannedBooking[] {
  const inWindow = (p: PlannedBooking) => p.slot < days * SLOTS_PER_DAY;
  return [...planned.filter(inWindow), ...planned.filter((p) => !inWindow(p))];
}

/**
 * Bodies of POST /bookings for the year after the generated one: one free half-hour each, never
 * conflicting with each other or the generated bookings, each of a service its agent offers.
 */
export function freeSlots(catalog: Catalog, firstDay: string): () => Record<string, string | number> {
  const slotsPerDay = (DAY_END_HOUR - DAY_START_HOUR) * 2;
  let slot = 0;
  return () => {
    const n = slot++;
    const agent = catalog.agentIds[n % catalog.agentIds.length]!;
    const perAgent = Math.floor(n / catalog.agentIds.length);
    const minute = DAY_START_HOUR * 60 + (perAgent % slotsPerDay) * 30;
    const date = DateTime.fromISO(firstDay).plus({ days: 400 + Math.floor(perAgent / slotsPerDay) });
    return {
      service_id: teamOf(catalog, agent).serviceIds[1]!,
      agent_id: agent,
      location_id: catalog.locationIds[agent % catalog.locationIds.length]!,
      start_date: date.toFormat('yyyy-MM-dd'),
      start_time: `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`,
      duration: 30,
      customer_id: catalog.customerIds[n % catalog.customerIds.length]!,
    };
  };
}
