import { isUniqueViolation } from '../../db/constraints.js';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import { AppError, notFound } from '../../core/errors.js';
import { centsToNumber, toCents } from '../../lib/money.js';
import { localDateTime, nowIso } from '../../lib/time.js';
import type { Site } from '../../core/site.js';
import * as repository from './repository.js';
import { couponDiscountCents, couponRejection, heldCouponDiscountCents } from './rules.js';
import type { CouponCreateBody, CouponListQuery, CouponUpdateBody, CouponView } from './schemas.js';
import type { CouponsTable } from './table.js';
import { couponLock } from '../../core/locks.js';
import { pageRequest, pagination } from '../../core/pagination.js';

export function presentCoupon(row: repository.CouponWithUses, timezone: string): CouponView {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    description: row.description,
    discount_type: row.discount_type,
    discount_value: centsToNumber(row.discount_value_hundredths),
    status: row.status,
    active_from: row.active_from,
    active_to: row.active_to,
    usage_limit: row.usage_limit,
    usage_count: row.usage_count,
    min_order_amount: centsToNumber(row.min_order_amount_cents),
    max_discount_amount: centsToNumber(row.max_discount_amount_cents),
    created_at: localDateTime(row.created_at, timezone),
    updated_at: localDateTime(row.updated_at, timezone),
  };
}

/** A non-negative amount of at most MAX_AMOUNT (the schema's bound) as exact hundredths, half-up. */
function hundredths(value: number): number {
  return toCents(value) ?? 0;
}

type Terms = Pick<CouponsTable, 'discount_type' | 'discount_value_hundredths' | 'active_from' | 'active_to'>;

/** Rules that span fields, checked on the coupon as it will be stored. */
function checkTerms(terms: Terms): void {
  if (terms.discount_type === 'percent' && terms.discount_value_hundredths > 10_000) {
    throw new AppError('validation_failed', 'A percent discount is at most 100', { discount_value: 'must be at most 100 for a percent discount' });
  }
  if (terms.active_from !== null && terms.active_to !== null && terms.active_to < terms.active_from) {
    throw new AppError('validation_failed', 'active_to is before active_from', { active_to: 'must not be before active_from' });
  }
}

async function requireCoupon(db: Db, code: string): Promise<repository.CouponWithUses> {
  const coupon = await repository.findCoupon(db, code);
  if (!coupon) throw notFound('coupon_not_found', 'Coupon', code);
  return coupon;
}

function alreadyExists(code: string, existingId: number | undefined): AppError {
  return new AppError('coupon_already_exists', `A coupon with code ${code} already exists (codes are case-insensitive)`, {
    code: 'already exists',
    ...(existingId === undefined ? {} : { existing_coupon_id: existingId }),
  });
}

export async function createCoupon(db: Db, site: Site, body: CouponCreateBody): Promise<CouponView> {
  const at = nowIso();
  const row = {
    code: body.code,
    code_lower: body.code.toLowerCase(),
    name: body.name.trim(),
    description: body.description ?? '',
    discount_type: body.discount_type ?? 'percent',
    discount_value_hundredths: hundredths(body.discount_value ?? 0),
    status: body.status ?? 'active',
    active_from: body.active_from ?? null,
    active_to: body.active_to ?? null,
    usage_limit: body.usage_limit ?? 0,
    min_order_amount_cents: hundredths(body.min_order_amount ?? 0),
    max_discount_amount_cents: hundredths(body.max_discount_amount ?? 0),
    created_at: at,
    updated_at: at,
  };
  checkTerms(row);
  const existing = await repository.findCoupon(db, body.code);
  if (existing) throw alreadyExists(body.code, existing.id);
  try {
    await repository.insertCoupon(db, row);
  } catch (error) {
    // Another request created the same code between the check and the insert.
    if (isUniqueViolation(error, 'coupons', 'code_lower')) throw alreadyExists(body.code, undefined);
    throw error;
  }
  return presentCoupon(await requireCoupon(db, body.code), (await site()).timezone);
}

export async function updateCoupon(db: Db, site: Site, code: string, body: CouponUpdateBody): Promise<CouponView> {
  const coupon = await requireCoupon(db, code);
  const changes: Partial<Omit<repository.CouponRow, 'id'>> = {};
  if (body.name !== undefined) changes.name = body.name.trim();
  if (body.description !== undefined) changes.description = body.description;
  if (body.discount_type !== undefined) changes.discount_type = body.discount_type;
  if (body.discount_value !== undefined) changes.discount_value_hundredths = hundredths(body.discount_value);
  if (body.status !== undefined) changes.status = body.status;
  if (body.active_from !== undefined) changes.active_from = body.active_from;
  if (body.active_to !== undefined) changes.active_to = body.active_to;
  if (body.usage_limit !== undefined) changes.usage_limit = body.usage_limit;
  if (body.min_order_amount !== undefined) changes.min_order_amount_cents = hundredths(body.min_order_amount);
  if (body.max_discount_amount !== undefined) changes.max_discount_amount_cents = hundredths(body.max_discount_amount);
  if (Object.keys(changes).length === 0) {
    throw new AppError('invalid_request', 'Nothing to update: send at least one coupon field', { body: 'no updatable field given' });
  }
  checkTerms({ ...coupon, ...changes });
  // Under the coupon's lock, which an order applying it holds: the uses counted cannot grow meanwhile.
  await lockedTransaction(db, [couponLock(coupon.code)], async (trx) => {
    const { usage_count: uses } = await requireCoupon(trx, coupon.code);
    if (changes.usage_limit !== undefined && changes.usage_limit > 0 && changes.usage_limit < uses) {
      throw new AppError('validation_failed', `usage_limit cannot be below the ${uses} uses already counted`, {
        usage_limit: `must be 0 (unlimited) or at least ${uses}, the uses already counted`,
      });
    }
    await repository.updateCoupon(trx, coupon.id, { ...changes, updated_at: nowIso() });
  });
  return presentCoupon(await requireCoupon(db, coupon.code), (await site()).timezone);
}

export async function getCoupon(db: Db, site: Site, code: string): Promise<CouponView> {
  return presentCoupon(await requireCoupon(db, code), (await site()).timezone);
}

export async function listCoupons(db: Db, site: Site, query: CouponListQuery) {
  const page = pageRequest(query, 10);
  const { rows, total } = await repository.listCoupons(db, { status: query.status, discountType: query.discount_type }, page);
  const { timezone } = await site();
  return { success: true as const, data: rows.map((row) => presentCoupon(row, timezone)), pagination: pagination(page, total) };
}

/** Deletes a coupon under its lock, which an order applying it holds, so that none applies it meanwhile. */
export async function deleteCoupon(db: Db, code: string): Promise<{ id: number; deleted: true }> {
  const { code: stored } = await requireCoupon(db, code);
  return lockedTransaction(db, [couponLock(stored)], async (trx) => {
    const coupon = await requireCoupon(trx, stored);
    await repository.deleteCoupon(trx, coupon.id);
    return { id: coupon.id, deleted: true as const };
  });
}

export interface AppliedCoupon {
  id: number;
  /** The code as the coupon stores it: orders record this spelling. */
  code: string;
  discountCents: number;
}

/**
 * Checks that the coupon applies to the order (active, dates, usage limit, minimum amount) and
 * computes its discount on the subtotal. Run it inside the transaction that applies the coupon,
 * under a lock on the coupon, so that two orders cannot both take its last use.
 */
export async function applyCoupon(
  trx: Db,
  code: string,
  order: { id: number; subtotalCents: number; today: string; pendingUses?: number },
): Promise<AppliedCoupon> {
  const coupon = await repository.findCoupon(trx, code);
  const refuse = (reason: string) =>
    new AppError('validation_failed', `Coupon ${code} cannot be applied: ${reason}`, { coupon_code: reason });
  if (!coupon) throw refuse('no coupon has this code');
  // Uses taken by earlier elements of the same bulk request count too.
  const otherUses = (await repository.otherUses(trx, coupon.id, order.id)) + (order.pendingUses ?? 0);
  const reason = couponRejection(coupon, { today: order.today, subtotalCents: order.subtotalCents, otherUses });
  if (reason !== undefined) throw refuse(reason);
  return { id: coupon.id, code: coupon.code, discountCents: couponDiscountCents(coupon, order.subtotalCents) };
}

/** The discount of the coupon an order holds (none: its current discount), on a new subtotal. */
export async function heldCouponDiscount(trx: Db, held: { couponId: number | null; discountCents: number }, subtotalCents: number): Promise<number> {
  const coupon = held.couponId === null ? undefined : await repository.findCouponById(trx, held.couponId);
  return heldCouponDiscountCents(coupon, held.discountCents, subtotalCents);
}
