/** The most bookings one bulk request creates; repositories size their multi-row statements by it. */
export const MAX_BULK_BOOKINGS = 50;
