import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { newAccessKey } from './keys.js';

/** Bookings given new keys per statement. */
const RENEW_BATCH = 1000;

/**
 * Gives each booking of a customer or an order a new manage key: the links shown or mailed before
 * (to a mistyped address, to the bookings' former customer) stop opening them.
 */
export async function renewAccessKeys(db: Db, of: 'customer_id' | 'order_id', id: number): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('bookings')
      .select('id')
      .where('id', '>', after)
      .where(of, '=', id)
      .orderBy('id')
      .limit(RENEW_BATCH)
      .execute();
    if (rows.length === 0) return;
    const keys = rows.map(({ id }) => sql`(${id}, ${newAccessKey()})`);
    // Still the customer's or order's: a booking moved away meanwhile keeps the key its move gave it.
    await sql`update bookings set access_key = v.column2 from (values ${sql.join(keys)}) as v
      where bookings.id = cast(v.column1 as integer) and ${sql.ref(`bookings.${of}`)} = ${id}`.execute(db);
    after = (rows[rows.length - 1] as { id: number }).id;
  }
}
