import type { Db } from '../../db/database.js';
import type { BookingStatus } from '../bookings/index.js';

export interface CalendarBooking {
  id: number;
  booking_code: string;
  status: BookingStatus;
  agent_id: number;
  start_date: string;
  start_time: string;
  end_date: string;
  end_time: string;
  service_name: string;
  customer_first_name: string;
  customer_last_name: string;
}

/** Bookings starting on local dates from..to (inclusive), by start. */
export function calendarBookings(db: Db, from: string, to: string): Promise<CalendarBooking[]> {
  return db
    .selectFrom('bookings as b')
    .innerJoin('services as s', 's.id', 'b.service_id')
    .innerJoin('customers as c', 'c.id', 'b.customer_id')
    .select([
      'b.id',
      'b.booking_code',
      'b.status',
      'b.agent_id',
      'b.start_date',
      'b.start_time',
      'b.end_date',
      'b.end_time',
      's.name as service_name',
      'c.first_name as customer_first_name',
      'c.last_name as customer_last_name',
    ])
    .where('b.start_date', '>=', from)
    .where('b.start_date', '<=', to)
    .orderBy('b.start_date')
    .orderBy('b.start_time')
    .orderBy('b.id')
    .execute();
}

export interface CalendarAgent {
  id: number;
  name: string;
  status: string;
}

/** Active agents, and any others that have bookings in the range. */
export async function calendarAgents(db: Db, withBookings: readonly number[]): Promise<CalendarAgent[]> {
  const rows = await db
    .selectFrom('agents')
    .select(['id', 'first_name', 'last_name', 'display_name', 'status'])
    .where((eb) => (withBookings.length > 0 ? eb.or([eb('status', '=', 'active'), eb('id', 'in', withBookings)]) : eb('status', '=', 'active')))
    .orderBy('first_name')
    .orderBy('last_name')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.display_name || `${r.first_name} ${r.last_name}`, status: r.status }));
}

export function bookingDetails(db: Db, id: number) {
  return db
    .selectFrom('bookings as b')
    .innerJoin('services as s', 's.id', 'b.service_id')
    .innerJoin('agents as a', 'a.id', 'b.agent_id')
    .innerJoin('locations as l', 'l.id', 'b.location_id')
    .innerJoin('customers as c', 'c.id', 'b.customer_id')
    .selectAll('b')
    .select([
      's.name as service_name',
      'a.first_name as agent_first_name',
      'a.last_name as agent_last_name',
      'a.display_name as agent_display_name',
      'l.name as location_name',
      'c.first_name as customer_first_name',
      'c.last_name as customer_last_name',
      'c.email as customer_email',
      'c.phone as customer_phone',
      'c.customer_code',
    ])
    .where('b.id', '=', id)
    .executeTakeFirst();
}

export type BookingDetails = NonNullable<Awaited<ReturnType<typeof bookingDetails>>>;

export async function bookingMeta(db: Db, id: number): Promise<[string, string][]> {
  const rows = await db.selectFrom('booking_meta').select(['meta_key', 'meta_value']).where('booking_id', '=', id).orderBy('meta_key').execute();
  return rows.map((r) => [r.meta_key, r.meta_value]);
}
