/**
 * The most bookings one bulk request creates. A module of its own, importing nothing: the
 * repositories that size their statements by it are imported, through the request checks, by the
 * schemas that cap the bulk body with it.
 */
export const MAX_BULK_BOOKINGS = 50;
