import type { Database } from '../../db/database.js';
import type { OrdersTable } from './table.js';

/** The bookings table's payment_status (the bookings module owns the table; the schema is shared). */
type BookingPaymentStatus = Database['bookings']['payment_status'];

/** Pure money maths of an order, all in integer cents (contract §8). */

export type OrderPaymentStatus = OrdersTable['payment_status'];

export interface OrderAmounts {
  subtotalCents: number;
  discountTotalCents: number;
  couponDiscountCents: number;
  taxTotalCents: number;
}

/** total = subtotal − discount_total − coupon_discount + tax_total. */
export function orderTotalCents(amounts: OrderAmounts): number {
  return amounts.subtotalCents - amounts.discountTotalCents - amounts.couponDiscountCents + amounts.taxTotalCents;
}

/** What is still owed: the total less what succeeded, never below zero (overpayment owes nothing). */
export function unpaidBalanceCents(totalCents: number, paidCents: number): number {
  return Math.max(0, totalCents - paidCents);
}

/** An invoice set to paid settles the unpaid balance, at most its own charge amount. */
export function invoiceSettlementCents(totalCents: number, paidCents: number, chargeAmountCents: number): number {
  return Math.max(0, Math.min(unpaidBalanceCents(totalCents, paidCents), chargeAmountCents));
}

/**
 * The order's payment_status from the sum of its succeeded transactions: nothing paid is
 * not_paid (even for a zero total), part of the total partially_paid, all of it fully_paid.
 */
export type DerivedPaymentStatus = Extract<OrderPaymentStatus, 'not_paid' | 'partially_paid' | 'fully_paid'>;

export function orderPaymentStatus(totalCents: number, paidCents: number): DerivedPaymentStatus {
  if (paidCents <= 0) return 'not_paid';
  return paidCents >= totalCents ? 'fully_paid' : 'partially_paid';
}

/**
 * The bookings' payment_status for an order's: the two sets share not_paid, partially_paid and
 * refunded, and name "fully paid" `paid`. Order states without a booking counterpart
 * (processing, partially_refunded) leave the bookings as they are.
 */
export function bookingPaymentStatus(status: DerivedPaymentStatus): BookingPaymentStatus;
export function bookingPaymentStatus(status: OrderPaymentStatus): BookingPaymentStatus | undefined;
export function bookingPaymentStatus(status: OrderPaymentStatus): BookingPaymentStatus | undefined {
  switch (status) {
    case 'fully_paid':
      return 'paid';
    case 'not_paid':
    case 'partially_paid':
    case 'refunded':
      return status;
    case 'processing':
    case 'partially_refunded':
      return undefined;
  }
}
