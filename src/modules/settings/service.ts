import { timezoneName } from '../../config.js';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import { AppError } from '../../core/errors.js';
import { nowIso } from '../../lib/time.js';
import { DEFAULT_SITE_SCHEDULE, parseSchedule, SITE_SCHEDULE_KEY, type Schedule } from '../schedules/index.js';
import { CATALOG_LOCK } from '../../core/locks.js';
import { MAX_ADVANCE_DAYS } from '../../core/limits.js';
import { siteOnce, type Site, type SiteContext, type SiteSettings } from '../../core/site.js';
import { insertMissingSettings, reexpressBookings, storedSettings, upsertSettings } from './repository.js';

export type { SiteSettings };

export type SettingKey = keyof SiteSettings;
export const SETTING_KEYS: readonly SettingKey[] = [
  'timezone',
  'slot_interval_minutes',
  'min_lead_minutes',
  'max_advance_days',
  'cancel_cutoff_minutes',
  'reschedule_cutoff_minutes',
  'currency',
  'reminder_offsets_minutes',
  'staff_notifications',
];

const DEFAULTS: Omit<SiteSettings, 'timezone'> = {
  slot_interval_minutes: 30,
  min_lead_minutes: 0,
  max_advance_days: 365,
  cancel_cutoff_minutes: 0,
  reschedule_cutoff_minutes: 0,
  currency: 'USD',
  reminder_offsets_minutes: [1440],
  staff_notifications: true,
};

/** More reminders than this per booking would be noise, not help. */
export const MAX_REMINDERS = 5;
/** A reminder a year ahead is as far as a booking can usefully be reminded of. */
const MAX_REMINDER_OFFSET_MINUTES = 525600;

/** The ISO 4217 codes this runtime knows. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export function isSettingKey(key: string): key is SettingKey {
  return (SETTING_KEYS as readonly string[]).includes(key);
}

function integerIn(key: SettingKey, raw: string | number, min: number, max: number): number {
  const text = String(raw).trim();
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new AppError('validation_failed', `${key} must be an integer from ${min} to ${max}`, {
      [key]: `must be an integer from ${min} to ${max}`,
    });
  }
  return value;
}

/** Validates one setting value (from the CLI or the API) into its typed form. */
export function parseSetting<K extends SettingKey>(key: K, raw: SettingInput): SiteSettings[K];
export function parseSetting(key: SettingKey, raw: SettingInput): SiteSettings[SettingKey] {
  if (key === 'reminder_offsets_minutes') return reminderOffsets(raw);
  if (key === 'staff_notifications') return flag(key, raw);
  if (typeof raw === 'boolean' || Array.isArray(raw)) throw new AppError('validation_failed', `${key} must be a single value`, { [key]: 'must be a single value' });
  return scalarSetting(key, raw as string | number);
}

/** What a setting is given as: text from the CLI or a form, JSON values from the API. */
export type SettingInput = string | number | boolean | readonly number[];

/** Minutes before the start, as a list ("1440,120" or [1440, 120]); each from 1 minute to a year, at most MAX_REMINDERS, kept largest first. */
function reminderOffsets(raw: SettingInput): number[] {
  const key = 'reminder_offsets_minutes';
  const problem = `must be a list of at most ${MAX_REMINDERS} distinct whole minutes from 1 to ${MAX_REMINDER_OFFSET_MINUTES}, e.g. [1440, 120]; empty turns reminders off`;
  const items = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.replace(/^\s*\[|\]\s*$/g, '').split(',').map((s) => s.trim()).filter((s) => s !== '') : [String(raw)];
  const offsets = items.map((item) => (/^\d+$/.test(item) ? Number(item) : Number.NaN));
  if (offsets.length > MAX_REMINDERS || new Set(offsets).size !== offsets.length || offsets.some((m) => !(m >= 1 && m <= MAX_REMINDER_OFFSET_MINUTES))) {
    throw new AppError('validation_failed', `${key} ${problem}`, { [key]: problem });
  }
  return offsets.sort((a, b) => b - a);
}

function flag(key: SettingKey, raw: SettingInput): boolean {
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new AppError('validation_failed', `${key} must be true or false`, { [key]: 'must be true or false' });
}

function scalarSetting(key: Exclude<SettingKey, 'reminder_offsets_minutes' | 'staff_notifications'>, raw: string | number): string | number {
  switch (key) {
    case 'timezone': {
      const given = String(raw).trim();
      const zone = timezoneName(given);
      if (zone === undefined) {
        throw new AppError('validation_failed', `"${given}" is not an IANA time zone name`, {
          timezone: 'must be an IANA time zone name such as Europe/Berlin',
        });
      }
      return zone;
    }
    case 'slot_interval_minutes':
      return integerIn(key, raw, 5, 720);
    case 'min_lead_minutes':
    case 'cancel_cutoff_minutes':
    case 'reschedule_cutoff_minutes':
      return integerIn(key, raw, 0, 525600);
    case 'max_advance_days':
      return integerIn(key, raw, 1, MAX_ADVANCE_DAYS);
    case 'currency': {
      const code = String(raw).trim().toUpperCase();
      if (!CURRENCIES.has(code)) {
        throw new AppError('validation_failed', `"${String(raw).trim()}" is not an ISO 4217 currency code`, {
          currency: 'must be an ISO 4217 currency code such as EUR or USD',
        });
      }
      return code;
    }
  }
}

/**
 * A new database takes its timezone from SITE_TIMEZONE and the site schedule Monday to Friday,
 * 09:00 to 17:00 (contract §7); later starts leave stored values alone.
 */
export async function initialiseSettings(db: Db, siteTimezone: string): Promise<void> {
  const at = nowIso();
  const initial: SiteSettings = { timezone: siteTimezone, ...DEFAULTS };
  await insertMissingSettings(db, [
    ...SETTING_KEYS.map((key) => ({ key, value: String(initial[key]), updated_at: at })),
    { key: SITE_SCHEDULE_KEY, value: JSON.stringify(DEFAULT_SITE_SCHEDULE), updated_at: at },
  ]);
}

/** Stored as "1440,120" (what String() makes of the list); "" is none. */
function storedOffsets(stored: string | undefined): number[] {
  if (stored === undefined) return [...DEFAULTS.reminder_offsets_minutes];
  return stored.split(',').filter((s) => s !== '').map(Number);
}

function settingsOf(stored: Map<string, string>): SiteSettings {
  return {
    timezone: stored.get('timezone') ?? 'UTC',
    slot_interval_minutes: Number(stored.get('slot_interval_minutes') ?? DEFAULTS.slot_interval_minutes),
    min_lead_minutes: Number(stored.get('min_lead_minutes') ?? DEFAULTS.min_lead_minutes),
    cancel_cutoff_minutes: Number(stored.get('cancel_cutoff_minutes') ?? DEFAULTS.cancel_cutoff_minutes),
    reschedule_cutoff_minutes: Number(stored.get('reschedule_cutoff_minutes') ?? DEFAULTS.reschedule_cutoff_minutes),
    max_advance_days: Number(stored.get('max_advance_days') ?? DEFAULTS.max_advance_days),
    currency: stored.get('currency') ?? DEFAULTS.currency,
    reminder_offsets_minutes: storedOffsets(stored.get('reminder_offsets_minutes')),
    staff_notifications: (stored.get('staff_notifications') ?? String(DEFAULTS.staff_notifications)) === 'true',
  };
}

/** The site context (the settings): one statement. */
export async function getSettings(db: Db): Promise<SiteContext> {
  return settingsOf(await storedSettings(db));
}

/** The site context of `db` (a transaction's, or the database's outside one), read on first use only. */
export function siteOf(db: Db): Site {
  return siteOnce(() => getSettings(db));
}

/** The settings and the site schedule, which the settings table holds too: one read for both. */
export async function getSettingsAndSchedule(db: Db): Promise<{ settings: SiteSettings; schedule: Schedule }> {
  const stored = await storedSettings(db);
  const schedule = stored.get(SITE_SCHEDULE_KEY);
  return { settings: settingsOf(stored), schedule: schedule === undefined ? DEFAULT_SITE_SCHEDULE : parseSchedule(schedule) };
}

/**
 * Changes settings, with `alongside` in the same transaction. A new zone re-expresses every
 * booking's local date and time in it (their instants stay), holding the catalog lock
 * exclusively, which every booking write holds shared: no booking is written in the old zone
 * meanwhile. The zone it already has changes nothing.
 */
export async function changeSettings(db: Db, values: Partial<SiteSettings>, alongside?: (trx: Db) => Promise<void>): Promise<void> {
  const zone = values.timezone;
  await lockedTransaction(db, zone === undefined ? [] : [CATALOG_LOCK], async (trx) => {
    if (zone !== undefined && zone !== (await getSettings(trx)).timezone) await reexpressBookings(trx, zone);
    await setSettings(trx, values);
    await alongside?.(trx);
  });
}

/** Writes settings as they are; changeSettings is the way to change them in a running site. */
export async function setSettings(db: Db, values: Partial<SiteSettings>): Promise<void> {
  const at = nowIso();
  const rows = Object.entries(values).map(([key, value]) => ({ key, value: String(value), updated_at: at }));
  if (rows.length === 0) return;
  await upsertSettings(db, rows);
}
