/** The most bookings one bulk request creates; repositories size their multi-row statements by it. */
export const MAX_BULK_BOOKINGS = 50;

/**
 * The longest buffer a service or an agent's connection may keep free before or after a
 * booking, in minutes: checks of a span read the bookings this much either side of it, so it
 * bounds what they read.
 */
export const MAX_BUFFER_MINUTES = 240;

/**
 * The most days ahead a booking window may reach (site setting or service): ten thousand
 * years, past the last storable instant, which lifts the limit in practice.
 */
export const MAX_ADVANCE_DAYS = 3_660_000;

/**
 * Longest text of each kind a request may carry, far above what a real business writes: a field
 * without a bound let a megabyte of notes reach the database (issue 28). Fields with an older,
 * tighter rule of their own (customer names, coupon codes, …) keep it.
 */
export const TEXT_LIMITS = {
  /** RFC 5321's longest address path. */
  email: 254,
  /** A person's, a service's or a place's name, a label. */
  name: 200,
  /** Notes and comments. */
  notes: 5_000,
  /** IANA zone names are at most about 30 characters. */
  timezone: 100,
  /** A comma-separated list of includes, each named once with room for spaces. */
  includeList: 200,
  /** An amount written as decimal text: the largest allowed, 10000000.00, takes 11; more decimals are rounded away. */
  amountText: 32,
} as const;

/** Custom fields a customer carries, and the longest text value of one. */
export const MAX_CUSTOM_FIELDS = 100;
export const MAX_CUSTOM_FIELD_VALUE_LENGTH = 1_000;
