import { sql, type ExpressionBuilder, type OnConflictDatabase, type OnConflictTables, type SqlBool } from 'kysely';
import type { Database, Db } from '../../db/database.js';
import { prepareRowsQuery, prepareQuery } from '../../db/prepared.js';
import type { BusyBooking, Span } from './engine.js';
import { MAX_BUFFER_MINUTES, MAX_BULK_BOOKINGS } from '../../core/limits.js';

/**
 * Every booking lies inside one working period of one local day (create and reschedule check
 * it), so none lasts longer than a 25-hour DST day. Bounding start_at from below by this lets
 * the (agent_id, start_at) index read only the bookings near the asked range, not an agent's
 * whole history. Checks under an agent's lock bound it tighter, by the agent's longest booking
 * (longestBookingMs).
 */
export const LONGEST_BOOKING_MS = 26 * 3_600_000;

/**
 * How far beyond a span the bookings that decide whether it is free may lie: a booking's
 * buffers, or the span's own, may keep them apart by up to the widest buffer allowed (buffers
 * may overlap each other, so never by the two together).
 */
export const BUFFER_REACH_MS = MAX_BUFFER_MINUTES * 60_000;

/** How far around an asked range a read of agents' bookings goes. */
export interface BusyBounds {
  /** Before the range's reach, how far back a booking reaching into it may start (lookbackOf). */
  lookbackMs: number;
  /** Either side of the range: the widest buffer of the agents' bookings or of the span checked. */
  reachMs: number;
}

/** The bounds that hold whatever the agents' bookings: the longest booking and widest buffer allowed. */
export const WIDEST_BOUNDS: BusyBounds = { lookbackMs: LONGEST_BOOKING_MS, reachMs: BUFFER_REACH_MS };

/**
 * The bounds of a check of an agent whose busy-time row says this (undefined: no row, so the
 * widest), for a span keeping `ownBufferMs` free on either side.
 */
/** What a busy-time row records of an agent's bookings (null: read through a join that found no row). */
type BoundsRow = { longest_booking_ms: number | null; widest_buffer_ms: number | null };

export function boundsOf(row: BoundsRow | undefined, ownBufferMs: number): BusyBounds {
  return {
    lookbackMs: lookbackOf(row?.longest_booking_ms ?? null),
    reachMs: Math.max(ownBufferMs, row?.widest_buffer_ms ?? BUFFER_REACH_MS),
  };
}

/** The bounds that cover every one of these agents' busy-time rows (undefined: an agent without one). */
export function boundsOfAgents(rows: readonly (BoundsRow | undefined)[], ownBufferMs: number): BusyBounds {
  const covering = rows.map((row) => boundsOf(row, ownBufferMs));
  return {
    lookbackMs: Math.max(0, ...covering.map((b) => b.lookbackMs)),
    reachMs: Math.max(ownBufferMs, ...covering.map((b) => b.reachMs)),
  };
}

/** The range whose bookings may keep some part of `range` from being booked, buffers counted. */
export function reachOf(range: Span, reachMs: number = BUFFER_REACH_MS): Span {
  return { start: range.start - reachMs, end: range.end + reachMs };
}

export function isoOf(instant: number): string {
  return new Date(instant).toISOString();
}

// Stored instants are ISO text of the years 0000–9999, which sorts as time does; ISO text of
// later years ("+010000-…") would sort before them all. Bounds beyond them (a cache block
// reaching past 9999) are clamped to their ends, and no booking may end after the last one.
const FIRST_STORABLE_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
export const LAST_STORABLE_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** An instant as a bound on stored instants. */
export function isoBound(instant: number): string {
  return isoOf(Math.min(Math.max(instant, FIRST_STORABLE_INSTANT), LAST_STORABLE_INSTANT));
}

export interface ServiceRow {
  id: number;
  name: string;
  duration: number;
  capacity_max: number;
  status: 'active' | 'disabled';
  price_min_cents: number;
  charge_amount_cents: number;
  /** Minutes kept free before and after each booking, unless the agent's connection says otherwise. */
  buffer_before: number;
  buffer_after: number;
  /** The booking window, where it differs from the site's (min_lead_minutes, max_advance_days). */
  min_notice_minutes: number | null;
  max_advance_days: number | null;
  /** Above 0, a booking's order is invoiced in two: this deposit, then the remainder (docs/money.md). */
  deposit_amount_cents: number;
}

const SERVICE_COLUMNS = ['id', 'name', 'duration', 'capacity_max', 'status', 'price_min_cents', 'charge_amount_cents', 'buffer_before', 'buffer_after', 'min_notice_minutes', 'max_advance_days', 'deposit_amount_cents'] as const;

// Every availability request and booking write reads its service: prepared, it skips Kysely's
// building and compiling, and on SQLite its executor.
const liveService = prepareQuery((db: Db, id: number) => db.selectFrom('services').select(SERVICE_COLUMNS).where('id', '=', id).where('deleted_at', 'is', null));
const anyService = prepareQuery((db: Db, id: number) => db.selectFrom('services').select(SERVICE_COLUMNS).where('id', '=', id));

/** A service; a deleted one (kept for the bookings that name it) only when asked for. */
export function findService(db: Db, id: number, options: { includeDeleted?: boolean } = {}): Promise<ServiceRow | undefined> {
  return (options.includeDeleted ? anyService : liveService).executeTakeFirst(db, id);
}

export interface AgentRow {
  id: number;
  status: 'active' | 'disabled';
  schedule: string | null;
}

/** An agent that is not deleted. */
export function findAgent(db: Db, id: number): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').select(['id', 'status', 'schedule']).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** A location that is not deleted. */
export function findLocation(db: Db, id: number): Promise<{ id: number; status: 'active' | 'inactive' } | undefined> {
  return db.selectFrom('locations').select(['id', 'status']).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

export interface ConnectionRow extends AgentRow {
  custom_duration: number | null;
  custom_price_cents: number | null;
  custom_hours: string | null;
  /** The agent's buffers for the service, minutes; null: the service's. */
  buffer_before: number | null;
  buffer_after: number | null;
}

export interface VersionedConnectionRow extends ConnectionRow {
  /** How many times the agent's bookings changed (bumpBusyVersions). */
  busy_version: number;
}

/**
 * Whether the agent `a` has a location for a booking that names none (defaultLocationOf): an
 * active location of its own, or, tied to none, an active location of the site.
 */
export function hasDefaultLocation() {
  return sql<SqlBool>`(exists (select 1 from agent_locations own join locations ol on ol.id = own.location_id where own.agent_id = a.id and ol.status = 'active')
    or (not exists (select 1 from agent_locations tied where tied.agent_id = a.id) and exists (select 1 from locations site where site.status = 'active')))`;
}

function connectedQuery(db: Db, serviceId: number) {
  return db
    .selectFrom('agent_services as c')
    .innerJoin('agents as a', 'a.id', 'c.agent_id')
    .leftJoin('agent_busy_versions as v', 'v.agent_id', 'a.id')
    .select(['a.id', 'a.status', 'a.schedule', 'c.custom_duration', 'c.custom_price_cents', 'c.custom_hours', 'c.buffer_before', 'c.buffer_after'])
    .select((eb) => eb.fn.coalesce('v.version', sql.lit(0)).as('busy_version'))
    .where('c.service_id', '=', serviceId);
}

// The shapes every availability request and booking write asks for: all of a service's agents,
// or one of them, with or without a location. Prepared, they skip Kysely's building and
// compiling (a fifth of an availability request's time), and on SQLite its executor.
const allConnected = prepareQuery((db: Db, serviceId: number) => connectedQuery(db, serviceId).orderBy('a.id'));
const allConnectedWithoutLocation = prepareQuery((db: Db, serviceId: number) => connectedQuery(db, serviceId).where(hasDefaultLocation()).orderBy('a.id'));
const oneConnected = prepareQuery((db: Db, serviceId: number, agentId: number) => connectedQuery(db, serviceId).where('a.id', '=', agentId));
const oneConnectedWithoutLocation = prepareQuery((db: Db, serviceId: number, agentId: number) =>
  connectedQuery(db, serviceId).where('a.id', '=', agentId).where(hasDefaultLocation()),
);

/**
 * The agents connected to a service (all of them, or those among `agentIds`), by id; with
 * `withoutLocation`, only those a booking that names no location can take place with.
 */
export function connectedAgents(db: Db, serviceId: number, agentIds?: readonly number[], withoutLocation = false): Promise<VersionedConnectionRow[]> {
  if (agentIds === undefined) return (withoutLocation ? allConnectedWithoutLocation : allConnected).execute(db, serviceId);
  const [only] = agentIds;
  if (agentIds.length === 1 && only !== undefined) return (withoutLocation ? oneConnectedWithoutLocation : oneConnected).execute(db, serviceId, only);
  let query = connectedQuery(db, serviceId).where('a.id', 'in', agentIds.length > 0 ? [...agentIds] : [0]);
  if (withoutLocation) query = query.where(hasDefaultLocation());
  return query.orderBy('a.id').execute();
}

/** Those of `agentIds` connected to the location. */
export async function agentsAtLocation(db: Db, locationId: number, agentIds: readonly number[]): Promise<Set<number>> {
  if (agentIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('agent_locations')
    .select('agent_id')
    .where('location_id', '=', locationId)
    .where('agent_id', 'in', [...agentIds])
    .execute();
  return new Set(rows.map((r) => r.agent_id));
}

export interface AgentBooking extends BusyBooking {
  agentId: number;
}

/**
 * The bounds of a check of these agents (boundsOf), from the longest booking and widest buffer
 * their busy-time rows record (raised in the transaction of every booking write, see
 * bumpBusyVersions). Read in the transaction that holds the agents' locks, they bound every
 * booking a check must see; an agent without a row falls back to the widest bounds.
 */
export async function busyBoundsOf(db: Db, agentIds: readonly number[], ownBufferMs: number): Promise<BusyBounds> {
  if (agentIds.length === 0) return boundsOfAgents([], ownBufferMs);
  const rows = await db
    .selectFrom('agent_busy_versions')
    .select(['agent_id', 'longest_booking_ms', 'widest_buffer_ms'])
    .where('agent_id', 'in', [...agentIds])
    .execute();
  const byAgent = new Map(rows.map((row) => [row.agent_id, row]));
  return boundsOfAgents(agentIds.map((id) => byAgent.get(id)), ownBufferMs);
}

/** How far before a range a check looks for bookings of an agent whose busy-time row says `longest` (null: no row). */
function lookbackOf(longest: number | null): number {
  return longest ?? LONGEST_BOOKING_MS;
}

const BUSY_COLUMNS = ['id', 'agent_id', 'service_id', 'start_at', 'end_at', 'buffer_before', 'buffer_after', 'attendees'] as const;

/**
 * The bookings of these agents that occupy time (not cancelled) and overlap `range` or lie
 * within the bounds' reach of it (reachOf), except `excludeId` (the booking being changed).
 * Served by the (agent_id, start_at) index, bounded on both sides: none of them starts the
 * bounds' lookback or more before the reach.
 */
export function busyBookingsQuery(db: Db, agentIds: readonly number[], asked: Span, excludeId?: number, bounds: BusyBounds = WIDEST_BOUNDS) {
  const range = reachOf(asked, bounds.reachMs);
  let query = db
    .selectFrom('bookings')
    .select(BUSY_COLUMNS)
    .where('agent_id', 'in', agentIds.length > 0 ? [...agentIds] : [0])
    .where('start_at', '<', isoBound(range.end))
    .where('start_at', '>', isoBound(range.start - bounds.lookbackMs))
    .where('end_at', '>', isoBound(range.start))
    .where('status', '!=', 'cancelled');
  if (excludeId !== undefined) query = query.where('id', '!=', excludeId);
  return query.orderBy('start_at').orderBy('id');
}

type BusyRow = { id: number; agent_id: number; service_id: number; start_at: string; end_at: string; buffer_before: number; buffer_after: number; attendees: number };

function agentBookingOf(r: BusyRow): AgentBooking {
  return {
    id: r.id,
    agentId: r.agent_id,
    serviceId: r.service_id,
    start: Date.parse(r.start_at),
    end: Date.parse(r.end_at),
    bufferBefore: r.buffer_before * 60_000,
    bufferAfter: r.buffer_after * 60_000,
    seats: r.attendees,
  };
}

/**
 * busyBookingsQuery's bookings within `bounds`, or within the bounds of the agents' busy-time
 * rows read now (under the agents' locks, to be exact) for a span keeping `ownBufferMs` free
 * (unknown: the widest buffer allowed).
 */
export async function busyBookings(
  db: Db,
  agentIds: readonly number[],
  range: Span,
  options: { excludeId?: number; bounds?: BusyBounds; ownBufferMs?: number } = {},
): Promise<AgentBooking[]> {
  if (agentIds.length === 0) return [];
  const bounds = options.bounds ?? (await busyBoundsOf(db, agentIds, options.ownBufferMs ?? BUFFER_REACH_MS));
  const rows = await busyBookingsQuery(db, agentIds, range, options.excludeId, bounds).execute();
  return rows.map(agentBookingOf);
}

// A create that names its agent reads that agent's bookings: an `in` list cannot be prepared.
const busyOfAgent = prepareQuery((db: Db, agentId: number, startsBefore: string, startsAfter: string, endsAfter: string) =>
  db
    .selectFrom('bookings')
    .select(BUSY_COLUMNS)
    .where('agent_id', '=', agentId)
    .where('start_at', '<', startsBefore)
    .where('start_at', '>', startsAfter)
    .where('end_at', '>', endsAfter)
    .where('status', '!=', 'cancelled')
    .orderBy('start_at')
    .orderBy('id'),
);

/**
 * busyBookings of one agent, with no booking excluded, within `bounds` (boundsOf the agent's
 * busy-time row as read in the same transaction).
 */
export async function busyBookingsOfAgent(db: Db, agentId: number, asked: Span, bounds: BusyBounds): Promise<AgentBooking[]> {
  const range = reachOf(asked, bounds.reachMs);
  const rows = await busyOfAgent.execute(db, agentId, isoBound(range.end), isoBound(range.start - bounds.lookbackMs), isoBound(range.start));
  return rows.map(agentBookingOf);
}

/** Whether busyBookings for `range` within a reach of `reachMs` may read this booking (of one of its agents). */
export function isBusyWithin(booking: Span, range: Span, reachMs: number): boolean {
  return booking.start < range.end + reachMs && booking.end > range.start - reachMs;
}

// Compiled once per number of ranges: a bulk create reads at most one range per element and
// agent it may book (fewer where they touch); more ranges are compiled on each run.
const busyOfRanges = prepareRowsQuery(
  { agentId: true, startsBefore: true, startsAfter: true, endsAfter: true },
  MAX_BULK_BOOKINGS,
  (db: Db, rows: { agentId: number; startsBefore: string; startsAfter: string; endsAfter: string }[]) =>
    db
      .selectFrom('bookings')
      .select(BUSY_COLUMNS)
      .where((eb) =>
        eb.or(
          rows.map((row) =>
            eb.and([eb('agent_id', '=', row.agentId), eb('start_at', '<', row.startsBefore), eb('start_at', '>', row.startsAfter), eb('end_at', '>', row.endsAfter)]),
          ),
        ),
      )
      .where('status', '!=', 'cancelled')
      .orderBy('start_at')
      .orderBy('id'),
);

/**
 * busyBookings of several agents, each over its own ranges, in one statement: what busyBookings
 * would read for each (agent, range) within `bounds`, in one list in the same order (start, id).
 */
export async function busyBookingsOfRanges(db: Db, wanted: readonly { agentId: number; range: Span }[], bounds: BusyBounds): Promise<AgentBooking[]> {
  const rows = await busyOfRanges.execute(
    db,
    wanted.map(({ agentId, range: asked }) => {
      const range = reachOf(asked, bounds.reachMs);
      return { agentId, startsBefore: isoBound(range.end), startsAfter: isoBound(range.start - bounds.lookbackMs), endsAfter: isoBound(range.start) };
    }),
  );
  return rows.map(agentBookingOf);
}

/**
 * The bookings of these agents that occupy time and start in `starts`, by agent and start: the
 * blocks of the busy-time cache. Served by the covering index, bounded on both sides.
 */
export async function busyBookingsStarting(db: Db, agentIds: readonly number[], starts: Span): Promise<AgentBooking[]> {
  if (agentIds.length === 0) return [];
  const rows = await db
    .selectFrom('bookings')
    .select(BUSY_COLUMNS)
    .where('agent_id', 'in', [...agentIds])
    .where('start_at', '>=', isoBound(starts.start))
    .where('start_at', '<', isoBound(starts.end))
    .where('status', '!=', 'cancelled')
    .orderBy('agent_id')
    .orderBy('start_at')
    .orderBy('id')
    .execute();
  return rows.map(agentBookingOf);
}

/** What a booking write tells the agent's busy-time row: whose booking, the time it spans and the buffers it keeps (minutes). */
export type BookingSpan = { agent_id: number; start_at: string; end_at: string; buffer_before: number; buffer_after: number };

/** The greater of the row's value and the written one: the bounds a busy-time row records only grow. */
function raised(eb: ExpressionBuilder<OnConflictDatabase<Database, 'agent_busy_versions'>, OnConflictTables<'agent_busy_versions'>>, column: 'longest_booking_ms' | 'widest_buffer_ms') {
  return eb
    .case()
    .when(`excluded.${column}`, '>', eb.ref(`agent_busy_versions.${column}`))
    .then(eb.ref(`excluded.${column}`))
    .else(eb.ref(`agent_busy_versions.${column}`))
    .end();
}

// Compiled once per number of agents: a single write changes one or two agents' bookings, a bulk
// create those of its bookings. On an agent's existing row: the next version, the longer of the
// two longest bookings and the wider of the two widest buffers.
const bumpRows = prepareRowsQuery(
  { agentId: true, spanMs: true, bufferMs: true },
  MAX_BULK_BOOKINGS,
  (db: Db, rows: { agentId: number; spanMs: number; bufferMs: number }[]) =>
    db
      .insertInto('agent_busy_versions')
      .values(rows.map((row) => ({ agent_id: row.agentId, version: 1, longest_booking_ms: row.spanMs, widest_buffer_ms: row.bufferMs })))
      .onConflict((oc) =>
        oc.column('agent_id').doUpdateSet((eb) => ({
          version: eb('agent_busy_versions.version', '+', 1),
          longest_booking_ms: raised(eb, 'longest_booking_ms'),
          widest_buffer_ms: raised(eb, 'widest_buffer_ms'),
        })),
      ),
);

/**
 * Raises the busy-time version of each agent (migration 0013) and, to at least each booking's
 * span and buffers, the agent's longest booking and widest buffer (migrations 0014 and 0019).
 * Every write of bookings rows calls it in its own transaction with the rows as they were and as
 * they are, so that no instance keeps serving busy times its version no longer describes, and no
 * check under the agent's lock reads less far around its span than the agent's bookings reach.
 */
export async function bumpBusyVersions(db: Db, bookings: readonly BookingSpan[]): Promise<void> {
  const byAgent = new Map<number, { spanMs: number; bufferMs: number }>();
  for (const b of bookings) {
    const known = byAgent.get(b.agent_id) ?? { spanMs: 0, bufferMs: 0 };
    byAgent.set(b.agent_id, {
      spanMs: Math.max(known.spanMs, Date.parse(b.end_at) - Date.parse(b.start_at)),
      bufferMs: Math.max(known.bufferMs, Math.max(b.buffer_before, b.buffer_after) * 60_000),
    });
  }
  // Sorted: two transactions raising the same rows take their locks in the same order.
  await bumpRows.execute(db, [...byAgent].sort(([a], [b]) => a - b).map(([agentId, bounds]) => ({ agentId, ...bounds })));
}
