import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepareRowsQuery } from '../../db/prepared.js';
import { hasDefaultLocation } from '../availability/index.js';
import { MAX_BULK_BOOKINGS } from '../../core/limits.js';

/* The reads behind references.ts: a booking request's records, joined across the catalog's tables. */

/**
 * The records one booking request names, to look up: each id as the request gives it (not yet
 * known to exist), and a new customer's lower-cased email. Null where the request names none.
 */
export interface Probe {
  serviceId: number | null;
  agentId: number | null;
  locationId: number | null;
  customerId: number | null;
  emailLower: string | null;
}

function probeRow(db: Db, probe: Probe, index: number) {
  // Typed parameters: PostgreSQL cannot infer the type of a bare parameter in a select list.
  const integer = (value: number | null) => sql<number | null>`cast(${value} as integer)`;
  return db.selectNoFrom([
    sql<number>`cast(${index} as integer)`.as('n'),
    integer(probe.serviceId).as('service_id'),
    integer(probe.agentId).as('agent_id'),
    integer(probe.locationId).as('location_id'),
    integer(probe.customerId).as('customer_id'),
    sql<string | null>`cast(${probe.emailLower} as text)`.as('email_lower'),
  ]);
}

/** The statement of probeReferences; of one fixed shape for a given number of probes. */
function probeQuery(db: Db, probes: readonly Probe[]) {
  const [first, ...rest] = probes as [Probe, ...Probe[]];
  const table = rest.reduce((union, probe, index) => union.unionAll(probeRow(db, probe, index + 1)), probeRow(db, first, 0));
  return db
    .selectFrom(table.as('p'))
    // A deleted service, agent or location is kept for the bookings that name it, but to a new
    // booking it does not exist (as to GET, which answers 404 for it).
    .leftJoin('services as s', (join) => join.onRef('s.id', '=', 'p.service_id').on('s.deleted_at', 'is', null))
    .leftJoin('agents as a', (join) => join.onRef('a.id', '=', 'p.agent_id').on('a.deleted_at', 'is', null))
    .leftJoin('agent_busy_versions as v', 'v.agent_id', 'p.agent_id')
    .leftJoin('agent_services as c', (join) => join.onRef('c.agent_id', '=', 'p.agent_id').onRef('c.service_id', '=', 'p.service_id'))
    .leftJoin('locations as l', (join) => join.onRef('l.id', '=', 'p.location_id').on('l.deleted_at', 'is', null))
    .leftJoin('location_categories as lc', 'lc.id', 'l.category_id')
    .leftJoin('agent_locations as al', (join) => join.onRef('al.agent_id', '=', 'p.agent_id').onRef('al.location_id', '=', 'p.location_id'))
    .leftJoin('customers as cu', 'cu.id', 'p.customer_id')
    .leftJoin('customers as ce', 'ce.email_lower', 'p.email_lower')
    .select([
      'p.n',
      's.id as s_id',
      's.name as s_name',
      's.duration as s_duration',
      's.capacity_max as s_capacity_max',
      's.status as s_status',
      's.price_min_cents as s_price_min_cents',
      's.charge_amount_cents as s_charge_amount_cents',
      's.buffer_before as s_buffer_before',
      's.buffer_after as s_buffer_after',
      's.min_notice_minutes as s_min_notice_minutes',
      's.max_advance_days as s_max_advance_days',
      's.deposit_amount_cents as s_deposit_amount_cents',
      'a.id as a_id',
      'a.status as a_status',
      'a.schedule as a_schedule',
      'a.first_name as a_first_name',
      'a.last_name as a_last_name',
      'a.display_name as a_display_name',
      'a.email as a_email',
      'a.phone as a_phone',
      'v.longest_booking_ms as v_longest_booking_ms',
      'v.widest_buffer_ms as v_widest_buffer_ms',
      'c.agent_id as c_agent_id',
      'c.custom_duration as c_custom_duration',
      'c.custom_price_cents as c_custom_price_cents',
      'c.custom_hours as c_custom_hours',
      'c.buffer_before as c_buffer_before',
      'c.buffer_after as c_buffer_after',
      'l.id as l_id',
      'l.status as l_status',
      'l.name as l_name',
      'l.full_address as l_full_address',
      'lc.id as lc_id',
      'lc.name as lc_name',
      'al.agent_id as al_agent_id',
      'cu.id as cu_id',
      'cu.first_name as cu_first_name',
      'cu.last_name as cu_last_name',
      'cu.email as cu_email',
      'cu.phone as cu_phone',
      'cu.status as cu_status',
      'ce.id as ce_id',
    ])
    .orderBy('p.n');
}

// Building the statement costs more than running it: it is compiled once per number of probes.
const probeStatement = prepareRowsQuery(
  { serviceId: true, agentId: true, locationId: true, customerId: true, emailLower: true },
  MAX_BULK_BOOKINGS,
  probeQuery,
);

/** One row per probe, in the order of `probes` (column n), in one prepared statement. */
export function probeRows(db: Db, probes: readonly Probe[]) {
  return probeStatement.execute(db, probes);
}

/**
 * The agents connected to a service, by id, with their connection's columns and, where the agent
 * is tied to `locationId`, its id as al_agent_id; without a location, only the agents with a
 * default location.
 */
export function connectedAgentRows(db: Db, serviceId: number, locationId: number | null) {
  return db
    .selectFrom('agent_services as c')
    .innerJoin('agents as a', 'a.id', 'c.agent_id')
    .leftJoin('agent_busy_versions as v', 'v.agent_id', 'a.id')
    .leftJoin('agent_locations as al', (join) => join.onRef('al.agent_id', '=', 'a.id').on('al.location_id', '=', locationId))
    .select([
      'a.id',
      'a.status',
      'a.schedule',
      'a.first_name',
      'a.last_name',
      'a.display_name',
      'a.email',
      'a.phone',
      'v.longest_booking_ms',
      'v.widest_buffer_ms',
      'c.custom_duration',
      'c.custom_price_cents',
      'c.custom_hours',
      'c.buffer_before',
      'c.buffer_after',
      'al.agent_id as al_agent_id',
    ])
    .where('c.service_id', '=', serviceId)
    .$if(locationId === null, (query) => query.where(hasDefaultLocation()))
    .orderBy('a.id')
    .execute();
}

/** The location defaultLocationOf (references.ts) picks for the agent, with its category. */
export function defaultLocationRow(db: Db, agentId: number) {
  return db
    .selectFrom('locations as l')
    .leftJoin('location_categories as lc', 'lc.id', 'l.category_id')
    .select(['l.id', 'l.status', 'l.name', 'l.full_address', 'lc.id as lc_id', 'lc.name as lc_name'])
    .where('l.id', '=', (eb) =>
      eb.fn.coalesce(
        eb
          .selectFrom('agent_locations as al')
          .innerJoin('locations as own', 'own.id', 'al.location_id')
          .select('own.id')
          .where('al.agent_id', '=', agentId)
          .where('own.status', '=', 'active')
          .orderBy('own.id')
          .limit(1),
        eb
          .case()
          .when(eb.exists(eb.selectFrom('agent_locations as linked').select('linked.agent_id').where('linked.agent_id', '=', agentId)))
          .then(null)
          .else(eb.selectFrom('locations as site').select('site.id').where('site.status', '=', 'active').orderBy('site.order_number').orderBy('site.id').limit(1))
          .end(),
      ),
    )
    .executeTakeFirst();
}
