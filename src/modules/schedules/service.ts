import { FieldErrors } from '../../core/field-errors.js';
import { isCalendarDate } from '../../lib/time.js';
import { PERIOD_END, PERIOD_START, WEEKDAYS, type Period, type Schedule, type Weekday, type Weekly } from './model.js';

export interface PeriodInput {
  start: string;
  end: string;
}

/** Weekday name → periods, as a client sends it; names are checked, missing weekdays are days off. */
export type WeeklyInput = Record<string, PeriodInput[]>;

export interface ScheduleInput {
  weekly: WeeklyInput;
  exceptions?: { date: string; periods?: PeriodInput[] }[];
}

function isWeekday(name: string): name is Weekday {
  return (WEEKDAYS as readonly string[]).includes(name);
}

/** Checks one day's periods (HH:MM, start < end, no overlap) and returns them sorted by start. */
function checkPeriods(periods: readonly PeriodInput[], path: string, errors: FieldErrors): Period[] {
  const valid: { period: Period; index: number }[] = [];
  periods.forEach(({ start, end }, index) => {
    const startOk = PERIOD_START.test(start);
    const endOk = PERIOD_END.test(end);
    if (!startOk) errors.add(`${path}.${index}.start`, 'must be a time HH:MM from 00:00 to 23:59');
    if (!endOk) errors.add(`${path}.${index}.end`, 'must be a time HH:MM from 00:00 to 24:00');
    if (startOk && endOk && start >= end) errors.add(`${path}.${index}`, `start ${start} must be before end ${end}`);
    else if (startOk && endOk) valid.push({ period: { start, end }, index });
  });
  valid.sort((a, b) => a.period.start.localeCompare(b.period.start));
  for (let i = 1; i < valid.length; i++) {
    const previous = valid[i - 1]!.period;
    const current = valid[i]!;
    if (current.period.start < previous.end) {
      errors.add(`${path}.${current.index}`, `overlaps the period ${previous.start}-${previous.end}`);
    }
  }
  return valid.map((v) => v.period);
}

/** A weekly object with every weekday present (an empty list is a day off), or errors under `path`. */
export function checkWeekly(input: WeeklyInput, path: string, errors: FieldErrors): Weekly {
  for (const name of Object.keys(input)) {
    if (!isWeekday(name)) errors.add(`${path}.${name}`, `is not a weekday; use ${WEEKDAYS.join(', ')}`);
  }
  const weekly = {} as Weekly;
  for (const day of WEEKDAYS) weekly[day] = checkPeriods(input[day] ?? [], `${path}.${day}`, errors);
  return weekly;
}

/** Validates a schedule (contract §7) into its stored form: 422 validation_failed naming each bad field. */
export function validateSchedule(input: ScheduleInput): Schedule {
  const errors = new FieldErrors();
  const weekly = checkWeekly(input.weekly, 'weekly', errors);
  const seen = new Set<string>();
  const exceptions = (input.exceptions ?? []).map((exception, index) => {
    if (!isCalendarDate(exception.date)) errors.add(`exceptions.${index}.date`, 'must be a date YYYY-MM-DD');
    else if (seen.has(exception.date)) errors.add(`exceptions.${index}.date`, `${exception.date} is listed twice`);
    seen.add(exception.date);
    return { date: exception.date, periods: checkPeriods(exception.periods ?? [], `exceptions.${index}.periods`, errors) };
  });
  errors.throwIfAny('The schedule is invalid');
  exceptions.sort((a, b) => a.date.localeCompare(b.date));
  return { weekly, exceptions };
}
