import type { Db } from '../../db/database.js';
import { type ConnectionRow, type ServiceRow } from '../availability/index.js';
import { connectedAgentRows, defaultLocationRow, probeRows, type Probe } from './reference-repository.js';

export type { Probe } from './reference-repository.js';

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
  /** The longest of the agent's bookings, as its busy-time row records it; null without a row (see boundsOf). */
  longest_booking_ms: number | null;
  /** The widest buffer of the agent's bookings, as its busy-time row records it; null without a row (see boundsOf). */
  widest_buffer_ms: number | null;
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

/** A customer already stored, with the status that decides whether it may be booked. */
export interface StoredCustomerFacts extends CustomerFacts {
  status: string;
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
  customer: StoredCustomerFacts | undefined;
  /** The customer who has the probe's email. */
  emailOwner: number | undefined;
}

/**
 * Every record the probes name, in one statement: each probe is a row joined to the service,
 * agent, connection, location (and category), the agent's tie to the location and the customer,
 * all by primary or unique key, so each probe yields exactly one row.
 */
export async function probeReferences(db: Db, probes: readonly Probe[]): Promise<ProbeResult[]> {
  const rows = await probeRows(db, probes);
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
            widest_buffer_ms: row.v_widest_buffer_ms,
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
              buffer_before: row.s_buffer_before as number,
              buffer_after: row.s_buffer_after as number,
              min_notice_minutes: row.s_min_notice_minutes,
              max_advance_days: row.s_max_advance_days,
              deposit_amount_cents: row.s_deposit_amount_cents as number,
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
              buffer_before: row.c_buffer_before,
              buffer_after: row.c_buffer_after,
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
              status: row.cu_status as string,
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
  const rows = await connectedAgentRows(db, serviceId, locationId);
  return rows.map(({ custom_duration, custom_price_cents, custom_hours, buffer_before, buffer_after, al_agent_id, ...agent }) => ({
    agent,
    connection: { id: agent.id, status: agent.status, schedule: agent.schedule, custom_duration, custom_price_cents, custom_hours, buffer_before, buffer_after },
    worksAt: al_agent_id !== null,
  }));
}

/**
 * Where a booking without a location takes place: the agent's first active location (lowest
 * id), else, for an agent tied to no location, the site's first active one (order_number, id).
 * Undefined for an agent whose every location is inactive.
 */
export async function defaultLocationOf(db: Db, agentId: number): Promise<LocationFacts | undefined> {
  const row = await defaultLocationRow(db, agentId);
  if (!row) return undefined;
  return {
    id: row.id,
    status: row.status,
    name: row.name,
    full_address: row.full_address,
    category: row.lc_id === null ? undefined : { id: row.lc_id, name: row.lc_name as string },
  };
}
