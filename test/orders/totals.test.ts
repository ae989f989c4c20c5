import { describe, expect, it } from 'vitest';
import {
  bookingPaymentStatus,
  invoiceSettlementCents,
  orderPaymentStatus,
  orderTotalCents,
  unpaidBalanceCents,
} from '../../src/modules/orders/totals.js';

describe('orderTotalCents', () => {
  it('is subtotal − discount_total − coupon_discount + tax_total', () => {
    expect(orderTotalCents({ subtotalCents: 10_000, discountTotalCents: 1_000, couponDiscountCents: 1_550, taxTotalCents: 1_901 })).toBe(9_351);
  });

  it('is the subtotal when nothing else is set', () => {
    expect(orderTotalCents({ subtotalCents: 4_500, discountTotalCents: 0, couponDiscountCents: 0, taxTotalCents: 0 })).toBe(4_500);
  });

  it('goes negative when discounts exceed subtotal plus tax (the caller refuses it)', () => {
    expect(orderTotalCents({ subtotalCents: 1_000, discountTotalCents: 800, couponDiscountCents: 300, taxTotalCents: 50 })).toBe(-50);
  });
});

describe('unpaidBalanceCents', () => {
  it('is the total less what succeeded', () => {
    expect(unpaidBalanceCents(5_000, 1_999)).toBe(3_001);
  });

  it('is zero when paid in full or overpaid', () => {
    expect(unpaidBalanceCents(5_000, 5_000)).toBe(0);
    expect(unpaidBalanceCents(5_000, 6_000)).toBe(0);
  });
});

describe('invoiceSettlementCents', () => {
  it('settles the whole remainder when the invoice charges at least that much', () => {
    expect(invoiceSettlementCents(5_000, 2_000, 5_000)).toBe(3_000);
  });

  it('settles at most the charge amount', () => {
    expect(invoiceSettlementCents(5_000, 1_000, 2_500)).toBe(2_500);
  });

  it('settles nothing when nothing is owed', () => {
    expect(invoiceSettlementCents(5_000, 5_000, 5_000)).toBe(0);
    expect(invoiceSettlementCents(5_000, 7_000, 5_000)).toBe(0);
  });

  it('settles nothing for a zero charge', () => {
    expect(invoiceSettlementCents(5_000, 0, 0)).toBe(0);
  });
});

describe('orderPaymentStatus', () => {
  it('is not_paid with nothing paid, even for a zero total', () => {
    expect(orderPaymentStatus(5_000, 0)).toBe('not_paid');
    expect(orderPaymentStatus(0, 0)).toBe('not_paid');
  });

  it('is partially_paid from one cent up to one cent short', () => {
    expect(orderPaymentStatus(5_000, 1)).toBe('partially_paid');
    expect(orderPaymentStatus(5_000, 4_999)).toBe('partially_paid');
  });

  it('is fully_paid at the total and above', () => {
    expect(orderPaymentStatus(5_000, 5_000)).toBe('fully_paid');
    expect(orderPaymentStatus(5_000, 5_001)).toBe('fully_paid');
  });
});

describe('bookingPaymentStatus', () => {
  it('names fully_paid paid and keeps the shared states', () => {
    expect(bookingPaymentStatus('fully_paid')).toBe('paid');
    expect(bookingPaymentStatus('not_paid')).toBe('not_paid');
    expect(bookingPaymentStatus('partially_paid')).toBe('partially_paid');
    expect(bookingPaymentStatus('refunded')).toBe('refunded');
  });

  it('has no booking state for processing and partially_refunded', () => {
    expect(bookingPaymentStatus('processing')).toBeUndefined();
    expect(bookingPaymentStatus('partially_refunded')).toBeUndefined();
  });
});
