import type { Db } from '../../src/db/database.js';
import { connectAgent, insertAgent, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import type { TestApp } from '../helper.js';

export const API = '/booking-api/v1';
/** A Monday far enough ahead that no test is ever in the past. */
export const MONDAY = '2030-01-07';
export const TUESDAY = '2030-01-08';
export const SATURDAY = '2030-01-12';

export interface Site {
  serviceId: number;
  agentId: number;
  locationId: number;
  customerId: number;
}

/** A fresh service, location, agent (connected to both, site hours Mon–Fri 9–17) and customer. */
export async function newSite(db: Db, service: { duration?: number; capacity_max?: number; charge_amount_cents?: number } = {}): Promise<Site> {
  const serviceId = await insertService(db, { duration: 60, charge_amount_cents: 4500, ...service });
  const locationId = await insertLocation(db);
  const agentId = await insertAgent(db);
  await connectAgent(db, agentId, { serviceIds: [serviceId], locationIds: [locationId] });
  const customerId = await insertCustomer(db);
  return { serviceId, agentId, locationId, customerId };
}

/** One more agent for the site's service and location. */
export async function addAgent(db: Db, site: Site, values: Parameters<typeof insertAgent>[1] = {}): Promise<number> {
  const agentId = await insertAgent(db, values);
  await connectAgent(db, agentId, { serviceIds: [site.serviceId], locationIds: [site.locationId] });
  return agentId;
}

/** Calls the API with a key of its own, taking a fresh one before the key's 100 a minute run out. */
export function requester(t: TestApp) {
  let key: string | undefined;
  let uses = 0;
  return async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, apiKey?: string) => {
    if (key === undefined || uses >= 90) {
      key = await t.key();
      uses = 0;
    }
    uses += 1;
    return t.app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': apiKey ?? key }, ...(payload === undefined ? {} : { payload }) });
  };
}
