import type { Insertable, Selectable, SelectQueryBuilder, Updateable } from 'kysely';
import type { Database, Db } from '../../db/database.js';
import { offsetOf, type PageRequest } from '../../core/pagination.js';
import type { CouponsTable } from './table.js';

export type CouponRow = Selectable<CouponsTable>;
export type CouponWithUses = CouponRow & { usage_count: number };

export interface CouponFilter {
  status?: CouponsTable['status'];
  discountType?: CouponsTable['discount_type'];
}

function filtered<O>(query: SelectQueryBuilder<Database, 'coupons', O>, filter: CouponFilter): SelectQueryBuilder<Database, 'coupons', O> {
  let q = query;
  if (filter.status !== undefined) q = q.where('status', '=', filter.status);
  if (filter.discountType !== undefined) q = q.where('discount_type', '=', filter.discountType);
  return q;
}

function withUses(db: Db) {
  return db
    .selectFrom('coupons')
    .selectAll('coupons')
    .select((eb) =>
      eb
        .selectFrom('orders')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('orders.coupon_id', '=', 'coupons.id')
        // A cancelled order gives its use back (docs/money.md).
        .where('orders.status', '<>', 'cancelled')
        .as('usage_count'),
    );
}

function normalise(row: CouponRow & { usage_count: number | null }): CouponWithUses {
  return { ...row, usage_count: Number(row.usage_count ?? 0) };
}

/** Codes match case-insensitively. */
export async function findCoupon(db: Db, code: string): Promise<CouponWithUses | undefined> {
  const row = await withUses(db).where('code_lower', '=', code.toLowerCase()).executeTakeFirst();
  return row && normalise(row);
}

export async function findCouponById(db: Db, id: number): Promise<CouponRow | undefined> {
  return db.selectFrom('coupons').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listCoupons(db: Db, filter: CouponFilter, page: PageRequest): Promise<{ rows: CouponWithUses[]; total: number }> {
  const { total } = await filtered(db.selectFrom('coupons'), filter)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await filtered(withUses(db), filter).orderBy('coupons.id', 'desc').limit(page.perPage).offset(offsetOf(page)).execute();
  return { rows: rows.map(normalise), total: Number(total) };
}

export async function insertCoupon(db: Db, row: Insertable<CouponsTable>): Promise<number> {
  const { id } = await db.insertInto('coupons').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function updateCoupon(db: Db, id: number, values: Updateable<CouponsTable>): Promise<void> {
  await db.updateTable('coupons').set(values).where('id', '=', id).execute();
}

export async function deleteCoupon(db: Db, id: number): Promise<void> {
  await db.deleteFrom('coupons').where('id', '=', id).execute();
}

/** Orders other than `exceptOrderId` that have the coupon applied and are not cancelled (one use each, contract §3). */
export async function otherUses(db: Db, couponId: number, exceptOrderId: number): Promise<number> {
  const { n } = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('coupon_id', '=', couponId)
    .where('status', '<>', 'cancelled')
    .where('id', '<>', exceptOrderId)
    .executeTakeFirstOrThrow();
  return Number(n);
}
