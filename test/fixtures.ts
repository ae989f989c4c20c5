import type { Insertable } from 'kysely';
import type { Database, Db } from '../src/db/database.js';
import { bumpBusyVersions } from '../src/modules/availability/repository.js';
import { newCustomerRow } from '../src/modules/customers/repository.js';

/**
 * Rows inserted straight into the tables, for tests whose subject is another module (a customer
 * for a booking test, a booking for an order test). Each returns the new id.
 */
const AT = '2026-01-01T00:00:00.000Z';
let sequence = 0;
const next = (): number => ++sequence;

type Row<T extends keyof Database> = Partial<Insertable<Database[T]>>;

async function insert<T extends keyof Database>(db: Db, table: T, values: Insertable<Database[T]>): Promise<number> {
  // Every table with an id column returns it; the cast narrows Kysely's per-table union.
  const row = (await db
    .insertInto(table)
    .values(values as never)
    .returning('id' as never)
    .executeTakeFirstOrThrow()) as unknown as { id: number };
  return row.id;
}

export function insertAgent(db: Db, values: Row<'agents'> = {}): Promise<number> {
  const n = next();
  return insert(db, 'agents', {
    first_name: `Agent${n}`,
    last_name: 'Test',
    display_name: null,
    email: `agent${n}@example.test`,
    phone: null,
    bio: null,
    features: null,
    status: 'active',
    schedule: null,
    created_at: AT,
    updated_at: AT,
    ...values,
  });
}

export function insertService(db: Db, values: Row<'services'> = {}): Promise<number> {
  return insert(db, 'services', {
    name: `Service ${next()}`,
    short_description: '',
    description: '',
    duration: 60,
    price_min_cents: 5000,
    price_max_cents: 5000,
    charge_amount_cents: 5000,
    deposit_amount_cents: 0,
    capacity_min: 1,
    capacity_max: 1,
    order_number: 0,
    selection_image_id: 0,
    status: 'active',
    visibility: 'visible',
    category_id: null,
    created_at: AT,
    updated_at: AT,
    ...values,
  });
}

export function insertLocation(db: Db, values: Row<'locations'> = {}): Promise<number> {
  return insert(db, 'locations', {
    name: `Location ${next()}`,
    full_address: '1 Main Street',
    status: 'active',
    category_id: null,
    order_number: 0,
    selection_image_id: 0,
    created_at: AT,
    updated_at: AT,
    ...values,
  });
}

export async function connectAgent(
  db: Db,
  agentId: number,
  links: { serviceIds?: number[]; locationIds?: number[] },
): Promise<void> {
  for (const service_id of links.serviceIds ?? []) {
    await db
      .insertInto('agent_services')
      .values({ agent_id: agentId, service_id, custom_price_cents: null, custom_duration: null, custom_hours: null })
      .execute();
  }
  for (const location_id of links.locationIds ?? []) {
    await db.insertInto('agent_locations').values({ agent_id: agentId, location_id }).execute();
  }
}

/** A whole customers row with neutral defaults, for inserts that need the row itself. */
export function customerRow(values: Row<'customers'> = {}): Insertable<Database['customers']> {
  const n = next();
  const email = values.email === undefined ? `customer${n}@example.test` : values.email;
  return {
    ...newCustomerRow({ first_name: 'Test', last_name: `Customer${n}`, email, email_lower: email?.toLowerCase() ?? null }, AT),
    customer_code: `CUST${n}${Date.now()}`,
    ...values,
  };
}

export function insertCustomer(db: Db, values: Row<'customers'> = {}): Promise<number> {
  return insert(db, 'customers', customerRow(values));
}

/**
 * A booking row as stored (UTC site, 60 minutes from 10:00 unless told otherwise), with its
 * agent's busy-time version raised as the bookings repository does.
 */
export async function insertBooking(
  db: Db,
  refs: { serviceId: number; agentId: number; locationId: number; customerId: number },
  values: Row<'bookings'> = {},
): Promise<number> {
  const n = next();
  const row = {
    agent_id: refs.agentId,
    start_at: '2030-01-07T10:00:00.000Z',
    end_at: '2030-01-07T11:00:00.000Z',
    ...values,
  };
  const id = await insert(db, 'bookings', {
    booking_code: `BK${n}${Date.now()}`,
    status: 'approved',
    payment_status: 'not_paid',
    service_id: refs.serviceId,
    location_id: refs.locationId,
    customer_id: refs.customerId,
    order_id: null,
    start_date: '2030-01-07',
    start_time: '10:00',
    end_date: '2030-01-07',
    end_time: '11:00',
    timezone: 'UTC',
    duration: 60,
    price_cents: 5000,
    notes: null,
    customer_comment: null,
    scheduled_at: AT,
    created_at: AT,
    updated_at: AT,
    ...row,
  });
  await bumpBusyVersions(db, [{ ...row, buffer_before: row.buffer_before ?? 0, buffer_after: row.buffer_after ?? 0 }]);
  return id;
}
