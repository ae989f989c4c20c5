import { Type } from 'typebox';
import { DeletedData, envelopeB, listEnvelopeB } from '../../core/envelope.js';
import { DateParam, SortOrderParam } from '../../http/list-query.js';
import { pageParams } from '../../core/pagination.js';
import { AMOUNT_NUMBER_RULES, AmountText, checkedInCode, Id, Int32, PartialText } from '../../http/schemas.js';
import { MAX_ADVANCE_DAYS, MAX_BUFFER_MINUTES, TEXT_LIMITS } from '../../core/limits.js';

export const SERVICE_STATUSES = ['active', 'disabled'] as const;
export const VISIBILITIES = ['visible', 'hidden'] as const;
export const SERVICE_INCLUDES = ['category', 'agents', 'locations'] as const;
export const SERVICE_ORDER_BY = ['id', 'name', 'price', 'duration', 'created_date', 'updated_date'] as const;
export const SERVICES_PER_PAGE = 10;
const SERVICE_NAME_LENGTH = TEXT_LIMITS.name;

const Stamp = Type.String({ description: 'YYYY-MM-DD HH:MM:SS, site timezone' });
const Money = Type.String({ description: 'decimal with two places, e.g. "45.00"' });

export const Service = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  short_description: Type.String(),
  description: Type.String(),
  duration: Type.Integer({ description: 'minutes' }),
  price_min: Money,
  price_max: Money,
  charge_amount: Money,
  deposit_amount: Money,
  capacity_min: Type.Integer(),
  capacity_max: Type.Integer(),
  buffer_before: Type.Integer({ description: 'minutes kept free before each booking (an agent connection may override it)' }),
  buffer_after: Type.Integer({ description: 'minutes kept free after each booking (an agent connection may override it)' }),
  min_notice_minutes: Type.Union([Type.Integer(), Type.Null()], { description: "least notice a booking needs; null: the site's min_lead_minutes" }),
  max_advance_days: Type.Union([Type.Integer(), Type.Null()], { description: "how many days ahead a booking may start, at most; null: the site's max_advance_days" }),
  order_number: Type.Integer(),
  selection_image_id: Type.Integer(),
  status: Type.Enum(SERVICE_STATUSES),
  visibility: Type.Enum(VISIBILITIES),
  category_id: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Stamp,
  updated_at: Stamp,
  category: Type.Optional(Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()], { description: 'include=category' })),
  agents: Type.Optional(
    Type.Array(Type.Object({ id: Type.Integer(), first_name: Type.String(), last_name: Type.String() }), {
      description: 'include=agents: the agents connected to the service',
    }),
  ),
  locations: Type.Optional(
    Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), full_address: Type.String() }), {
      description: 'include=locations: where an active agent connected to the service works',
    }),
  ),
}, { title: 'Service' });

export const ServicePagination = Type.Object({
  current_page: Type.Integer(),
  per_page: Type.Integer(),
  total_items: Type.Integer(),
  total_pages: Type.Integer(),
});

const Include = Type.String({ maxLength: TEXT_LIMITS.includeList, description: `comma-separated: ${SERVICE_INCLUDES.join(', ')}` });

export const ServiceListQuery = Type.Object({
  ...pageParams(SERVICES_PER_PAGE),
  search: Type.Optional(PartialText('Part of the name, short description or description (case-insensitive)')),
  name: Type.Optional(Type.String({ maxLength: SERVICE_NAME_LENGTH, description: 'exact name' })),
  status: Type.Optional(Type.Enum(SERVICE_STATUSES)),
  category_id: Type.Optional(Id()),
  location_id: Type.Optional(Id({ description: 'offered there: an active agent is connected to both' })),
  agent_id: Type.Optional(Id()),
  visibility: Type.Optional(Type.Enum(VISIBILITIES)),
  price_min: Type.Optional(Type.Number({ minimum: 0, maximum: 10_000_000, description: 'price_min at least this' })),
  price_max: Type.Optional(Type.Number({ minimum: 0, maximum: 10_000_000, description: 'price_min at most this' })),
  duration_min: Type.Optional(Int32({ minimum: 0 })),
  duration_max: Type.Optional(Int32({ minimum: 0 })),
  created_after: Type.Optional(DateParam('created on or after this date (site timezone)')),
  created_before: Type.Optional(DateParam('created on or before this date (site timezone)')),
  updated_after: Type.Optional(DateParam('updated on or after this date (site timezone)')),
  updated_before: Type.Optional(DateParam('updated on or before this date (site timezone)')),
  order_by: Type.Optional(Type.Enum(SERVICE_ORDER_BY, { default: 'id' })),
  order: Type.Optional(SortOrderParam),
  include: Type.Optional(Include),
});

export const ServiceReadQuery = Type.Object({ include: Type.Optional(Include) });

const Amount = Type.Union([Type.Number(AMOUNT_NUMBER_RULES), AmountText()], { description: 'decimal, at least 0; default 0' });

export const CreateServiceBody = Type.Object({
  name: Type.String({ description: `1 to ${SERVICE_NAME_LENGTH} characters`, ...checkedInCode({ minLength: 1, maxLength: SERVICE_NAME_LENGTH }) }),
  short_description: Type.Optional(Type.String(checkedInCode({ maxLength: 1000 }))),
  description: Type.Optional(Type.String(checkedInCode({ maxLength: 20000 }))),
  duration: Type.Optional(Int32({ description: 'minutes, 1 to 1440; default 60' })),
  price_min: Type.Optional(Amount),
  price_max: Type.Optional(Amount),
  charge_amount: Type.Optional(Amount),
  deposit_amount: Type.Optional(Amount),
  capacity_min: Type.Optional(Int32({ description: 'default 1' })),
  capacity_max: Type.Optional(Int32({ description: 'default 1; at least capacity_min' })),
  buffer_before: Type.Optional(Int32({ description: `minutes kept free before each booking, 0 to ${MAX_BUFFER_MINUTES}; default 0. Bookings already made keep theirs` })),
  buffer_after: Type.Optional(Int32({ description: `minutes kept free after each booking, 0 to ${MAX_BUFFER_MINUTES}; default 0. Bookings already made keep theirs` })),
  min_notice_minutes: Type.Optional(Type.Union([Int32(), Type.Null()], { description: "0 to 525600; default null: the site's min_lead_minutes" })),
  max_advance_days: Type.Optional(Type.Union([Int32(), Type.Null()], { description: `1 to ${MAX_ADVANCE_DAYS}; default null: the site's max_advance_days` })),
  order_number: Type.Optional(Int32({ description: 'default 0' })),
  selection_image_id: Type.Optional(Int32({ minimum: 0, description: 'default 0' })),
  status: Type.Optional(Type.Enum(SERVICE_STATUSES)),
  visibility: Type.Optional(Type.Enum(VISIBILITIES)),
  category_id: Type.Optional(Type.Union([Id(), Type.Null()])),
  agent_ids: Type.Optional(
    Type.Array(Id(), {
      maxItems: 500,
      description: 'the agents who offer the service (replaces the set; connections kept keep their custom values)',
    }),
  ),
});

export const UpdateServiceBody = Type.Partial(CreateServiceBody);

export const ServiceResponse = envelopeB(Service);
export const ServiceListResponse = listEnvelopeB(Service, ServicePagination);
export const ServiceDeletedResponse = envelopeB(DeletedData);
