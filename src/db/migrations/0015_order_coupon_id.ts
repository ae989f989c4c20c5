import { sql, type Kysely } from 'kysely';

/**
 * An order records the coupon applied to it by id, beside the code it shows. A coupon's uses are
 * the orders that hold its id: a coupon created with the code of a deleted one starts unused,
 * and deleting a coupon leaves its code on the orders it discounted but no use behind.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('coupon_id', 'integer', (c) => c.references('coupons.id').onDelete('set null'))
    .execute();
  await recordCouponIds(db);
  await db.schema.dropIndex('orders_coupon_code').execute();
  await db.schema.createIndex('orders_coupon').on('orders').column('coupon_id').execute();
}

/** Sets the coupon id of the orders written before it was kept, from the code they show. */
export async function recordCouponIds(db: Kysely<unknown>): Promise<void> {
  await sql`update orders set coupon_id = (select c.id from coupons as c where c.code = orders.coupon_code) where coupon_code is not null`.execute(db);
}
