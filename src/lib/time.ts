import { DateTime } from 'luxon';

/** The current instant as stored in the database: ISO 8601, UTC, millisecond precision. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** ISO 8601 with a numeric offset ("+01:00", never "Z"), seconds precision, in the DateTime's zone. */
export function isoWithOffset(dateTime: DateTime): string {
  return dateTime.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}

/** A stored instant (ISO 8601 UTC) as `YYYY-MM-DD HH:MM:SS` in the site timezone (spec, Conventions). */
export function localDateTime(iso: string, timezone: string): string {
  return DateTime.fromISO(iso, { zone: 'utc' }).setZone(timezone).toFormat('yyyy-MM-dd HH:mm:ss');
}

/** The first instant of a local date (YYYY-MM-DD) in the site timezone, in the stored form. */
export function startOfLocalDay(date: string, timezone: string): string {
  return DateTime.fromISO(date, { zone: timezone }).startOf('day').toUTC().toISO()!;
}

/** The first instant after a local date: date filters include the whole of their last day. */
export function endOfLocalDay(date: string, timezone: string): string {
  return DateTime.fromISO(date, { zone: timezone }).startOf('day').plus({ days: 1 }).toUTC().toISO()!;
}

/** True for a real calendar date written YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && DateTime.fromISO(text).isValid;
}

/** Today's date (YYYY-MM-DD) in a timezone. */
export function todayIn(timezone: string): string {
  return DateTime.now().setZone(timezone).toFormat('yyyy-MM-dd');
}
