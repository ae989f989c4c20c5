import type { Generated } from 'kysely';

export interface AgentsTable {
  id: Generated<number>;
  first_name: string;
  last_name: string;
  display_name: string | null;
  email: string;
  phone: string | null;
  bio: string | null;
  /** JSON-encoded array of {label, value}; the API returns this string as is. */
  features: string | null;
  status: 'active' | 'disabled';
  /** JSON {weekly, exceptions}; null: the agent works the site's hours. */
  schedule: string | null;
  created_at: string;
  updated_at: string;
  /** Set when deleted while bookings still refer to the row: it stays as their history, absent from the API. */
  deleted_at: string | null;
}

export interface AgentServicesTable {
  agent_id: number;
  service_id: number;
  custom_price_cents: number | null;
  custom_duration: number | null;
  /** JSON weekly object (schedule shape), or null. */
  custom_hours: string | null;
  /** The agent's buffers for the service, minutes; null: the service's. */
  buffer_before: number | null;
  buffer_after: number | null;
}

export interface AgentLocationsTable {
  agent_id: number;
  location_id: number;
}

declare module '../../db/database.js' {
  interface Database {
    agents: AgentsTable;
    agent_services: AgentServicesTable;
    agent_locations: AgentLocationsTable;
  }
}
