import { Type, type Static } from 'typebox';
import { pageParams } from '../../core/pagination.js';
import { Pagination } from '../../core/envelope.js';
import { updatedParams } from '../../http/list-query.js';
import { AmountInput, Currency, Id, Money, NullableString, SiteDateTime } from '../../http/schemas.js';

export const ORDER_STATUSES = ['open', 'cancelled', 'completed'] as const;
export const ORDER_PAYMENT_STATUSES = ['not_paid', 'partially_paid', 'fully_paid', 'processing', 'refunded', 'partially_refunded'] as const;
export const FULFILLMENT_STATUSES = ['not_fulfilled', 'partially_fulfilled', 'fulfilled'] as const;
export const INVOICE_STATUSES = ['open', 'paid', 'partially_paid', 'draft', 'void', 'uncollectible'] as const;
export const TRANSACTION_STATUSES = ['succeeded', 'processing', 'failed'] as const;
/** Net paid: succeeded captures − succeeded refunds (docs/money.md). */
const AmountPaid = Money;
/** total − amount_paid; negative when money is owed back. */
const BalanceDue = Money;

/** The site's currency setting: the ISO 4217 code of the amounts beside it. */

export const OrderSummary = Type.Object({
  id: Type.Integer(),
  confirmation_code: Type.String(),
  subtotal: Money,
  total: Money,
  amount_paid: AmountPaid,
  balance_due: BalanceDue,
  currency: Currency,
  status: Type.Enum(ORDER_STATUSES),
  fulfillment_status: Type.Enum(FULFILLMENT_STATUSES),
  payment_status: Type.Enum(ORDER_PAYMENT_STATUSES),
  customer_id: Type.Integer(),
  created_at: SiteDateTime,
  updated_at: SiteDateTime,
}, { title: 'OrderListItem' });

export const OrderItem = Type.Object({
  id: Type.Integer(),
  booking_id: Type.Union([Type.Null(), Type.Integer()]),
  variant: Type.String({ examples: ['booking'] }),
  status: Type.Union([Type.Literal('active'), Type.Literal('cancelled')], { description: 'cancelled with its booking: it no longer counts in the subtotal' }),
  item_data: Type.String({ description: 'JSON-encoded string' }),
  quantity: Type.Integer(),
  subtotal: Money,
  total: Money,
}, { title: 'OrderItem' });

export const Order = Type.Object({
  id: Type.Integer(),
  confirmation_code: Type.String(),
  subtotal: Money,
  total: Money,
  tax_total: Money,
  amount_paid: AmountPaid,
  balance_due: BalanceDue,
  currency: Currency,
  discount_total: Type.Number(),
  coupon_discount: Type.Number(),
  coupon_code: NullableString,
  status: Type.Enum(ORDER_STATUSES),
  payment_status: Type.Enum(ORDER_PAYMENT_STATUSES),
  fulfillment_status: Type.Enum(FULFILLMENT_STATUSES),
  customer_id: Type.Integer(),
  customer_comment: NullableString,
  notes: NullableString,
  ip_address: NullableString,
  source_id: NullableString,
  source_url: NullableString,
  created_at: SiteDateTime,
  updated_at: SiteDateTime,
  items: Type.Array(OrderItem),
}, { title: 'Order' });
export type OrderView = Static<typeof Order>;

export const OrderListQuery = Type.Object({
  ...pageParams(10),
  customer_id: Type.Optional(Id()),
  status: Type.Optional(Type.Enum(ORDER_STATUSES)),
  payment_status: Type.Optional(Type.Enum(ORDER_PAYMENT_STATUSES)),
  ...updatedParams,
  sort: Type.Optional(Type.Enum(['id', 'updated_at'], { default: 'id', description: 'updated_at: ties in id order' })),
  order: Type.Optional(Type.Enum(['asc', 'desc'], { default: 'desc' })),
});
export type OrderListQuery = Static<typeof OrderListQuery>;

export const OrderList = Type.Object({ data: Type.Array(OrderSummary), pagination: Pagination });

const Text = (maxLength: number) => Type.String({ maxLength });

export const OrderUpdateBody = Type.Object(
  {
    total: Type.Optional(AmountInput('Must equal subtotal − discount_total − coupon_discount + tax_total; derived when absent')),
    subtotal: Type.Optional(AmountInput('Order subtotal')),
    tax_total: Type.Optional(AmountInput('Tax added to the total')),
    discount_total: Type.Optional(AmountInput('Discount other than the coupon')),
    coupon_discount: Type.Optional(AmountInput('Coupon discount; when absent, computed from coupon_code, or from the coupon the order holds when the subtotal changes')),
    coupon_code: Type.Optional(
      Type.Union([Type.Null(), Type.String({ maxLength: 50 })], {
        description: 'Applies the coupon (checked and its discount computed); null or empty removes it',
      }),
    ),
    status: Type.Optional(Type.Enum(ORDER_STATUSES)),
    payment_status: Type.Optional(Type.Enum(ORDER_PAYMENT_STATUSES)),
    fulfillment_status: Type.Optional(Type.Enum(FULFILLMENT_STATUSES)),
    customer_comment: Type.Optional(Type.Union([Type.Null(), Text(2000)])),
    notes: Type.Optional(Type.Union([Type.Null(), Text(5000)])),
    ip_address: Type.Optional(Type.Union([Type.Null(), Text(64)])),
    source_id: Type.Optional(Type.Union([Type.Null(), Text(255)])),
    source_url: Type.Optional(Type.Union([Type.Null(), Text(2000)])),
    confirmation_code: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    customer_id: Type.Optional(Id({ description: 'Transfers the order and its bookings to this customer' })),
  },
  { additionalProperties: false },
);
export type OrderUpdateBody = Static<typeof OrderUpdateBody>;

export const Invoice = Type.Object({
  id: Type.Integer(),
  order_id: Type.Integer(),
  invoice_number: Type.String(),
  status: Type.Enum(INVOICE_STATUSES),
  charge_amount: Money,
  currency: Currency,
  payment_portion: Type.String(),
  due_at: Type.Union([Type.Null(), SiteDateTime]),
  created_at: SiteDateTime,
  updated_at: SiteDateTime,
}, { title: 'Invoice' });
export type InvoiceView = Static<typeof Invoice>;

export const InvoiceUpdateBody = Type.Object(
  {
    status: Type.Optional(Type.Enum(INVOICE_STATUSES, { description: 'paid records a succeeded transaction for the unpaid balance' })),
    charge_amount: Type.Optional(AmountInput('Amount the invoice charges')),
  },
  { additionalProperties: false },
);
export type InvoiceUpdateBody = Static<typeof InvoiceUpdateBody>;

/** A payment transaction: the record of GET /orders/{id}/transactions and of /payments. */
export const Transaction = Type.Object({
  id: Type.Integer(),
  order_id: Type.Integer(),
  booking_id: Type.Union([Type.Null(), Type.Integer()]),
  invoice_id: Type.Union([Type.Null(), Type.Integer()]),
  customer_id: Type.Integer(),
  processor: Type.String(),
  payment_method: Type.String(),
  payment_portion: Type.String(),
  kind: Type.String(),
  amount: Money,
  currency: Currency,
  status: Type.Enum(TRANSACTION_STATUSES),
  token: NullableString,
  notes: NullableString,
  receipt_number: NullableString,
  created_at: SiteDateTime,
  updated_at: SiteDateTime,
}, { title: 'Payment' });
export type TransactionView = Static<typeof Transaction>;

export const SubListQuery = Type.Object({ ...pageParams(10) });
export type SubListQuery = Static<typeof SubListQuery>;

export const OrderIdParams = Type.Object({ id: Id() });
export const OrderRefParams = Type.Object({ order_id: Id() });
export const InvoiceParams = Type.Object({ order_id: Id(), invoice_id: Id() });
export const TransactionParams = Type.Object({ order_id: Id(), transaction_id: Id() });
