import { DateTime, IANAZone } from 'luxon';

/** The current instant as stored in the database: ISO 8601, UTC, millisecond precision. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** ISO 8601 with a numeric offset ("+01:00", never "Z"), seconds precision, in the DateTime's zone. */
export function isoWithOffset(dateTime: DateTime): string {
  return dateTime.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}

const STORED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/**
 * The wall clock (`YYYY-MM-DDTHH:MM:SS`) and offset (minutes) of a stored instant in a zone, read
 * from the zone's offset at that instant as Luxon reads it, without building DateTimes (which cost
 * several times more on every booking and list row). Undefined where this shortcut does not
 * reach: other text, unknown zones, offsets with seconds (local mean time before ~1900), years
 * outside 0000–9999; Luxon answers those.
 */
function wallClock(iso: string, zone: string): { local: string; offset: number } | undefined {
  if (!STORED_INSTANT.test(iso)) return undefined;
  const instant = Date.parse(iso);
  const offset = IANAZone.create(zone).offset(instant);
  if (!Number.isInteger(offset)) return undefined;
  const local = new Date(instant + offset * 60_000).toISOString();
  return local.length === 24 ? { local: local.slice(0, 19), offset } : undefined;
}

function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes >= 0 ? '+' : '-'}${String(Math.trunc(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A stored instant (ISO 8601 UTC) as isoWithOffset writes it in the zone. */
export function instantWithOffset(iso: string, zone: string): string {
  const wall = wallClock(iso, zone);
  return wall ? `${wall.local}${offsetText(wall.offset)}` : isoWithOffset(DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone));
}

/** A stored instant (ISO 8601 UTC) as `YYYY-MM-DD HH:MM:SS` in the site timezone (spec, Conventions). */
export function localDateTime(iso: string, timezone: string): string {
  const wall = wallClock(iso, timezone);
  return wall ? `${wall.local.slice(0, 10)} ${wall.local.slice(11)}` : DateTime.fromISO(iso, { zone: 'utc' }).setZone(timezone).toFormat('yyyy-MM-dd HH:mm:ss');
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
