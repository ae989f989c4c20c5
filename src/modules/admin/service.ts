import { DateTime } from 'luxon';
import type { Db } from '../../db/database.js';
import { AppError } from '../../core/errors.js';
import type { HourlyUsage } from '../audit/index.js';
import { PERIOD_END, PERIOD_START, readSiteSchedule, WEEKDAYS, writeSiteSchedule, type Period, type Schedule, type Weekday, type Weekly } from '../schedules/index.js';

/**
 * Checks one weekday's periods: each HH:MM to HH:MM with start before end, and no two
 * overlapping. Returns the problem, or undefined when they are fine.
 */
export function periodsProblem(periods: readonly Period[]): string | undefined {
  for (const { start, end } of periods) {
    if (!PERIOD_START.test(start) || !PERIOD_END.test(end)) return `times must be HH:MM (00:00 to 23:59; an end may be 24:00), got "${start}-${end}"`;
    if (start >= end) return `${start}-${end}: the start must be before the end`;
  }
  const sorted = [...periods].sort((a, b) => a.start.localeCompare(b.start));
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!;
    const current = sorted[i]!;
    if (current.start < previous.end) return `${previous.start}-${previous.end} and ${current.start}-${current.end} overlap`;
  }
  return undefined;
}

/** "09:00-12:00, 13:00-17:00" (empty: a day off) into sorted periods. */
export function parsePeriods(text: string): { periods: Period[]; problem?: string } {
  const parts = text.split(',').map((p) => p.trim()).filter(Boolean);
  const periods: Period[] = [];
  for (const part of parts) {
    const match = /^(\S+)\s*[-–]\s*(\S+)$/.exec(part);
    if (!match) return { periods, problem: `"${part}" is not a period such as 09:00-17:00` };
    periods.push({ start: match[1]!, end: match[2]! });
  }
  const problem = periodsProblem(periods);
  return problem ? { periods, problem } : { periods: periods.sort((a, b) => a.start.localeCompare(b.start)) };
}

export function formatPeriods(periods: readonly Period[]): string {
  return periods.map((p) => `${p.start}-${p.end}`).join(', ');
}

/** The weekly hours from the settings form, one text field per weekday; problems per weekday. */
export function parseWeeklyForm(fields: Partial<Record<Weekday, string>>): { weekly: Weekly; problems: Partial<Record<Weekday, string>> } {
  const weekly = {} as Weekly;
  const problems: Partial<Record<Weekday, string>> = {};
  for (const day of WEEKDAYS) {
    const { periods, problem } = parsePeriods(fields[day] ?? '');
    weekly[day] = periods;
    if (problem) problems[day] = problem;
  }
  return { weekly, problems };
}

/**
 * Replaces the site's weekly hours; its date exceptions stay as they are. Call it inside a
 * transaction together with whatever else the same form saves.
 */
export async function writeSiteWeekly(db: Db, weekly: Weekly): Promise<Schedule> {
  for (const day of WEEKDAYS) {
    const problem = periodsProblem(weekly[day]);
    if (problem) throw new AppError('validation_failed', `${day}: ${problem}`, { [day]: problem });
  }
  const schedule: Schedule = { ...(await readSiteSchedule(db)), weekly };
  await writeSiteSchedule(db, schedule);
  return schedule;
}

/** A `datetime-local` value (YYYY-MM-DDTHH:MM) in the site's zone as a stored UTC instant. */
export function localToIso(value: string, zone: string): string | undefined {
  const parsed = DateTime.fromISO(value, { zone });
  return parsed.isValid ? parsed.toUTC().toISO() ?? undefined : undefined;
}

/** A stored instant as the site's local "YYYY-MM-DD HH:mm:ss". */
export function displayInstant(iso: string | null, zone: string): string {
  if (!iso) return '';
  const parsed = DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone);
  return parsed.isValid ? parsed.toFormat('yyyy-MM-dd HH:mm:ss') : iso;
}

export interface UsageSeries {
  keyId: number | null;
  total: number;
  /** Requests per bucket, aligned with UsageChart.buckets. */
  counts: number[];
}

export interface UsageChart {
  unit: 'hour' | 'day';
  /** Bucket starts as the site's local ISO date-times. */
  buckets: DateTime[];
  series: UsageSeries[];
}

// Ranges up to two days are drawn per hour, longer ones per day.
const HOURLY_UP_TO_HOURS = 48;
const MAX_BUCKETS = 400;

/**
 * Requests per key over [from, to), in local hours or days of the site's zone, from the
 * database's per-UTC-hour counts. Keys are ordered by volume.
 */
export function usageChart(rows: readonly HourlyUsage[], from: DateTime, to: DateTime, zone: string): UsageChart {
  const localFrom = from.setZone(zone);
  const localTo = to.setZone(zone);
  const unit = localTo.diff(localFrom, 'hours').hours <= HOURLY_UP_TO_HOURS ? 'hour' : 'day';
  const buckets: DateTime[] = [];
  for (let b = localFrom.startOf(unit); b < localTo && buckets.length < MAX_BUCKETS; b = b.plus({ [unit]: 1 })) buckets.push(b);
  const index = new Map(buckets.map((b, i) => [b.toMillis(), i]));

  const byKey = new Map<number | null, UsageSeries>();
  for (const row of rows) {
    const start = DateTime.fromISO(`${row.hour}:00:00`, { zone: 'utc' }).setZone(zone).startOf(unit);
    const i = index.get(start.toMillis());
    if (i === undefined) continue;
    let series = byKey.get(row.key_id);
    if (!series) {
      series = { keyId: row.key_id, total: 0, counts: buckets.map(() => 0) };
      byKey.set(row.key_id, series);
    }
    series.counts[i] = (series.counts[i] ?? 0) + row.requests;
    series.total += row.requests;
  }
  return { unit, buckets, series: [...byKey.values()].sort((a, b) => b.total - a.total) };
}
