import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { nowIso } from '../../src/lib/time.js';
import { insertBookingItems, insertBookingOrders } from '../../src/modules/orders/create.js';
import { insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';

export const API = '/booking-api/v1';

export interface BookedOrder {
  orderId: number;
  orderItemId: number;
  invoiceId: number;
  customerId: number;
  bookingId: number;
}

/**
 * A booking and its order (item and open invoice), as POST /bookings makes them: the order first,
 * then the booking naming it, then the item and the invoice.
 */
export async function bookedOrder(db: Db, options: { priceCents?: number; customerId?: number } = {}): Promise<BookedOrder> {
  const priceCents = options.priceCents ?? 5_000;
  const customerId = options.customerId ?? (await insertCustomer(db));
  const serviceId = await insertService(db);
  const agentId = await insertAgent(db);
  const locationId = await insertLocation(db);
  return db.transaction().execute(async (trx) => {
    const at = nowIso();
    const [order] = await insertBookingOrders(trx, [{ customerId, priceCents, coupon: null, cancelled: false }], at);
    const orderId = order!.id;
    const bookingId = await insertBooking(trx, { serviceId, agentId, locationId, customerId }, { price_cents: priceCents, order_id: orderId });
    const [ids] = await insertBookingItems(trx, [{ orderId, bookingId, priceCents, totalCents: priceCents, depositCents: 0, startAt: at, cancelled: false, itemData: { booking_id: bookingId, service_id: serviceId } }], at);
    return { orderId, orderItemId: ids!.orderItemId, invoiceId: ids!.invoiceId, customerId, bookingId };
  });
}

export async function bookingPaymentStatus(db: Db, bookingId: number): Promise<string> {
  const row = await db.selectFrom('bookings').select('payment_status').where('id', '=', bookingId).executeTakeFirstOrThrow();
  return row.payment_status;
}

/**
 * A database trigger that makes inserts or updates of transactions whose notes are `explode`
 * fail, standing in for a write the database refuses.
 */
export async function refuseExplodingTransactions(db: Db, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'sqlite') {
    for (const event of ['INSERT', 'UPDATE']) {
      await sql
        .raw(
          `CREATE TRIGGER refuse_${event.toLowerCase()} BEFORE ${event} ON transactions WHEN NEW.notes = 'explode' ` +
            `BEGIN SELECT RAISE(ABORT, 'refused by test trigger'); END`,
        )
        .execute(db);
    }
    return;
  }
  await sql
    .raw(
      `CREATE FUNCTION refuse_exploding() RETURNS trigger AS $$ BEGIN ` +
        `IF NEW.notes = 'explode' THEN RAISE EXCEPTION 'refused by test trigger'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    )
    .execute(db);
  await sql
    .raw('CREATE TRIGGER refuse_exploding BEFORE INSERT OR UPDATE ON transactions FOR EACH ROW EXECUTE FUNCTION refuse_exploding()')
    .execute(db);
}
