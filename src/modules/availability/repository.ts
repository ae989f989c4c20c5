import type { Db } from '../../db/database.js';
import type { BusyBooking, Span } from './engine.js';

/**
 * Every booking lies inside one working period of one local day (create and reschedule check
 * it), so none lasts longer than a 25-hour DST day. Bounding start_at from below by this lets
 * the (agent_id, start_at) index read only the bookings near the asked range, not an agent's
 * whole history.
 */
const LONGEST_BOOKING_MS = 26 * 3_600_000;

export function isoOf(instant: number): string {
  return new Date(instant).toISOString();
}

export interface ServiceRow {
  id: number;
  name: string;
  duration: number;
  capacity_max: number;
  status: 'active' | 'disabled';
  price_min_cents: number;
  charge_amount_cents: number;
}

export function findService(db: Db, id: number): Promise<ServiceRow | undefined> {
  return db
    .selectFrom('services')
    .select(['id', 'name', 'duration', 'capacity_max', 'status', 'price_min_cents', 'charge_amount_cents'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface AgentRow {
  id: number;
  status: 'active' | 'disabled';
  schedule: string | null;
}

export function findAgent(db: Db, id: number): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').select(['id', 'status', 'schedule']).where('id', '=', id).executeTakeFirst();
}

export function findLocation(db: Db, id: number): Promise<{ id: number; status: 'active' | 'inactive' } | undefined> {
  return db.selectFrom('locations').select(['id', 'status']).where('id', '=', id).executeTakeFirst();
}

export interface ConnectionRow extends AgentRow {
  custom_duration: number | null;
  custom_price_cents: number | null;
  custom_hours: string | null;
}

/** The agents connected to a service (all of them, or those among `agentIds`), by id. */
export function connectedAgents(db: Db, serviceId: number, agentIds?: readonly number[]): Promise<ConnectionRow[]> {
  let query = db
    .selectFrom('agent_services as c')
    .innerJoin('agents as a', 'a.id', 'c.agent_id')
    .select(['a.id', 'a.status', 'a.schedule', 'c.custom_duration', 'c.custom_price_cents', 'c.custom_hours'])
    .where('c.service_id', '=', serviceId);
  if (agentIds) query = query.where('a.id', 'in', agentIds.length > 0 ? [...agentIds] : [0]);
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

/**
 * Where a booking without a location takes place: the agent's first active location (lowest
 * id), else, for an agent tied to no location, the site's first active one (order_number, id).
 */
export async function defaultLocationOf(db: Db, agentId: number): Promise<number | undefined> {
  const own = await db
    .selectFrom('agent_locations as al')
    .innerJoin('locations as l', 'l.id', 'al.location_id')
    .select('l.id')
    .where('al.agent_id', '=', agentId)
    .where('l.status', '=', 'active')
    .orderBy('l.id')
    .limit(1)
    .executeTakeFirst();
  if (own) return own.id;
  const linked = await db.selectFrom('agent_locations').select('location_id').where('agent_id', '=', agentId).limit(1).executeTakeFirst();
  if (linked) return undefined;
  const site = await db
    .selectFrom('locations')
    .select('id')
    .where('status', '=', 'active')
    .orderBy('order_number')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return site?.id;
}

export interface AgentBooking extends BusyBooking {
  agentId: number;
}

/**
 * The bookings of these agents that occupy time (not cancelled) and overlap `range`, except
 * `excludeId` (the booking being changed). Served by the (agent_id, start_at) index, bounded on
 * both sides.
 */
export function busyBookingsQuery(db: Db, agentIds: readonly number[], range: Span, excludeId?: number) {
  let query = db
    .selectFrom('bookings')
    .select(['id', 'agent_id', 'service_id', 'start_at', 'end_at'])
    .where('agent_id', 'in', agentIds.length > 0 ? [...agentIds] : [0])
    .where('start_at', '<', isoOf(range.end))
    .where('start_at', '>', isoOf(range.start - LONGEST_BOOKING_MS))
    .where('end_at', '>', isoOf(range.start))
    .where('status', '!=', 'cancelled');
  if (excludeId !== undefined) query = query.where('id', '!=', excludeId);
  return query.orderBy('start_at').orderBy('id');
}

export async function busyBookings(db: Db, agentIds: readonly number[], range: Span, excludeId?: number): Promise<AgentBooking[]> {
  if (agentIds.length === 0) return [];
  const rows = await busyBookingsQuery(db, agentIds, range, excludeId).execute();
  return rows.map((r) => ({
    id: r.id,
    agentId: r.agent_id,
    serviceId: r.service_id,
    start: Date.parse(r.start_at),
    end: Date.parse(r.end_at),
  }));
}
