import type { Database } from '../../db/database.js';
import type { InvoicesTable, OrdersTable, TransactionsTable } from './table.js';

/** The bookings table's payment_status (the bookings module owns the table; the schema is shared). */
type BookingPaymentStatus = Database['bookings']['payment_status'];

/**
 * Pure money maths of an order, all in integer cents: the total (contract §8), the ledger of its
 * transactions and every payment state derived from it. docs/money.md writes the same rules down.
 */

export type OrderPaymentStatus = OrdersTable['payment_status'];
export type InvoiceStatus = InvoicesTable['status'];
export type TransactionStatus = TransactionsTable['status'];

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

// --- The ledger ---------------------------------------------------------------------------------

export const TRANSACTION_KINDS = ['capture', 'refund'] as const;
export type TransactionKind = (typeof TRANSACTION_KINDS)[number];

export function isTransactionKind(kind: string): kind is TransactionKind {
  return (TRANSACTION_KINDS as readonly string[]).includes(kind);
}

/** One transaction as the ledger sees it. */
export interface LedgerEntry {
  kind: string;
  status: TransactionStatus;
  amountCents: number;
}

/** The sums of an order's transactions the derived states are computed from. */
export interface LedgerSums {
  /** Succeeded captures. */
  capturedCents: number;
  /** Succeeded refunds. */
  refundedCents: number;
  /** Whether a capture is still processing. */
  captureProcessing: boolean;
}

export const EMPTY_LEDGER: LedgerSums = { capturedCents: 0, refundedCents: 0, captureProcessing: false };

/** Rows written before the ledger knew kinds may carry other labels: all but `refund` take money in. */
export function countsAsRefund(kind: string): boolean {
  return kind === 'refund';
}

export function ledgerSums(entries: readonly LedgerEntry[]): LedgerSums {
  const sums = { ...EMPTY_LEDGER };
  for (const entry of entries) {
    const refund = countsAsRefund(entry.kind);
    if (entry.status === 'succeeded') {
      if (refund) sums.refundedCents += entry.amountCents;
      else sums.capturedCents += entry.amountCents;
    } else if (entry.status === 'processing' && !refund) {
      sums.captureProcessing = true;
    }
  }
  return sums;
}

/** Net paid = succeeded captures − succeeded refunds. */
export function netPaidCents(sums: LedgerSums): number {
  return sums.capturedCents - sums.refundedCents;
}

/** What is still owed: the total less the net paid; negative when money is owed back. */
export function balanceDueCents(totalCents: number, netPaid: number): number {
  return totalCents - netPaid;
}

/** The most a new capture may take: the balance due, nothing when none is due. */
export function captureLimitCents(totalCents: number, netPaid: number): number {
  return Math.max(0, balanceDueCents(totalCents, netPaid));
}

/** The most a new refund may give back: the net paid. */
export function refundLimitCents(netPaid: number): number {
  return Math.max(0, netPaid);
}

/**
 * The order's payment_status, from the first matching row of docs/money.md's table:
 * refunds given and nothing left → refunded; refunds given and the net paid other than the
 * total (short of it, or still above it: more to give back) → partially_refunded; net paid
 * covering the total (a zero total counts as covered unless the order is cancelled with nothing
 * taken) → fully_paid; some paid → partially_paid; a capture processing → processing; else
 * not_paid.
 */
export function orderPaymentStatus(totalCents: number, sums: LedgerSums, cancelled = false): OrderPaymentStatus {
  const net = netPaidCents(sums);
  if (sums.refundedCents > 0 && net <= 0) return 'refunded';
  if (sums.refundedCents > 0 && net !== totalCents) return 'partially_refunded';
  if (net > 0 && net >= totalCents) return 'fully_paid';
  if (net <= 0 && totalCents <= 0 && !cancelled) return 'fully_paid';
  if (net > 0) return 'partially_paid';
  return sums.captureProcessing ? 'processing' : 'not_paid';
}

/**
 * The bookings' payment_status for an order's: fully_paid is `paid`; partially_refunded, with
 * money still held below the total, is partially_paid; processing has nothing taken yet.
 */
export function bookingPaymentStatus(status: OrderPaymentStatus): BookingPaymentStatus {
  switch (status) {
    case 'fully_paid':
      return 'paid';
    case 'partially_paid':
    case 'partially_refunded':
      return 'partially_paid';
    case 'refunded':
      return 'refunded';
    case 'not_paid':
    case 'processing':
      return 'not_paid';
  }
}

// --- Invoices ------------------------------------------------------------------------------------

/** Invoice states set by hand that the ledger leaves alone: nothing is collected on them. */
const SET_ASIDE: readonly InvoiceStatus[] = ['void', 'draft', 'uncollectible'];

export interface InvoiceCharge {
  status: InvoiceStatus;
  chargeCents: number;
}

/**
 * Each invoice's status as the ledger has it: the succeeded captures fill the collectable
 * invoices (open, partially_paid, paid) in the order given, each up to its charge; one filled is
 * paid, one started partially_paid, the rest open. Refunds give money back without reopening
 * what was paid. Void, draft and uncollectible invoices stay as they are.
 */
export function invoiceStatuses(invoices: readonly InvoiceCharge[], capturedCents: number): InvoiceStatus[] {
  const uncovered = invoiceUncoveredCents(invoices, capturedCents);
  return invoices.map((invoice, i) => {
    if (SET_ASIDE.includes(invoice.status)) return invoice.status;
    const left = uncovered[i] as number;
    if (left <= 0) return 'paid';
    return left < invoice.chargeCents ? 'partially_paid' : 'open';
  });
}

/** An invoice set to paid records one capture: what it still lacks, at most the balance due. */
export function invoiceSettlementCents(uncoveredCents: number, totalCents: number, netPaid: number): number {
  return Math.max(0, Math.min(uncoveredCents, captureLimitCents(totalCents, netPaid)));
}

/** What of each collectable invoice the succeeded captures have not covered yet (as invoiceStatuses fills them). */
export function invoiceUncoveredCents(invoices: readonly InvoiceCharge[], capturedCents: number): number[] {
  let left = capturedCents;
  return invoices.map((invoice) => {
    if (SET_ASIDE.includes(invoice.status)) return 0;
    const covered = Math.min(Math.max(0, left), invoice.chargeCents);
    left -= covered;
    return invoice.chargeCents - covered;
  });
}
