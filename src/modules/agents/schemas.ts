import { Type, type TSchema } from 'typebox';
import { DeletedData, envelopeB, listEnvelopeB } from '../../core/envelope.js';
import { DateParam, SortOrderParam } from '../../http/list-query.js';
import { pageParams } from '../../core/pagination.js';
import { AMOUNT_NUMBER_RULES, AmountText, checkedInCode, Id, Int32, PartialText } from '../../http/schemas.js';
import { WeeklyInputSchema, WeeklySchema } from '../schedules/index.js';
import { MAX_BUFFER_MINUTES, TEXT_LIMITS } from '../../core/limits.js';

export const AGENT_STATUSES = ['active', 'disabled'] as const;
export const AGENT_ORDER_BY = ['id', 'first_name', 'last_name', 'email', 'created_at', 'updated_at', 'status'] as const;
export const AGENT_INCLUDES = ['services', 'locations'] as const;
export const AGENTS_PER_PAGE = 10;

const Stamp = Type.String({ description: 'YYYY-MM-DD HH:MM:SS, site timezone' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const AgentService = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  is_custom_hours: Type.Boolean(),
  is_custom_price: Type.Boolean(),
  is_custom_duration: Type.Boolean(),
  custom_price: Nullable(Type.String({ description: 'decimal with two places' })),
  custom_duration: Nullable(Type.Integer({ description: 'minutes' })),
  custom_hours: Nullable(WeeklySchema),
  buffer_before: Nullable(Type.Integer({ description: "minutes kept free before each booking; null: the service's" })),
  buffer_after: Nullable(Type.Integer({ description: "minutes kept free after each booking; null: the service's" })),
});

export const Agent = Type.Object({
  id: Type.Integer(),
  first_name: Type.String(),
  last_name: Type.String(),
  display_name: Type.String({ description: 'as set, else first and last name' }),
  email: Type.String(),
  phone: Nullable(Type.String()),
  bio: Nullable(Type.String()),
  features: Type.String({ description: 'JSON-encoded array of {label, value}' }),
  status: Type.Enum(AGENT_STATUSES),
  created_at: Stamp,
  updated_at: Stamp,
  services: Type.Optional(Type.Array(AgentService, { description: 'include=services' })),
  locations: Type.Optional(Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }), { description: 'include=locations' })),
}, { title: 'Agent' });

export const AgentPagination = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});

const Include = Type.String({ maxLength: TEXT_LIMITS.includeList, description: `comma-separated: ${AGENT_INCLUDES.join(', ')}` });

export const AgentListQuery = Type.Object({
  ...pageParams(AGENTS_PER_PAGE),
  status: Type.Optional(Type.Enum(AGENT_STATUSES)),
  search: Type.Optional(PartialText('Part of the full name (first, last or both) or the email; case-insensitive, trimmed')),
  email: Type.Optional(Type.String({ maxLength: TEXT_LIMITS.email, description: 'exact email (case-insensitive)' })),
  phone: Type.Optional(PartialText('part of the phone number')),
  location_id: Type.Optional(Id()),
  service_id: Type.Optional(Id()),
  created_after: Type.Optional(DateParam('created on or after this date (site timezone)')),
  created_before: Type.Optional(DateParam('created on or before this date (site timezone)')),
  include: Type.Optional(Include),
  order_by: Type.Optional(Type.Enum(AGENT_ORDER_BY, { default: 'first_name' })),
  order: Type.Optional(SortOrderParam),
});

export const AgentReadQuery = Type.Object({ include: Type.Optional(Include) });

const ServiceConnection = Type.Object({
  service_id: Id(),
  custom_price: Type.Optional(Nullable(Type.Union([Type.Number(AMOUNT_NUMBER_RULES), AmountText()]))),
  custom_duration: Type.Optional(Nullable(Int32({ description: 'minutes, 1 to 1440' }))),
  custom_hours: Type.Optional(Nullable(WeeklyInputSchema)),
  buffer_before: Type.Optional(Nullable(Int32({ description: `minutes, 0 to ${MAX_BUFFER_MINUTES}; null or absent: the service's` }))),
  buffer_after: Type.Optional(Nullable(Int32({ description: `minutes, 0 to ${MAX_BUFFER_MINUTES}; null or absent: the service's` }))),
});

/** An agent shows at most MAX_FEATURES features, each a short label and its value. */
export const MAX_FEATURES = 100;
export const FEATURE_LIMITS = { label: TEXT_LIMITS.name, value: 1_000 } as const;
// Room for the longest list of the longest features with JSON's punctuation (escapes aside); the
// route checks each feature of the text as the schema checks the array.
const MAX_FEATURES_JSON_LENGTH = MAX_FEATURES * (FEATURE_LIMITS.label + FEATURE_LIMITS.value + 30);
const Feature = Type.Object({ label: Type.String({ maxLength: FEATURE_LIMITS.label }), value: Type.String({ maxLength: FEATURE_LIMITS.value }) });

const fields = {
  first_name: Type.String({ description: '1 to 100 characters', ...checkedInCode({ minLength: 1, maxLength: 100 }) }),
  last_name: Type.String({ description: '1 to 100 characters', ...checkedInCode({ minLength: 1, maxLength: 100 }) }),
  email: Type.String({ description: 'a valid email address', ...checkedInCode({ format: 'email', minLength: 3, maxLength: 254 }) }),
  phone: Nullable(Type.String({ description: 'digits, spaces, + ( ) - . ; at most 30 characters; "" for none', ...checkedInCode({ maxLength: 30, pattern: '^(\\+?[\\d\\s().-]{3,})?$' }) })),
  display_name: Nullable(Type.String({ description: 'at most 200 characters; null shows first and last name', ...checkedInCode({ maxLength: 200 }) })),
  bio: Nullable(Type.String({ description: 'at most 5000 characters', ...checkedInCode({ maxLength: 5000 }) })),
  features: Nullable(
    Type.Union([Type.Array(Feature, { maxItems: MAX_FEATURES }), Type.String({ maxLength: MAX_FEATURES_JSON_LENGTH })], {
      description: 'array of {label, value}, or the same JSON-encoded as a string',
    }),
  ),
  status: Type.Enum(AGENT_STATUSES),
  service_ids: Type.Array(Id(), { maxItems: 500, description: 'services the agent offers, without custom values' }),
  location_ids: Type.Array(Id(), { maxItems: 500, description: 'locations where the agent works (replaces the set)' }),
  services: Type.Array(ServiceConnection, {
    maxItems: 500,
    description: 'services with custom price, duration, hours or buffers; together with service_ids they replace the set',
  }),
};

export const CreateAgentBody = Type.Object({
  first_name: fields.first_name,
  last_name: fields.last_name,
  email: fields.email,
  phone: Type.Optional(fields.phone),
  display_name: Type.Optional(fields.display_name),
  bio: Type.Optional(fields.bio),
  features: Type.Optional(fields.features),
  status: Type.Optional(fields.status),
  service_ids: Type.Optional(fields.service_ids),
  location_ids: Type.Optional(fields.location_ids),
  services: Type.Optional(fields.services),
});

export const UpdateAgentBody = Type.Partial(CreateAgentBody);

export const AgentResponse = envelopeB(Agent);
export const AgentListResponse = listEnvelopeB(Agent, AgentPagination);
export const AgentDeletedResponse = envelopeB(DeletedData);
