import type { ColumnType, Generated } from 'kysely';

export interface OrdersTable {
  id: Generated<number>;
  confirmation_code: string;
  customer_id: number;
  status: 'open' | 'cancelled' | 'completed';
  payment_status: 'not_paid' | 'partially_paid' | 'fully_paid' | 'processing' | 'refunded' | 'partially_refunded';
  fulfillment_status: 'not_fulfilled' | 'partially_fulfilled' | 'fulfilled';
  subtotal_cents: number;
  total_cents: number;
  tax_total_cents: number;
  discount_total_cents: number;
  /** The code as it was applied, kept after the coupon is deleted. */
  coupon_code: string | null;
  /** The applied coupon while it exists: its uses are counted by this. */
  coupon_id: number | null;
  coupon_discount_cents: number;
  /** Net paid: succeeded captures − succeeded refunds, written by the ledger (docs/money.md). */
  amount_paid_cents: Generated<number>;
  customer_comment: string | null;
  notes: string | null;
  ip_address: string | null;
  source_id: string | null;
  source_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface OrderItemsTable {
  id: Generated<number>;
  order_id: number;
  booking_id: number | null;
  variant: string;
  /** JSON-encoded string, returned as is. */
  item_data: string;
  quantity: number;
  /** Cancelled with its booking: it no longer counts in the order's subtotal (docs/money.md). */
  status: Generated<'active' | 'cancelled'>;
  subtotal_cents: number;
  total_cents: number;
  created_at: string;
  updated_at: string;
}

export interface InvoicesTable {
  id: Generated<number>;
  order_id: number;
  invoice_number: string;
  status: 'open' | 'paid' | 'partially_paid' | 'draft' | 'void' | 'uncollectible';
  /** Set while the invoice is void because its order closed: the status its reopening gives back (migration 0020). */
  status_before_close: ColumnType<'open' | 'partially_paid' | 'draft' | null, 'open' | 'partially_paid' | 'draft' | null | undefined, 'open' | 'partially_paid' | 'draft' | null>;
  charge_amount_cents: number;
  payment_portion: string;
  due_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface TransactionsTable {
  id: Generated<number>;
  order_id: number;
  booking_id: number | null;
  invoice_id: number | null;
  customer_id: number;
  processor: string;
  payment_method: string;
  payment_portion: string;
  kind: string;
  amount_cents: number;
  status: 'succeeded' | 'processing' | 'failed';
  token: string | null;
  notes: string | null;
  receipt_number: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    orders: OrdersTable;
    order_items: OrderItemsTable;
    invoices: InvoicesTable;
    transactions: TransactionsTable;
  }
}
