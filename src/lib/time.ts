import type { DateTime } from 'luxon';

/** The current instant as stored in the database: ISO 8601, UTC, millisecond precision. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** ISO 8601 with a numeric offset ("+01:00", never "Z"), seconds precision, in the DateTime's zone. */
export function isoWithOffset(dateTime: DateTime): string {
  return dateTime.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}
