import { formatCents, mulDivCents } from '../../lib/money.js';
import type { CouponsTable } from './table.js';

/** Pure coupon rules (contract §8): whether a coupon applies to an order, and its discount. */

export type CouponTerms = Pick<
  CouponsTable,
  | 'discount_type'
  | 'discount_value_hundredths'
  | 'status'
  | 'active_from'
  | 'active_to'
  | 'usage_limit'
  | 'min_order_amount_cents'
  | 'max_discount_amount_cents'
>;

/**
 * The discount on a subtotal, half-up to the cent: a percentage of it, capped by
 * max_discount_amount when that is above zero; or a fixed amount, never more than the subtotal.
 */
export function couponDiscountCents(coupon: CouponTerms, subtotalCents: number): number {
  if (subtotalCents <= 0) return 0;
  if (coupon.discount_type === 'fixed_amount') return Math.min(coupon.discount_value_hundredths, subtotalCents);
  // Percent in hundredths of a percent: 12.5 % is 1250 / 10000 of the subtotal.
  const discount = Math.min(mulDivCents(subtotalCents, coupon.discount_value_hundredths, 10_000), subtotalCents);
  return coupon.max_discount_amount_cents > 0 ? Math.min(discount, coupon.max_discount_amount_cents) : discount;
}

/**
 * The discount of a coupon an order already holds, on the order's new subtotal: the coupon's
 * terms computed again (the order keeps the coupon whatever its status, dates or uses are now,
 * and its minimum amount was checked when it was applied). A deleted coupon's terms are gone:
 * its discount stays as it was, never more than the subtotal.
 */
export function heldCouponDiscountCents(coupon: CouponTerms | undefined, currentDiscountCents: number, subtotalCents: number): number {
  return coupon ? couponDiscountCents(coupon, subtotalCents) : Math.max(0, Math.min(currentDiscountCents, subtotalCents));
}

export interface CouponUse {
  /** Today in the site timezone, YYYY-MM-DD. */
  today: string;
  subtotalCents: number;
  /** Orders other than this one that have the coupon applied. */
  otherUses: number;
}

/** Why the coupon cannot be applied, or undefined when it can. Both active dates are inclusive. */
export function couponRejection(coupon: CouponTerms, use: CouponUse): string | undefined {
  if (coupon.status !== 'active') return 'coupon is not active';
  if (coupon.active_from !== null && use.today < coupon.active_from) return `coupon is valid from ${coupon.active_from}`;
  if (coupon.active_to !== null && use.today > coupon.active_to) return `coupon expired on ${coupon.active_to}`;
  if (coupon.usage_limit > 0 && use.otherUses >= coupon.usage_limit) return `coupon has reached its usage limit of ${coupon.usage_limit}`;
  if (use.subtotalCents < coupon.min_order_amount_cents) {
    return `order subtotal is below the coupon's minimum order amount of ${formatCents(coupon.min_order_amount_cents)}`;
  }
  return undefined;
}
