import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepareRowsQuery } from '../../db/prepared.js';
import { hasDefaultLocation, type ConnectionRow, type ServiceRow } from '../availability/index.js';
import { MAX_BULK_BOOKINGS } from '../../core/limits.js';

/** An agent as the checks of a booking and its representation need it. */
export interface AgentFacts {
  id: number;
  status: 'active' | 'disabled';
  schedule: string | null;
  first_name: string;
  last_name: string;
  display_name: string | null;
  email: string;
  phone: string | null;
  /** The longest of the agent's bookings, as its busy-time row records it; null without a row (see lookbackOf). */
  longest_booking_ms: number | null;
}

/** A location with its category, as the checks of a booking and its representation need it. */
export interface LocationFacts {
  id: number;
  status: 'active' | 'inactive';
  name: string;
  full_address: string;
  category: { id: number; name: string } | undefined;
}

export interface CustomerFacts {
  id: number;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
}

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

/** What one probe found; a record that does not exist is undefined. */
export interface ProbeResult {
  probe: Probe;
  service: ServiceRow | undefined;
  agent: AgentFacts | undefined;
  /** The agent's connection to the service (with the agent's own columns), if any. */
  connection: ConnectionRow | undefined;
  location: LocationFacts | undefined;
  /** The agent is connected to the location. */
  worksAt: boolean;
  customer: CustomerFacts | undefined;
  /** The customer who has the probe's email. */
  emailOwner: number | undefined;
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
      'a.id as a_id',
      'a.status as a_status',
      'a.schedule as a_schedule',
      'a.first_name as a_first_name',
      'a.last_name as a_last_name',
      'a.display_name as a_display_name',
      'a.email as a_email',
      'a.phone as a_phone',
      'v.longest_booking_ms as v_longest_booking_ms',
      'c.agent_id as c_agent_id',
      'c.custom_duration as c_custom_duration',
      'c.custom_price_cents as c_custom_price_cents',
      'c.custom_hours as c_custom_hours',
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
      'ce.id as ce_id',
    ])
    .orderBy('p.n');
}

// Building the statement costs more than running it: it is compiled once per number of probes.
const probeRows = prepareRowsQuery(
  { serviceId: true, agentId: true, locationId: true, customerId: true, emailLower: true },
  MAX_BULK_BOOKINGS,
  probeQuery,
);

/**
 * Every record the probes name, in one statement: each probe is a row joined to the service,
 * agent, connection, location (and category), the agent's tie to the location and the customer,
 * all by primary or unique key, so each probe yields exactly one row.
 */
export async function probeReferences(db: Db, probes: readonly Probe[]): Promise<ProbeResult[]> {
  const rows = await probeRows.execute(db, probes);
  return rows.map((row) => {
    const agent =
      row.a_id === null
        ? undefined
        : {
            id: row.a_id,
            status: row.a_status as AgentFacts['status'],
            schedule: row.a_schedule,
            first_name: row.a_first_name as string,
            last_name: row.a_last_name as string,
            display_name: row.a_display_name,
            email: row.a_email as string,
            phone: row.a_phone,
            longest_booking_ms: row.v_longest_booking_ms,
          };
    return {
      probe: probes[row.n] as Probe,
      service:
        row.s_id === null
          ? undefined
          : {
              id: row.s_id,
              name: row.s_name as string,
              duration: row.s_duration as number,
              capacity_max: row.s_capacity_max as number,
              status: row.s_status as ServiceRow['status'],
              price_min_cents: row.s_price_min_cents as number,
              charge_amount_cents: row.s_charge_amount_cents as number,
            },
      agent,
      connection:
        agent === undefined || row.c_agent_id === null
          ? undefined
          : {
              id: agent.id,
              status: agent.status,
              schedule: agent.schedule,
              custom_duration: row.c_custom_duration,
              custom_price_cents: row.c_custom_price_cents,
              custom_hours: row.c_custom_hours,
            },
      location:
        row.l_id === null
          ? undefined
          : {
              id: row.l_id,
              status: row.l_status as LocationFacts['status'],
              name: row.l_name as string,
              full_address: row.l_full_address as string,
              category: row.lc_id === null ? undefined : { id: row.lc_id, name: row.lc_name as string },
            },
      worksAt: row.al_agent_id !== null,
      customer:
        row.cu_id === null
          ? undefined
          : {
              id: row.cu_id,
              first_name: row.cu_first_name as string,
              last_name: row.cu_last_name as string,
              email: row.cu_email,
              phone: row.cu_phone,
            },
      emailOwner: row.ce_id ?? undefined,
    };
  });
}

/**
 * The agents connected to a service, by id, each with its connection and whether it is tied to
 * `locationId`; without one, only the agents with a default location (a booking needs one).
 */
export async function connectedAgentFacts(
  db: Db,
  serviceId: number,
  locationId: number | null,
): Promise<{ agent: AgentFacts; connection: ConnectionRow; worksAt: boolean }[]> {
  const rows = await db
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
      'c.custom_duration',
      'c.custom_price_cents',
      'c.custom_hours',
      'al.agent_id as al_agent_id',
    ])
    .where('c.service_id', '=', serviceId)
    .$if(locationId === null, (query) => query.where(hasDefaultLocation()))
    .orderBy('a.id')
    .execute();
  return rows.map(({ custom_duration, custom_price_cents, custom_hours, al_agent_id, ...agent }) => ({
    agent,
    connection: { id: agent.id, status: agent.status, schedule: agent.schedule, custom_duration, custom_price_cents, custom_hours },
    worksAt: al_agent_id !== null,
  }));
}

/**
 * Where a booking without a location takes place: the agent's first active location (lowest
 * id), else, for an agent tied to no location, the site's first active one (order_number, id).
 * Undefined for an agent whose every location is inactive.
 */
export async function defaultLocationOf(db: Db, agentId: number): Promise<LocationFacts | undefined> {
  const row = await db
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
  if (!row) return undefined;
  return {
    id: row.id,
    status: row.status,
    name: row.name,
    full_address: row.full_address,
    category: row.lc_id === null ? undefined : { id: row.lc_id, name: row.lc_name as string },
  };
}
