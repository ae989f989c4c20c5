import type { Db } from '../../db/database.js';
import { AppError } from '../../core/errors.js';
import { candidateOf, type Candidate, type ServiceRow } from '../availability/index.js';
import { catalogReads, type CatalogReads } from './catalog-reads.js';

export function invalid(field: string, message: string): AppError {
  return new AppError('invalid_request', message, { [field]: message });
}

export function failed(field: string, message: string): AppError {
  return new AppError('validation_failed', message, { [field]: message });
}

/**
 * A blocked customer cannot be booked; every other status can (README: who may book). The
 * refusal names customer_id, the field that chose the customer.
 */
export function requireBookableCustomer(customer: { id: number; status: string }): void {
  if (customer.status === 'blocked') throw failed('customer_id', `customer ${customer.id} is blocked and cannot be booked`);
}

export async function requireService(db: Db, id: number, reads: CatalogReads = catalogReads(db)): Promise<ServiceRow> {
  const service = await reads.service(id);
  if (!service) throw invalid('service_id', `service ${id} does not exist`);
  if (service.status !== 'active') throw failed('service_id', `service ${id} is not active`);
  return service;
}

/** A booking's attendees fit in the service's capacity_max (whether the seats are still free is freeCandidate's). */
export function requireSeats(attendees: number, service: ServiceRow): void {
  if (attendees > service.capacity_max) {
    throw failed('attendees', `must be at most ${service.capacity_max}, the capacity_max of service ${service.id}`);
  }
}

export async function requireLocation(db: Db, id: number, reads: CatalogReads = catalogReads(db)): Promise<void> {
  const location = await reads.location(id);
  if (!location) throw invalid('location_id', `location ${id} does not exist`);
  if (location.status !== 'active') throw failed('location_id', `location ${id} is not active`);
}

/** The agent, checked to be active and to offer the service (and to work at the location). */
export async function requireAgent(
  db: Db,
  agentId: number,
  service: ServiceRow,
  locationId: number | undefined,
  duration?: number,
  reads: CatalogReads = catalogReads(db),
): Promise<Candidate> {
  await reads.preload([{ serviceId: service.id, agentId, locationId: locationId ?? null }]);
  const agent = await reads.agent(agentId);
  if (!agent) throw invalid('agent_id', `agent ${agentId} does not exist`);
  if (agent.status !== 'active') throw failed('agent_id', `agent ${agentId} is not active`);
  const connection = await reads.connection(service.id, agentId);
  if (!connection) throw failed('agent_id', `agent ${agentId} does not offer service ${service.id}`);
  if (locationId !== undefined && !(await reads.worksAt(locationId, agentId))) {
    throw failed('location_id', `agent ${agentId} does not work at location ${locationId}`);
  }
  return candidateOf(connection, await reads.siteSchedule(), service, duration);
}
