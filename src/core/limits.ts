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
