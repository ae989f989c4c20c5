import { describe, expect, it } from 'vitest';
import {
  balanceDueCents,
  bookingPaymentStatus,
  captureLimitCents,
  invoiceSettlementCents,
  invoiceStatuses,
  invoiceUncoveredCents,
  isTransactionKind,
  ledgerSums,
  netPaidCents,
  orderPaymentStatus,
  orderTotalCents,
  refundLimitCents,
  type LedgerSums,
} from '../../src/modules/orders/totals.js';

const sums = (capturedCents: number, refundedCents = 0, captureProcessing = false): LedgerSums => ({ capturedCents, refundedCents, captureProcessing });

describe('orderTotalCents', () => {
  it('is subtotal − discount_total − coupon_discount + tax_total', () => {
    expect(orderTotalCents({ subtotalCents: 10_000, discountTotalCents: 1_000, couponDiscountCents: 1_550, taxTotalCents: 1_901 })).toBe(9_351);
  });

  it('goes negative when discounts exceed subtotal plus tax (the caller refuses it)', () => {
    expect(orderTotalCents({ subtotalCents: 1_000, discountTotalCents: 800, couponDiscountCents: 300, taxTotalCents: 50 })).toBe(-50);
  });
});

describe('the ledger', () => {
  it('knows capture and refund, and no other kind', () => {
    expect(isTransactionKind('capture')).toBe(true);
    expect(isTransactionKind('refund')).toBe(true);
    expect(isTransactionKind('authorization')).toBe(false);
  });

  it('sums succeeded captures and refunds; processing captures only flag, failed ones count nothing', () => {
    const result = ledgerSums([
      { kind: 'capture', status: 'succeeded', amountCents: 3_000 },
      { kind: 'capture', status: 'succeeded', amountCents: 500 },
      { kind: 'refund', status: 'succeeded', amountCents: 1_000 },
      { kind: 'capture', status: 'failed', amountCents: 9_000 },
      { kind: 'refund', status: 'processing', amountCents: 9_000 },
    ]);
    expect(result).toEqual(sums(3_500, 1_000));
    expect(netPaidCents(result)).toBe(2_500);
    expect(ledgerSums([{ kind: 'capture', status: 'processing', amountCents: 1 }])).toEqual(sums(0, 0, true));
  });

  it('counts a legacy kind other than refund as money taken in', () => {
    expect(ledgerSums([{ kind: 'authorization', status: 'succeeded', amountCents: 700 }])).toEqual(sums(700));
  });

  it('owes the total less the net paid, negative when money is owed back', () => {
    expect(balanceDueCents(3_500, 1_000)).toBe(2_500);
    expect(balanceDueCents(2_800, 3_500)).toBe(-700);
  });

  it('lets a capture take the balance due and a refund give back the net paid, never less than nothing', () => {
    expect(captureLimitCents(3_500, 1_000)).toBe(2_500);
    expect(captureLimitCents(2_800, 3_500)).toBe(0);
    expect(refundLimitCents(3_500)).toBe(3_500);
    expect(refundLimitCents(0)).toBe(0);
  });
});

describe('orderPaymentStatus', () => {
  it.each([
    ['not_paid', 3_500, sums(0)],
    ['processing', 3_500, sums(0, 0, true)],
    ['partially_paid', 3_500, sums(1_000)],
    ['partially_paid', 3_500, sums(1_000, 0, true)],
    ['fully_paid', 3_500, sums(3_500)],
    ['fully_paid', 2_800, sums(3_500)],
    ['fully_paid', 0, sums(0)],
    ['partially_refunded', 3_500, sums(3_500, 1_000)],
    ['partially_refunded', 3_500, sums(1_000, 500)],
    ['fully_paid', 2_800, sums(3_500, 700)],
    ['partially_refunded', 0, sums(4_500, 4_000)],
    ['partially_refunded', 2_800, sums(3_500, 500)],
    ['refunded', 3_500, sums(3_500, 3_500)],
    ['refunded', 0, sums(1_000, 1_000)],
  ] as const)('is %s for a total of %i and %o', (status, total, ledger) => {
    expect(orderPaymentStatus(total, ledger)).toBe(status);
  });

  it('does not call a cancelled order with nothing taken paid, though its total is zero', () => {
    expect(orderPaymentStatus(0, sums(0), true)).toBe('not_paid');
    expect(orderPaymentStatus(0, sums(0), false)).toBe('fully_paid');
  });
});

describe('bookingPaymentStatus', () => {
  it('mirrors the order in the four booking states', () => {
    expect(bookingPaymentStatus('fully_paid')).toBe('paid');
    expect(bookingPaymentStatus('not_paid')).toBe('not_paid');
    expect(bookingPaymentStatus('processing')).toBe('not_paid');
    expect(bookingPaymentStatus('partially_paid')).toBe('partially_paid');
    expect(bookingPaymentStatus('partially_refunded')).toBe('partially_paid');
    expect(bookingPaymentStatus('refunded')).toBe('refunded');
  });
});

describe('invoices', () => {
  const deposit = { status: 'open' as const, chargeCents: 1_000 };
  const remaining = { status: 'open' as const, chargeCents: 2_500 };

  it('fills the collectable invoices in order, each up to its charge', () => {
    expect(invoiceStatuses([deposit, remaining], 0)).toEqual(['open', 'open']);
    expect(invoiceStatuses([deposit, remaining], 500)).toEqual(['partially_paid', 'open']);
    expect(invoiceStatuses([deposit, remaining], 1_000)).toEqual(['paid', 'open']);
    expect(invoiceStatuses([deposit, remaining], 2_000)).toEqual(['paid', 'partially_paid']);
    expect(invoiceStatuses([deposit, remaining], 3_500)).toEqual(['paid', 'paid']);
    expect(invoiceUncoveredCents([deposit, remaining], 2_000)).toEqual([0, 1_500]);
  });

  it('leaves void, draft and uncollectible invoices as they are and collects nothing on them', () => {
    const voided = { status: 'void' as const, chargeCents: 1_000 };
    expect(invoiceStatuses([voided, remaining], 1_000)).toEqual(['void', 'partially_paid']);
    expect(invoiceUncoveredCents([voided, remaining], 1_000)).toEqual([0, 1_500]);
  });

  it('calls an invoice of nothing paid', () => {
    expect(invoiceStatuses([{ status: 'open', chargeCents: 0 }], 0)).toEqual(['paid']);
  });

  it('settles what an invoice lacks, at most the balance due', () => {
    expect(invoiceSettlementCents(2_500, 3_500, 1_000)).toBe(2_500);
    expect(invoiceSettlementCents(2_500, 3_500, 2_000)).toBe(1_500);
    expect(invoiceSettlementCents(2_500, 3_500, 3_500)).toBe(0);
  });
});
