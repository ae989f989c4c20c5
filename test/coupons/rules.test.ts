import { describe, expect, it } from 'vitest';
import { couponDiscountCents, couponRejection, heldCouponDiscountCents, type CouponTerms } from '../../src/modules/coupons/rules.js';

const percent = (hundredths: number, maxCents = 0): CouponTerms => ({
  discount_type: 'percent',
  discount_value_hundredths: hundredths,
  status: 'active',
  active_from: null,
  active_to: null,
  usage_limit: 0,
  min_order_amount_cents: 0,
  max_discount_amount_cents: maxCents,
});
const fixed = (cents: number): CouponTerms => ({ ...percent(0), discount_type: 'fixed_amount', discount_value_hundredths: cents });

describe('heldCouponDiscountCents', () => {
  it("computes the coupon's terms on the new subtotal, whatever its status now", () => {
    expect(heldCouponDiscountCents(percent(1_000), 450, 10_000)).toBe(1_000);
    expect(heldCouponDiscountCents({ ...percent(1_000), status: 'inactive' }, 450, 2_000)).toBe(200);
    expect(heldCouponDiscountCents(fixed(4_000), 4_000, 1_000)).toBe(1_000);
  });

  it("keeps a deleted coupon's discount, never more than the subtotal nor below zero", () => {
    expect(heldCouponDiscountCents(undefined, 500, 10_000)).toBe(500);
    expect(heldCouponDiscountCents(undefined, 500, 300)).toBe(300);
    expect(heldCouponDiscountCents(undefined, 500, 0)).toBe(0);
  });
});

describe('couponDiscountCents', () => {
  it('takes a percentage of the subtotal', () => {
    expect(couponDiscountCents(percent(1_000), 5_000)).toBe(500);
    expect(couponDiscountCents(percent(1_250), 8_000)).toBe(1_000);
  });

  it('rounds a fractional cent half-up', () => {
    // 15 % of 0.33 = 0.0495 → 0.05; 15 % of 0.30 = 0.045 → 0.05 (exact half goes up).
    expect(couponDiscountCents(percent(1_500), 33)).toBe(5);
    expect(couponDiscountCents(percent(1_500), 30)).toBe(5);
    // 15 % of 0.29 = 0.0435 → 0.04.
    expect(couponDiscountCents(percent(1_500), 29)).toBe(4);
    // 33.33 % of 100.01 = 33.333333 → 33.33.
    expect(couponDiscountCents(percent(3_333), 10_001)).toBe(3_333);
  });

  it('caps a percentage at max_discount_amount when that is above zero', () => {
    expect(couponDiscountCents(percent(5_000, 2_000), 10_000)).toBe(2_000);
    // At the cap exactly, and just under it.
    expect(couponDiscountCents(percent(2_000, 2_000), 10_000)).toBe(2_000);
    expect(couponDiscountCents(percent(2_000, 2_001), 10_000)).toBe(2_000);
    expect(couponDiscountCents(percent(2_000, 1_999), 10_000)).toBe(1_999);
  });

  it('does not cap a percentage when max_discount_amount is zero', () => {
    expect(couponDiscountCents(percent(9_000, 0), 10_000)).toBe(9_000);
  });

  it('gives 100 % as the whole subtotal and 0 % as nothing', () => {
    expect(couponDiscountCents(percent(10_000), 4_567)).toBe(4_567);
    expect(couponDiscountCents(percent(0), 4_567)).toBe(0);
  });

  it('takes a fixed amount, capped by the subtotal', () => {
    expect(couponDiscountCents(fixed(1_500), 5_000)).toBe(1_500);
    expect(couponDiscountCents(fixed(5_000), 5_000)).toBe(5_000);
    expect(couponDiscountCents(fixed(5_001), 5_000)).toBe(5_000);
  });

  it('ignores max_discount_amount for a fixed amount', () => {
    expect(couponDiscountCents({ ...fixed(1_500), max_discount_amount_cents: 1_000 }, 5_000)).toBe(1_500);
  });

  it('is zero on a zero subtotal', () => {
    expect(couponDiscountCents(percent(5_000), 0)).toBe(0);
    expect(couponDiscountCents(fixed(1_000), 0)).toBe(0);
  });
});

describe('couponRejection', () => {
  const use = { today: '2026-06-15', subtotalCents: 5_000, otherUses: 0 };

  it('accepts an active coupon without limits', () => {
    expect(couponRejection(percent(1_000), use)).toBeUndefined();
  });

  it('refuses an inactive coupon', () => {
    expect(couponRejection({ ...percent(1_000), status: 'inactive' }, use)).toBe('coupon is not active');
  });

  it('counts both active dates as valid days', () => {
    const window = { ...percent(1_000), active_from: '2026-06-15', active_to: '2026-06-15' };
    expect(couponRejection(window, use)).toBeUndefined();
    expect(couponRejection(window, { ...use, today: '2026-06-14' })).toBe('coupon is valid from 2026-06-15');
    expect(couponRejection(window, { ...use, today: '2026-06-16' })).toBe('coupon expired on 2026-06-15');
  });

  it('allows uses up to the limit, and none past it', () => {
    const limited = { ...percent(1_000), usage_limit: 2 };
    expect(couponRejection(limited, { ...use, otherUses: 1 })).toBeUndefined();
    expect(couponRejection(limited, { ...use, otherUses: 2 })).toBe('coupon has reached its usage limit of 2');
  });

  it('treats a usage limit of 0 as unlimited', () => {
    expect(couponRejection(percent(1_000), { ...use, otherUses: 1_000_000 })).toBeUndefined();
  });

  it('requires the subtotal to reach the minimum order amount', () => {
    const minimum = { ...percent(1_000), min_order_amount_cents: 5_000 };
    expect(couponRejection(minimum, use)).toBeUndefined();
    expect(couponRejection(minimum, { ...use, subtotalCents: 4_999 })).toBe(
      "order subtotal is below the coupon's minimum order amount of 50.00",
    );
  });
});
