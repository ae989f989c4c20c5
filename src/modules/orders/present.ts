import { centsToNumber, formatCents } from '../../lib/money.js';
import { localDateTime } from '../../lib/time.js';
import type { SiteContext } from '../../core/site.js';

/** What presenting money needs of the site: its zone for times, its currency for amounts. */
export type MoneySite = Pick<SiteContext, 'timezone' | 'currency'>;
import { balanceDueCents } from './totals.js';
import type { InvoiceRow, OrderItemRow, OrderRow, TransactionRow } from './repository.js';
import type { InvoiceView, OrderView, TransactionView } from './schemas.js';

/** What the ledger holds against the total (docs/money.md). */
function paidAndDue(row: OrderRow) {
  return { amount_paid: formatCents(row.amount_paid_cents), balance_due: formatCents(balanceDueCents(row.total_cents, row.amount_paid_cents)) };
}

export function presentOrderSummary(row: OrderRow, { timezone, currency }: MoneySite) {
  return {
    id: row.id,
    confirmation_code: row.confirmation_code,
    subtotal: formatCents(row.subtotal_cents),
    total: formatCents(row.total_cents),
    ...paidAndDue(row),
    currency,
    status: row.status,
    fulfillment_status: row.fulfillment_status,
    payment_status: row.payment_status,
    customer_id: row.customer_id,
    created_at: localDateTime(row.created_at, timezone),
    updated_at: localDateTime(row.updated_at, timezone),
  };
}

export function presentOrder(row: OrderRow, items: readonly OrderItemRow[], { timezone, currency }: MoneySite): OrderView {
  return {
    id: row.id,
    confirmation_code: row.confirmation_code,
    subtotal: formatCents(row.subtotal_cents),
    total: formatCents(row.total_cents),
    tax_total: formatCents(row.tax_total_cents),
    ...paidAndDue(row),
    currency,
    discount_total: centsToNumber(row.discount_total_cents),
    coupon_discount: centsToNumber(row.coupon_discount_cents),
    coupon_code: row.coupon_code,
    status: row.status,
    payment_status: row.payment_status,
    fulfillment_status: row.fulfillment_status,
    customer_id: row.customer_id,
    customer_comment: row.customer_comment,
    notes: row.notes,
    ip_address: row.ip_address,
    source_id: row.source_id,
    source_url: row.source_url,
    created_at: localDateTime(row.created_at, timezone),
    updated_at: localDateTime(row.updated_at, timezone),
    items: items.map((item) => ({
      id: item.id,
      booking_id: item.booking_id,
      variant: item.variant,
      status: item.status,
      item_data: item.item_data,
      quantity: item.quantity,
      subtotal: formatCents(item.subtotal_cents),
      total: formatCents(item.total_cents),
    })),
  };
}

export function presentInvoice(row: InvoiceRow, { timezone, currency }: MoneySite): InvoiceView {
  return {
    id: row.id,
    order_id: row.order_id,
    invoice_number: row.invoice_number,
    status: row.status,
    charge_amount: formatCents(row.charge_amount_cents),
    currency,
    payment_portion: row.payment_portion,
    due_at: row.due_at === null ? null : localDateTime(row.due_at, timezone),
    created_at: localDateTime(row.created_at, timezone),
    updated_at: localDateTime(row.updated_at, timezone),
  };
}

export function presentTransaction(row: TransactionRow, { timezone, currency }: MoneySite): TransactionView {
  return {
    id: row.id,
    order_id: row.order_id,
    booking_id: row.booking_id,
    invoice_id: row.invoice_id,
    customer_id: row.customer_id,
    processor: row.processor,
    payment_method: row.payment_method,
    payment_portion: row.payment_portion,
    kind: row.kind,
    amount: formatCents(row.amount_cents),
    currency,
    status: row.status,
    token: row.token,
    notes: row.notes,
    receipt_number: row.receipt_number,
    created_at: localDateTime(row.created_at, timezone),
    updated_at: localDateTime(row.updated_at, timezone),
  };
}
