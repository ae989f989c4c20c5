import { Type, type Static, type TSchema } from 'typebox';
import { pageParams } from '../../core/pagination.js';
import { updatedParams } from '../../http/list-query.js';
import { checkedInCode, Id } from '../../http/schemas.js';
import { textPattern } from '../../http/text-patterns.js';
import { MAX_CUSTOM_FIELD_VALUE_LENGTH, MAX_CUSTOM_FIELDS, TEXT_LIMITS } from '../../core/limits.js';

export const CUSTOMER_STATUSES = ['active', 'inactive', 'pending', 'pending_verification', 'blocked'] as const;
export const CREATE_STATUSES = ['active', 'inactive', 'pending'] as const;
export const UPDATE_STATUSES = ['active', 'inactive', 'pending_verification', 'blocked'] as const;
export const GENDERS = ['male', 'female', 'other', 'prefer_not_to_say'] as const;
export const INCLUDES = ['bookings', 'stats', 'custom_fields', 'notes', 'avatar'] as const;
export type Include = (typeof INCLUDES)[number];

export const CustomerIdParams = Type.Object({ id: Id() });

/** The most recent bookings a customer carries with include=bookings; GET /bookings?customer_id= pages through all. */
export const BOOKINGS_PER_CUSTOMER = 50;

/** A request field that may also be null (to clear it). */
function nullable<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}
function nullableEnum<const V extends readonly string[]>(values: V, description?: string) {
  return Type.Unsafe<V[number] | null>({ type: 'string', enum: [...values, null], nullable: true, description });
}

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);
const LocalDateTime = Type.String({ description: 'YYYY-MM-DD HH:MM:SS in the site timezone' });

// --- List query ---------------------------------------------------------------------------------

const INCLUDE_ALTERNATIVES = INCLUDES.join('|');
const INCLUDE_PATTERN = textPattern(
  `^\\s*((${INCLUDE_ALTERNATIVES})\\s*(,\\s*(${INCLUDE_ALTERNATIVES})\\s*)*)?$`,
  `must be a comma-separated list of: ${INCLUDES.join(', ')}`,
);
/** YYYY, YYYY-MM, YYYY-MM-DD, then optionally " HH", ":MM", ":SS" (a space or T before the hour). */
const DATE_PREFIX_PATTERN = textPattern(
  '^\\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\\d|3[01])([ T]([01]\\d|2[0-3])(:[0-5]\\d(:[0-5]\\d)?)?)?)?)?$',
  'must be the start of a date and time: YYYY, YYYY-MM or YYYY-MM-DD, then optionally HH, HH:MM or HH:MM:SS',
);

const partialText = (what: string) =>
  Type.Optional(Type.String({ maxLength: 100, description: `Case-insensitive partial match on ${what}; empty is ignored` }));
const datePrefix = (what: string) =>
  Type.Optional(
    Type.String({
      maxLength: 'YYYY-MM-DD HH:MM:SS'.length,
      pattern: DATE_PREFIX_PATTERN,
      description: `Matches customers whose ${what} (YYYY-MM-DD HH:MM:SS, site timezone) starts with this text: YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DD HH, … HH:MM or … HH:MM:SS`,
    }),
  );

export const CustomerListQuery = Type.Object({
  ...pageParams(20, 100),
  status: Type.Optional(Type.Enum(CUSTOMER_STATUSES)),
  created_after: Type.Optional(
    Type.String({ format: 'date', description: 'YYYY-MM-DD: created on or after this day (site timezone)' }),
  ),
  created_before: Type.Optional(
    Type.String({ format: 'date', description: 'YYYY-MM-DD: created on or before this day (site timezone)' }),
  ),
  has_bookings: Type.Optional(Type.Boolean({ description: 'true: only customers with a booking; false: only those without' })),
  first_name: partialText('the first name'),
  last_name: partialText('the last name'),
  email: partialText('the email'),
  phone: partialText('the phone'),
  is_guest: Type.Optional(Type.Boolean()),
  host_user_id: Type.Optional(Id({ description: 'Exact match' })),
  created_at: datePrefix('created_at'),
  updated_at: datePrefix('updated_at'),
  ...updatedParams,
  search: partialText('the full name, email or phone'),
  order_by: Type.Optional(Type.Enum(['id', 'created_at', 'updated_at'], { default: 'created_at' })),
  order_direction: Type.Optional(Type.Enum(['asc', 'desc'], { default: 'desc' })),
  include: Type.Optional(
    Type.String({
      maxLength: TEXT_LIMITS.includeList,
      pattern: INCLUDE_PATTERN,
      description: `Comma-separated: ${INCLUDES.join(', ')}. bookings: the customer's ${BOOKINGS_PER_CUSTOMER} latest bookings by start.`,
    }),
  ),
});
export type CustomerListQuery = Static<typeof CustomerListQuery>;

export const CustomerReadQuery = Type.Object({
  include: Type.Optional(
    Type.String({
      maxLength: TEXT_LIMITS.includeList,
      pattern: INCLUDE_PATTERN,
      description: 'Comma-separated; bookings and stats add those members (custom_fields, notes and avatar are always present)',
    }),
  ),
});

// --- Bodies -------------------------------------------------------------------------------------

const NAME_RULE = '2 to 50 characters: letters of any script, spaces and hyphens';
export const NAME_RULES = checkedInCode({ minLength: 2, maxLength: 50, pattern: '^[\\p{L}\\p{M} -]+$' });
export const EMAIL_RULES = checkedInCode({ format: 'email', maxLength: 100 });
export const PHONE_RULES = checkedInCode({ maxLength: 20, pattern: '^\\+?[0-9 ().-]+$' });
const DATE_RULES = checkedInCode({ format: 'date' });
const textRules = (maxLength: number) => checkedInCode({ maxLength });
/** Custom fields: the route checks keys (after trimming), value types and text lengths itself; the schema bounds how many a request sends. */
const customFields = (description: string) =>
  Type.Record(Type.String(), Type.Unknown(checkedInCode({ maxLength: MAX_CUSTOM_FIELD_VALUE_LENGTH })), {
    description: `${description}; at most ${MAX_CUSTOM_FIELDS} keys of 1 to 100 characters, text values up to ${MAX_CUSTOM_FIELD_VALUE_LENGTH}`,
    maxProperties: MAX_CUSTOM_FIELDS,
    ...checkedInCode({ propertyNames: { minLength: 1, maxLength: 100 } }),
  });

export const CreateCustomerBody = Type.Object({
  first_name: Type.String({ description: NAME_RULE, ...NAME_RULES }),
  last_name: Type.String({ description: NAME_RULE, ...NAME_RULES }),
  email: Type.Optional(nullable(Type.String({ description: 'Valid address, at most 100 characters, unique case-insensitively; null or "" for none', ...EMAIL_RULES }))),
  phone: Type.Optional(nullable(Type.String({ description: '6 to 15 digits, optional leading + and country code; spaces, dots, hyphens, parentheses; at most 20 characters', ...PHONE_RULES }))),
  status: Type.Optional(Type.Enum(CREATE_STATUSES, { default: 'active' })),
  date_of_birth: Type.Optional(nullable(Type.String({ description: 'YYYY-MM-DD, not in the future', ...DATE_RULES }))),
  gender: Type.Optional(nullableEnum(GENDERS)),
  address: Type.Optional(nullable(Type.String({ description: 'At most 255 characters', ...textRules(255) }))),
  city: Type.Optional(nullable(Type.String({ description: 'At most 100 characters', ...textRules(100) }))),
  state: Type.Optional(nullable(Type.String({ description: 'At most 100 characters', ...textRules(100) }))),
  zipcode: Type.Optional(nullable(Type.String({ description: 'At most 20 characters', ...textRules(20) }))),
  country: Type.Optional(nullable(Type.String({ description: 'At most 100 characters', ...textRules(100) }))),
  custom_fields: Type.Optional(customFields('Key-value pairs; values are strings, numbers or booleans')),
  notes: Type.Optional(nullable(Type.String({ description: 'At most 1000 characters', ...textRules(1000) }))),
  is_guest: Type.Optional(Type.Boolean({ default: false })),
  host_user_id: Type.Optional(nullable(Id())),
  preferred_agent_id: Type.Optional(nullable(Id({ description: 'An active agent' }))),
  preferred_location_id: Type.Optional(nullable(Id({ description: 'An active location' }))),
});
export type CreateCustomerBody = Static<typeof CreateCustomerBody>;

export const UpdateCustomerBody = Type.Object(
  {
    first_name: Type.Optional(Type.String({ description: NAME_RULE, ...NAME_RULES })),
    last_name: Type.Optional(Type.String({ description: NAME_RULE, ...NAME_RULES })),
    email: Type.Optional(nullable(Type.String({ description: 'Unique across customers; null or "" removes it', ...EMAIL_RULES }))),
    phone: Type.Optional(nullable(Type.String({ description: 'Same rules as on create; null or "" removes it', ...PHONE_RULES }))),
    status: Type.Optional(Type.Enum(UPDATE_STATUSES)),
    is_guest: Type.Optional(Type.Boolean()),
    date_of_birth: Type.Optional(nullable(Type.String({ description: 'YYYY-MM-DD, not in the future', ...DATE_RULES }))),
    gender: Type.Optional(nullableEnum(GENDERS)),
    address: Type.Optional(nullable(Type.String({ description: 'At most 255 characters', ...textRules(255) }))),
    city: Type.Optional(nullable(Type.String({ description: 'At most 100 characters', ...textRules(100) }))),
    state: Type.Optional(nullable(Type.String({ description: 'At most 100 characters', ...textRules(100) }))),
    zipcode: Type.Optional(nullable(Type.String({ description: 'At most 20 characters', ...textRules(20) }))),
    country: Type.Optional(nullable(Type.String({ description: 'ISO 3166-1 alpha-2 code (any case; stored upper case); null or "" removes it', ...checkedInCode({ pattern: '^([A-Za-z]{2})?$', maxLength: 2 }) }))),
    notes: Type.Optional(nullable(Type.String({ description: 'Internal; at most 1000 characters', ...textRules(1000) }))),
    avatar_image_id: Type.Optional(nullable(Id())),
    custom_fields: Type.Optional(customFields('Merged into the existing fields; a key set to null or "" is removed')),
  },
  // Unknown fields are dropped (Ajv's removeAdditional): the rules shared with create would
  // otherwise write create-only fields such as preferred_agent_id unchecked.
  { description: 'Only the fields supplied change', additionalProperties: false },
);
export type UpdateCustomerBody = Static<typeof UpdateCustomerBody>;

// --- Responses ----------------------------------------------------------------------------------

export const CustomerStats = Type.Object({
  total_bookings: Type.Integer(),
  completed_bookings: Type.Integer(),
  cancelled_bookings: Type.Integer(),
  no_show_bookings: Type.Integer(),
  total_spent: Type.String({ description: 'Net paid on the customer\'s orders (succeeded captures − refunds), e.g. "45.00"' }),
  last_booking_date: Type.Union([Type.String(), Type.Null()], {
    description: 'Latest start date before today (site timezone), cancelled bookings excluded',
  }),
  next_booking_date: Type.Union([Type.String(), Type.Null()], {
    description: 'Earliest start date from today on, cancelled bookings excluded',
  }),
}, { title: 'CustomerStats' });

export const CustomerBooking = Type.Object({
  id: Type.Integer(),
  booking_code: Type.String(),
  status: Type.String(),
  start_date: Type.String(),
  start_time: Type.String(),
  end_time: Type.String(),
  service_id: Type.Integer(),
  agent_id: Type.Integer(),
}, { title: 'CustomerBooking' });

const CustomerFields = {
  id: Type.Integer(),
  customer_code: Type.String({ description: 'Unique code generated on creation' }),
  first_name: Type.String(),
  last_name: Type.String(),
  email: NullableString,
  phone: NullableString,
  status: Type.String(),
  date_of_birth: NullableString,
  gender: NullableString,
  address: NullableString,
  city: NullableString,
  state: NullableString,
  zipcode: NullableString,
  country: NullableString,
  is_guest: Type.Boolean(),
  host_user_id: NullableInteger,
  avatar_image_id: NullableInteger,
  preferred_agent_id: NullableInteger,
  preferred_location_id: NullableInteger,
  created_at: LocalDateTime,
  updated_at: LocalDateTime,
};
const CustomFields = Type.Record(Type.String(), Type.Unknown());
const AvatarUrl = Type.String({ description: "Gravatar image of the customer's email; a generic silhouette without one" });
const Bookings = Type.Array(CustomerBooking, { description: `The ${BOOKINGS_PER_CUSTOMER} latest bookings by start` });

export const CustomerListItem = Type.Object({
  ...CustomerFields,
  custom_fields: Type.Optional(CustomFields),
  notes: Type.Optional(NullableString),
  avatar_url: Type.Optional(AvatarUrl),
  stats: Type.Optional(CustomerStats),
  bookings: Type.Optional(Bookings),
}, { title: 'CustomerListItem' });

const CustomerDetailFields = {
  ...CustomerFields,
  custom_fields: CustomFields,
  notes: NullableString,
  avatar_url: AvatarUrl,
};
export const CustomerDetail = Type.Object({
  ...CustomerDetailFields,
  stats: Type.Optional(CustomerStats),
  bookings: Type.Optional(Bookings),
}, { title: 'Customer' });

export const CustomerListResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(CustomerListItem),
  meta: Type.Object({
    current_page: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer(),
    total_pages: Type.Integer(),
    has_next_page: Type.Boolean(),
    has_previous_page: Type.Boolean(),
  }),
});

export const CustomerReadResponse = Type.Object({ success: Type.Literal(true), data: CustomerDetail });

export const CustomerCreatedResponse = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  data: Type.Object({
    ...CustomerDetailFields,
    user_id: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Host-site user created for the customer; always null, as this service creates no host users',
    }),
    welcome_email_sent: Type.Boolean({
      description: 'True when a welcome mail was queued (the customer has an email); delivery follows in the background',
    }),
    }, { title: 'CreatedCustomer' }),
});

export const CustomerUpdatedResponse = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  data: Type.Object({
    id: Type.Integer(),
    first_name: Type.String(),
    last_name: Type.String(),
    email: NullableString,
    phone: NullableString,
    status: Type.String(),
    updated_at: LocalDateTime,
    }, { title: 'UpdatedCustomer' }),
});

export const CustomerDeletedResponse = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  data: Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) }),
});
