import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { LinkedBooking } from './keys.js';

/**
 * Raises the link version of a booking, or of each booking of a customer or an order: the links
 * shown or mailed before (to a mistyped address, to the bookings' former customer) stop opening them.
 */
export async function renewManageLinks(db: Db, of: 'id' | 'customer_id' | 'order_id', id: number): Promise<void> {
  await db
    .updateTable('bookings')
    .set({ manage_link_version: sql`manage_link_version + 1` })
    .where(of, '=', id)
    .execute();
}

/** The bookings with these codes, with what their links are made from. */
export async function linkedBookingsByCode(db: Db, codes: readonly string[]): Promise<LinkedBooking[]> {
  if (codes.length === 0) return [];
  return db.selectFrom('bookings').select(['id', 'booking_code', 'manage_link_version']).where('booking_code', 'in', codes).execute();
}

/** The booking with this id, with what its links are made from. */
export function linkedBooking(db: Db, id: number): Promise<LinkedBooking | undefined> {
  return db.selectFrom('bookings').select(['id', 'booking_code', 'manage_link_version']).where('id', '=', id).executeTakeFirst();
}
