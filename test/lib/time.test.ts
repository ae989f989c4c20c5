import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { instantWithOffset, isoWithOffset, localDateTime } from '../../src/lib/time.js';

const ZONES = ['Europe/Berlin', 'America/New_York', 'America/St_Johns', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham', 'UTC', 'Etc/GMT+5', 'Africa/Casablanca'];

/** What Luxon itself makes of a stored instant: the reference the shortcut must match exactly. */
const luxonIso = (iso: string, zone: string) => isoWithOffset(DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone));
const luxonLocal = (iso: string, zone: string) => DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone).toFormat('yyyy-MM-dd HH:mm:ss');

function instants(): string[] {
  const list: string[] = [];
  // Every 3 h 7 min 13 s through 2026, each side of DST changes, then some far instants.
  for (let t = Date.parse('2026-01-01T00:00:00.000Z'); t < Date.parse('2027-01-01T00:00:00.000Z'); t += 11_233_000) list.push(new Date(t).toISOString());
  for (const change of ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '2026-04-04T15:00:00Z', '2026-10-03T16:00:00Z']) {
    const t = Date.parse(change);
    list.push(new Date(t - 1000).toISOString(), new Date(t).toISOString());
  }
  list.push('1890-06-01T12:00:00.000Z', '1970-01-01T00:00:00.000Z', '2038-01-19T03:14:08.999Z', '9999-12-31T23:59:59.999Z', '0001-01-01T00:00:00Z', '2026-03-29T01:00:00Z');
  return list;
}

describe('stored instants in a zone', () => {
  it('reads exactly as Luxon reads them, across DST changes, odd offsets and far dates', () => {
    for (const zone of ZONES) {
      for (const iso of instants()) {
        expect(instantWithOffset(iso, zone), `${iso} in ${zone}`).toBe(luxonIso(iso, zone));
        expect(localDateTime(iso, zone), `${iso} in ${zone}`).toBe(luxonLocal(iso, zone));
      }
    }
  });

  it('leaves what it does not recognise to Luxon', () => {
    for (const [iso, zone] of [
      ['2026-05-01T10:00:00.000Z', 'Not/AZone'],
      ['2026-05-01T10:00:00', 'Europe/Berlin'],
      ['2026-05-01', 'Europe/Berlin'],
      ['1800-01-01T00:00:00.000Z', 'Europe/Berlin'],
    ] as const) {
      expect(instantWithOffset(iso, zone)).toBe(luxonIso(iso, zone));
      expect(localDateTime(iso, zone)).toBe(luxonLocal(iso, zone));
    }
  });
});
