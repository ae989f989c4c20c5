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
const HOUR_MS = 3_600_000;
const OFFSET_CACHE_LIMIT = 200_000;
const offsetCache = new Map<string, Map<number, number | null>>();

/**
 * The zone's UTC offset (minutes) at an instant. Luxon asks Intl on every call (microseconds
 * each); slot searches and lists ask thousands of times about the same few hours. So the offset
 * is remembered per clock hour when the hour's first and last millisecond agree (no zone changes
 * its offset and back within one hour); an hour holding a transition (null) is asked exactly.
 */
export function zoneOffset(zone: IANAZone, instant: number): number {
  let hours = offsetCache.get(zone.name);
  if (!hours) {
    hours = new Map();
    offsetCache.set(zone.name, hours);
  }
  const hour = Math.floor(instant / HOUR_MS);
  let offset = hours.get(hour);
  if (offset === undefined) {
    const first = zone.offset(hour * HOUR_MS);
    offset = first === zone.offset(hour * HOUR_MS + HOUR_MS - 1) ? first : null;
    if (hours.size >= OFFSET_CACHE_LIMIT) hours.clear();
    hours.set(hour, offset);
  }
  return offset ?? zone.offset(instant);
}

/**
 * The wall clock (`YYYY-MM-DDTHH:MM:SS`) and offset (minutes) of an instant (epoch ms) in a zone,
 * without building Luxon DateTimes. Undefined where this shortcut does not reach: unknown zones,
 * offsets with seconds (local mean time before ~1900), years outside 0000–9999.
 */
export function wallClockAt(instant: number, zone: string): { local: string; offset: number } | undefined {
  const ianaZone = IANAZone.create(zone);
  if (!ianaZone.isValid) return undefined;
  const offset = zoneOffset(ianaZone, instant);
  if (!Number.isInteger(offset)) return undefined;
  const local = new Date(instant + offset * 60_000).toISOString();
  return local.length === 24 ? { local: local.slice(0, 19), offset } : undefined;
}

/** wallClockAt for a stored instant (ISO 8601 UTC text); undefined for any other text. */
function wallClock(iso: string, zone: string): { local: string; offset: number } | undefined {
  return STORED_INSTANT.test(iso) ? wallClockAt(Date.parse(iso), zone) : undefined;
}

export function offsetText(minutes: number): string {
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

/** An instant in the stored form (ISO 8601, UTC); one past the year 9999 as a text above every stored one. */
export function storedInstant(ms: number): string {
  const date = new Date(ms);
  return date.getUTCFullYear() > 9999 ? '9999-99' : date.toISOString();
}

/** True for a YYYY-MM-DD text that names a real calendar date (not 2026-02-30, which Date rolls into March). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/** Today's date (YYYY-MM-DD) in a timezone. */
export function todayIn(timezone: string): string {
  return DateTime.now().setZone(timezone).toFormat('yyyy-MM-dd');
}
