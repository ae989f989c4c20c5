import type { Db } from '../../db/database.js';
import type { ConnectionRow, ServiceRow } from '../availability/index.js';
import { readSiteSchedule, type Schedule } from '../schedules/index.js';
import {
  connectedAgentFacts,
  defaultLocationOf,
  probeReferences,
  type AgentFacts,
  type LocationFacts,
  type Probe,
  type ProbeResult,
  type StoredCustomerFacts,
} from './references.js';
import type { BookingRequest } from './request.js';

type Found = Omit<ProbeResult, 'probe'>;

/** The reads (see CatalogReads) a probe answers, by what they find. */
function keysOf(probe: Probe): Partial<Record<keyof Found, string>> {
  const { serviceId, agentId, locationId, customerId, emailLower } = probe;
  const keys: Partial<Record<keyof Found, string>> = {};
  if (serviceId !== null) keys.service = `service:${serviceId}`;
  if (agentId !== null) keys.agent = `agent:${agentId}`;
  if (serviceId !== null && agentId !== null) keys.connection = `connection:${serviceId}:${agentId}`;
  if (locationId !== null) keys.location = `location:${locationId}`;
  if (locationId !== null && agentId !== null) keys.worksAt = `at:${locationId}:${agentId}`;
  if (customerId !== null) keys.customer = `customer:${customerId}`;
  if (emailLower !== null) keys.emailOwner = `email:${emailLower}`;
  return keys;
}

const NOTHING: Probe = { serviceId: null, agentId: null, locationId: null, customerId: null, emailLower: null };

/** The records a booking request names. */
export function probeOf(request: BookingRequest): Probe {
  return {
    serviceId: request.serviceId,
    agentId: request.agent === 'any' ? null : request.agent,
    locationId: request.locationId ?? null,
    customerId: 'id' in request.customer ? request.customer.id : null,
    emailLower: 'new' in request.customer ? request.customer.new.email.toLowerCase() : null,
  };
}

/**
 * Reads of the records booking requests name (services, locations, agents, their connections,
 * customers, the site schedule), each made once per transaction: the elements of a bulk request
 * mostly share them, and the transaction that checks and writes the bookings changes none of
 * them before its checks are done.
 */
export interface CatalogReads {
  service(id: number): Promise<ServiceRow | undefined>;
  location(id: number): Promise<LocationFacts | undefined>;
  agent(id: number): Promise<AgentFacts | undefined>;
  connection(serviceId: number, agentId: number): Promise<ConnectionRow | undefined>;
  worksAt(locationId: number, agentId: number): Promise<boolean>;
  customer(id: number): Promise<StoredCustomerFacts | undefined>;
  /** The customer who has the email, in any case. */
  customerIdByEmail(email: string): Promise<number | undefined>;
  /** Every agent connected to the service, by id (with whether each works at the location, when given). */
  connectedAgents(serviceId: number, locationId?: number): Promise<number[]>;
  defaultLocation(agentId: number): Promise<LocationFacts | undefined>;
  siteSchedule(): Promise<Schedule>;
  /** Reads what the probes name and is not read yet, in one statement. */
  preload(probes: readonly Partial<Probe>[]): Promise<void>;
}

/** Catalog reads of one transaction; `siteSchedule` when the caller read it already. */
export function catalogReads(db: Db, siteSchedule?: Schedule): CatalogReads {
  const made = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let result = made.get(key) as Promise<T> | undefined;
    if (!result) {
      result = read();
      made.set(key, result);
    }
    return result;
  };
  const know = (key: string, value: unknown) => {
    if (!made.has(key)) made.set(key, Promise.resolve(value));
  };
  const probe = async (probes: readonly Probe[]): Promise<ProbeResult[]> => {
    const results = await probeReferences(db, probes);
    for (const result of results) {
      for (const [field, key] of Object.entries(keysOf(result.probe)) as [keyof Found, string][]) know(key, result[field]);
    }
    return results;
  };
  const read = <K extends keyof Found>(found: K, named: Partial<Probe>): Promise<Found[K]> => {
    const one = { ...NOTHING, ...named };
    return once(keysOf(one)[found] as string, async () => ((await probe([one]))[0] as ProbeResult)[found]);
  };
  if (siteSchedule) know('site-schedule', siteSchedule);
  return {
    service: (id) => read('service', { serviceId: id }),
    location: (id) => read('location', { locationId: id }),
    agent: (id) => read('agent', { agentId: id }),
    connection: (serviceId, agentId) => read('connection', { serviceId, agentId }),
    worksAt: (locationId, agentId) => read('worksAt', { locationId, agentId }),
    customer: (id) => read('customer', { customerId: id }),
    customerIdByEmail: (email) => read('emailOwner', { emailLower: email.toLowerCase() }),
    connectedAgents: (serviceId, locationId) =>
      once(`connected:${serviceId}:${locationId ?? ''}`, async () => {
        const rows = await connectedAgentFacts(db, serviceId, locationId ?? null);
        for (const { agent, connection, worksAt } of rows) {
          know(`agent:${agent.id}`, agent);
          know(`connection:${serviceId}:${agent.id}`, connection);
          if (locationId !== undefined) know(`at:${locationId}:${agent.id}`, worksAt);
        }
        return rows.map((row) => row.agent.id);
      }),
    defaultLocation: (agentId) =>
      once(`default-location:${agentId}`, async () => {
        const location = await defaultLocationOf(db, agentId);
        if (location) know(`location:${location.id}`, location);
        return location;
      }),
    siteSchedule: () => once('site-schedule', () => readSiteSchedule(db)),
    preload: async (named) => {
      const wanted = new Map<string, Probe>();
      for (const one of named) {
        const full = { ...NOTHING, ...one };
        if (Object.values(keysOf(full)).some((key) => !made.has(key))) wanted.set(JSON.stringify(full), full);
      }
      if (wanted.size > 0) await probe([...wanted.values()]);
    },
  };
}
