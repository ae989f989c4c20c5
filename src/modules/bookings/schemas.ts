import { Type, type Static, type TSchema } from 'typebox';
import { pageParams } from '../../core/pagination.js';
import { updatedParams } from '../../http/list-query.js';
import { AMOUNT_NUMBER_RULES, AmountText, checkedInCode, Currency, Id, Int32, MAX_AMOUNT, PartialText } from '../../http/schemas.js';
import { CUSTOMER_EMAIL_RULES, CUSTOMER_NAME_RULES, CUSTOMER_PHONE_RULES } from '../customers/index.js';
import { AgentChoice, DateText, TimeText } from '../availability/index.js';
import { MAX_BULK_BOOKINGS, TEXT_LIMITS } from '../../core/limits.js';

/** Booking metadata is bounded, so that a booking and the pages that list it stay small. */
export const META_LIMITS = { keys: 50, keyLength: 100, valueLength: 1000 } as const;
const MetaRules = checkedInCode({ maxProperties: META_LIMITS.keys, propertyNames: { minLength: 1, maxLength: META_LIMITS.keyLength } });
const MetaValueRules = checkedInCode({ maxLength: META_LIMITS.valueLength });

// A link's key lets whoever holds it see and cancel the booking: only keys that may change bookings see it on a read.
const ManageLink = Type.Union([Type.String(), Type.Null()], {
  description: 'URL with an access key; null unless the API key has bookings:update (a link can cancel the booking)',
});
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Money = Type.Union([AmountText(), Type.Number(AMOUNT_NUMBER_RULES)], { description: 'decimal amount, e.g. "45.00"' });
const Duration = Type.Integer({ minimum: 1, maximum: 1440, description: 'minutes' });
const Notes = Type.String({ maxLength: TEXT_LIMITS.notes });
const Attendees = Type.Integer({ minimum: 1, maximum: 1000, description: "seats the booking takes of the service's capacity_max; default 1" });

// The rules of POST /customers, checked in code as there.
const FirstName = Type.String(CUSTOMER_NAME_RULES);
const LastName = Type.String(CUSTOMER_NAME_RULES);
const Email = Type.String(CUSTOMER_EMAIL_RULES);
const Phone = Type.String({ description: '"" for none', ...CUSTOMER_PHONE_RULES });

export const CustomerFields = Type.Object({
  first_name: Type.Optional(FirstName),
  last_name: Type.Optional(LastName),
  email: Type.Optional(Email),
  phone: Type.Optional(Phone),
});
export type CustomerFieldsInput = Static<typeof CustomerFields>;

export const CreateStatus = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('cancelled')]);
export const BookingStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('approved'),
  Type.Literal('cancelled'),
  Type.Literal('completed'),
  Type.Literal('no_show'),
]);

/** The fields of one booking to create, as POST /bookings and each bulk element take them. */
const createFields = {
  service_id: Id(),
  agent_id: AgentChoice,
  start_date: DateText,
  start_time: TimeText,
  customer_id: Type.Optional(Id()),
  customer: Type.Optional(CustomerFields),
  location_id: Type.Optional(Id()),
  duration: Type.Optional(Duration),
  attendees: Type.Optional(Attendees),
  price: Type.Optional(Money),
  coupon_code: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: "Applies the coupon to the booking's new order, checked as PUT /orders checks it; a refused coupon refuses the booking (422)" })),
  status: Type.Optional(CreateStatus),
  notes: Type.Optional(Notes),
  meta: Type.Optional(
    Type.Record(Type.String(), Type.String(MetaValueRules), { description: 'booking metadata, string values; at most 50 keys of 1 to 100 characters, values up to 1000', ...MetaRules }),
  ),
};

export const CreateBookingBody = Type.Object({
  ...createFields,
  'customer.first_name': Type.Optional(FirstName),
  'customer.last_name': Type.Optional(LastName),
  'customer.email': Type.Optional(Email),
  'customer.phone': Type.Optional(Phone),
  send_confirmation: Type.Optional(Type.Boolean({ default: true })),
});
export type CreateBookingInput = Static<typeof CreateBookingBody>;

/** A bulk element: checked one by one (a bad element fails alone), customer only nested. */
export const BulkElement = Type.Object(createFields);
export type BulkElementInput = Static<typeof BulkElement>;

const bulkFields = <T extends TSchema>(element: T) => ({
  bookings: Type.Array(element, { minItems: 1, maxItems: MAX_BULK_BOOKINGS }),
  send_confirmation: Type.Optional(Type.Boolean({ default: false })),
});
/** As the route checks it: each element is checked alone (BulkElement), so that a bad one fails alone. */
export const BulkBody = Type.Object(bulkFields(Type.Record(Type.String(), Type.Unknown())));
/** As the document shows it. */
export const DocumentedBulkBody = Type.Object(bulkFields(BulkElement));

export const UpdateBookingBody = Type.Object({
  service_id: Type.Optional(Id({ description: "A new service brings its own duration and price (the agent's custom ones first) unless duration or price is given" })),
  agent_id: Type.Optional(Id({ description: "A new agent brings their custom duration and price for the service (else the service's) unless duration or price is given" })),
  location_id: Type.Optional(Id()),
  start_date: Type.Optional(DateText),
  start_time: Type.Optional(TimeText),
  duration: Type.Optional(Duration),
  attendees: Type.Optional(Attendees),
  status: Type.Optional(BookingStatusSchema),
  customer_id: Type.Optional(Id({ description: "Moves the booking and its order to this customer; the booking's manage links change" })),
  customer: Type.Optional(CustomerFields),
  'customer.first_name': Type.Optional(FirstName),
  'customer.last_name': Type.Optional(LastName),
  'customer.email': Type.Optional(Email),
  'customer.phone': Type.Optional(Phone),
  price: Type.Optional(Money),
  notes: Type.Optional(Notes),
  meta: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.Null(), Type.String(MetaValueRules)]), {
      description: 'merged; null removes a key; a booking holds at most 50 keys of 1 to 100 characters, values up to 1000',
      ...MetaRules,
    }),
  ),
  send_notification: Type.Optional(
    Type.Boolean({
      description:
        'true: the customer gets a change notice (with its calendar update) for a change they see; false: no mail to the customer at all; not sent: a cancellation only. Agents are told of new times and cancellations whatever this says, unless the site turned staff_notifications off.',
    }),
  ),
});
export type UpdateBookingInput = Static<typeof UpdateBookingBody>;

export const ListQuery = Type.Object({
  ...pageParams(20, 100),
  status: Type.Optional(
    Type.Union([
      Type.Literal('pending'),
      Type.Literal('confirmed'),
      Type.Literal('approved'),
      Type.Literal('cancelled'),
      Type.Literal('completed'),
      Type.Literal('no_show'),
    ]),
  ),
  customer_id: Type.Optional(Id()),
  agent_id: Type.Optional(Id()),
  service_id: Type.Optional(Id()),
  location_id: Type.Optional(Id()),
  date_from: Type.Optional(DateText),
  date_to: Type.Optional(DateText),
  created_date_from: Type.Optional(DateText),
  created_date_to: Type.Optional(DateText),
  ...updatedParams,
  booking_code: Type.Optional(PartialText('part of the booking code')),
  payment_status: Type.Optional(
    Type.Union([Type.Literal('not_paid'), Type.Literal('partially_paid'), Type.Literal('paid'), Type.Literal('refunded')]),
  ),
  duration_min: Type.Optional(Int32({ minimum: 0 })),
  duration_max: Type.Optional(Int32({ minimum: 0 })),
  price_min: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_AMOUNT })),
  price_max: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_AMOUNT })),
  customer_email: Type.Optional(PartialText("part of the customer's email")),
  customer_phone: Type.Optional(PartialText("part of the customer's phone")),
  include_meta: Type.Optional(Type.Boolean({ default: false })),
  meta_key: Type.Optional(Type.String({ minLength: 1, maxLength: META_LIMITS.keyLength })),
  meta_value: Type.Optional(PartialText('part of the value of meta_key', META_LIMITS.valueLength)),
  search: Type.Optional(PartialText("part of the customer's name or email, or of the booking code")),
  sort: Type.Optional(
    Type.Union([Type.Literal('start_date'), Type.Literal('created_at'), Type.Literal('updated_at'), Type.Literal('customer_name'), Type.Literal('status'), Type.Literal('id')], {
      default: 'start_date',
    }),
  ),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' })),
});
export type ListQueryInput = Static<typeof ListQuery>;

const MetaObject = Type.Record(Type.String(), Type.String());

export const BookingDetail = Type.Object({
  id: Type.Integer(),
  booking_code: Type.String(),
  status: BookingStatusSchema,
  start_date: Type.String(),
  start_time: Type.String(),
  end_date: Type.String(),
  end_time: Type.String(),
  start_datetime: Type.String({ description: 'ISO 8601 with offset' }),
  end_datetime: Type.String({ description: 'ISO 8601 with offset' }),
  timezone: Type.String(),
  duration: Type.Integer(),
  attendees: Type.Integer({ description: "seats the booking takes of the service's capacity_max" }),
  price: Type.String(),
  currency: Currency,
  payment_status: Type.String(),
  notes: Nullable(Type.String()),
  customer_comment: Nullable(Type.String()),
  service_name: Type.String(),
  service_id: Type.Integer(),
  agent_id: Type.Integer(),
  location_id: Type.Integer(),
  customer_id: Type.Integer(),
  order_id: Nullable(Type.Integer()),
  customer: Type.Object({
    id: Type.Integer(),
    first_name: Type.String(),
    last_name: Type.String(),
    full_name: Type.String(),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
  }),
  agent: Type.Object({
    id: Type.Integer(),
    full_name: Type.String(),
    display_name: Type.String(),
    email: Type.String(),
    phone: Nullable(Type.String()),
  }),
  service: Type.Object({ id: Type.Integer(), name: Type.String(), duration: Type.Integer(), price: Type.String() }),
  location: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    full_address: Type.String(),
    category: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
  }),
  order: Nullable(
    Type.Object({
      id: Type.Integer(),
      confirmation_code: Type.String(),
      customer_comment: Nullable(Type.String()),
      status: Type.String(),
      fulfillment_status: Type.String(),
      payment_status: Type.String(),
      source_id: Nullable(Type.String()),
      source_url: Nullable(Type.String()),
      total: Type.String(),
      subtotal: Type.String(),
      currency: Currency,
      created_datetime: Type.String(),
    }),
  ),
  transactions: Type.Array(
    Type.Object({
      id: Type.Integer(),
      order_id: Type.Integer(),
      booking_id: Nullable(Type.Integer()),
      amount: Type.String(),
      currency: Currency,
      status: Type.String(),
      processor: Type.String(),
      payment_method: Type.String(),
      payment_portion: Type.String(),
      kind: Type.String(),
      created_at: Type.String(),
    }),
  ),
  service_extras: Type.Array(Type.Unknown()),
  meta: MetaObject,
  manage_booking_for_agent: ManageLink,
  manage_booking_for_customer: ManageLink,
  created_datetime: Type.String({ description: 'ISO 8601 with offset' }),
  created_at: Type.String(),
  updated_at: Type.String(),
}, { title: 'Booking' });

export const BookingListItem = Type.Object({
  id: Type.Integer(),
  booking_code: Type.String(),
  status: BookingStatusSchema,
  start_date: Type.String(),
  start_time: Type.String(),
  end_time: Type.String(),
  duration: Type.Integer(),
  price: Type.String(),
  currency: Currency,
  payment_status: Type.String(),
  notes: Nullable(Type.String()),
  agent: Type.Object({ id: Type.Integer(), display_name: Type.String(), email: Type.String() }),
  service: Type.Object({ id: Type.Integer(), name: Type.String(), duration: Type.Integer(), price: Type.String() }),
  location: Type.Object({ id: Type.Integer(), name: Type.String(), address: Type.String() }),
  customer: Type.Object({
    id: Type.Integer(),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
  }),
  meta: Type.Optional(MetaObject),
  created_at: Type.String(),
  updated_at: Type.String(),
}, { title: 'BookingListItem' });

export const ListResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(BookingListItem),
  meta: Type.Object({
    total: Type.Integer(),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total_pages: Type.Integer(),
    has_next_page: Type.Boolean(),
    has_prev_page: Type.Boolean(),
  }),
});

export const DetailResponse = Type.Object({ status: Type.Literal('success'), data: BookingDetail });
export const ReadResponse = Type.Object({ status: Type.Literal('success'), success: Type.Literal(true), data: BookingDetail });
export const DeleteResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) }),
});

const BulkSuccess = Type.Object({
  index: Type.Integer(),
  booking_id: Type.Integer(),
  data: Type.Object({
    id: Type.Integer(),
    booking_code: Type.String(),
    service: Type.Object({ id: Type.Integer(), name: Type.String() }),
    agent: Type.Object({ id: Type.Integer(), full_name: Type.String() }),
    customer: Type.Object({ id: Type.Integer(), full_name: Type.String(), email: Nullable(Type.String()) }),
    start_date: Type.String(),
    start_time: Type.String(),
    status: BookingStatusSchema,
  }),
  confirmation_sent: Type.Boolean(),
}, { title: 'BulkBookingCreated' });
const BulkFailure = Type.Object({
  index: Type.Integer(),
  error: Type.String(),
  code: Type.String({ description: 'the error code the single create would answer' }),
  booking_data: Type.Unknown(),
}, { title: 'BulkBookingFailed' });
export const BulkResponse = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  results: Type.Object({
    success: Type.Array(BulkSuccess),
    errors: Type.Array(BulkFailure),
    summary: Type.Object({ total_requested: Type.Integer(), successful: Type.Integer(), failed: Type.Integer() }),
  }),
});
export type BulkResult = Static<typeof BulkResponse>;
