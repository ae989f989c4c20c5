/** "HH:MM" local wall-clock times; start < end within one day, where an end of 24:00 is the day's last moment. */
export interface Period {
  start: string;
  end: string;
}

/** A period's start: 00:00 to 23:59. */
export const PERIOD_START = /^([01]\d|2[0-3]):[0-5]\d$/;
/** A period's end: also 24:00, so that work can go on until midnight. */
export const PERIOD_END = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Working periods per weekday; a weekday with no periods is a day off. */
export type Weekly = Record<Weekday, Period[]>;

/** A date whose periods replace the weekday's (an empty list: a day off). */
export interface ScheduleException {
  date: string;
  periods: Period[];
}

/** Contract §7: the stored and the API shape of the site's and of an agent's hours. */
export interface Schedule {
  weekly: Weekly;
  exceptions: ScheduleException[];
}

/** Settings key under which the site schedule is stored as JSON. */
export const SITE_SCHEDULE_KEY = 'site_schedule';

const NINE_TO_FIVE: Period[] = [{ start: '09:00', end: '17:00' }];

/** A new database's site schedule: Monday to Friday, 09:00 to 17:00. */
export const DEFAULT_SITE_SCHEDULE: Schedule = {
  weekly: {
    monday: NINE_TO_FIVE,
    tuesday: NINE_TO_FIVE,
    wednesday: NINE_TO_FIVE,
    thursday: NINE_TO_FIVE,
    friday: NINE_TO_FIVE,
    saturday: [],
    sunday: [],
  },
  exceptions: [],
};

/** Luxon's weekday numbering (1 = Monday … 7 = Sunday) to the schedule's names. */
export function weekdayName(luxonWeekday: number): Weekday {
  const name = WEEKDAYS[luxonWeekday - 1];
  if (!name) throw new RangeError(`weekday ${luxonWeekday} is not 1 to 7`);
  return name;
}

export function parseSchedule(json: string): Schedule {
  return JSON.parse(json) as Schedule;
}
