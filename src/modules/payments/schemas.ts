import { Type, type Static } from 'typebox';
import { pageParams } from '../../core/pagination.js';
import { Id, MAX_AMOUNT } from '../../http/schemas.js';
import { Transaction, TRANSACTION_STATUSES } from '../orders/index.js';
import { envelopeB, envelopeBList } from '../../core/envelope.js';

const Label = (fallback: string, description: string) => Type.String({ minLength: 1, maxLength: 50, default: fallback, description });
const LabelUpdate = () => Type.String({ minLength: 1, maxLength: 50 });
const Amount = Type.Number({ exclusiveMinimum: 0, maximum: MAX_AMOUNT, description: 'Rounded half-up to the cent; at least 0.01' });
const NullableText = (maxLength: number) => Type.Union([Type.Null(), Type.String({ maxLength })]);

export const PaymentCreateBody = Type.Object(
  {
    order_id: Id(),
    amount: Amount,
    customer_id: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: "0 or absent: the order's customer" })),
    processor: Type.Optional(Label('manual', 'Payment processor')),
    payment_method: Type.Optional(Label('other', 'Payment method')),
    payment_portion: Type.Optional(Label('full', 'Portion of the order this pays (full, deposit, …)')),
    kind: Type.Optional(Label('capture', 'capture (money in, at most the balance due) or refund (money back, at most the net paid)')),
    status: Type.Optional(Type.Enum(TRANSACTION_STATUSES, { default: 'succeeded' })),
    token: Type.Optional(NullableText(255)),
    notes: Type.Optional(NullableText(2000)),
  },
  { additionalProperties: false },
);
export type PaymentCreateBody = Static<typeof PaymentCreateBody>;

export const PaymentUpdateBody = Type.Object(
  {
    amount: Type.Optional(Amount),
    processor: Type.Optional(LabelUpdate()),
    payment_method: Type.Optional(LabelUpdate()),
    payment_portion: Type.Optional(LabelUpdate()),
    kind: Type.Optional(LabelUpdate()),
    status: Type.Optional(Type.Enum(TRANSACTION_STATUSES)),
    token: Type.Optional(NullableText(255)),
    notes: Type.Optional(NullableText(2000)),
    receipt_number: Type.Optional(NullableText(100)),
  },
  { additionalProperties: false },
);
export type PaymentUpdateBody = Static<typeof PaymentUpdateBody>;

export const PaymentListQuery = Type.Object({
  ...pageParams(10),
  order_id: Type.Optional(Id()),
  customer_id: Type.Optional(Id()),
  status: Type.Optional(Type.Enum(TRANSACTION_STATUSES)),
});
export type PaymentListQuery = Static<typeof PaymentListQuery>;

export const PaymentIdParams = Type.Object({ id: Id() });

export const PaymentResponse = envelopeB(Transaction);
export const PaymentListResponse = envelopeBList(Transaction);
