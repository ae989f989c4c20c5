import { Type } from 'typebox';
import type { App } from '../../core/app.js';
import { envelopeB } from '../../core/envelope.js';
import { FieldErrors } from '../../core/field-errors.js';
import { AppError } from '../../core/errors.js';
import { AUTH_ERRORS, checkedInCode, errorResponses } from '../../http/schemas.js';
import { MAX_ADVANCE_DAYS, TEXT_LIMITS } from '../../core/limits.js';
import { changeSettings, getSettings, MAX_REMINDERS, parseSetting, SETTING_KEYS, type SiteSettings } from './service.js';

const SettingsData = Type.Object({
  timezone: Type.String({ description: 'IANA zone name of the site' }),
  slot_interval_minutes: Type.Integer({ description: 'Step between offered slot starts (5 to 720)' }),
  min_lead_minutes: Type.Integer({ description: 'How far ahead of now a booking must start (0 to 525600)' }),
  cancel_cutoff_minutes: Type.Integer({ description: 'Until how long before its start a customer may cancel through the manage link (0 to 525600; API keys are not bound)' }),
  reschedule_cutoff_minutes: Type.Integer({ description: 'Until how long before its start a customer may reschedule through the manage link (0 to 525600; API keys are not bound)' }),
  max_advance_days: Type.Integer({ description: 'How many days ahead of now a booking may start, at most (1 to 3660000, which lifts the limit; default 365); a service may set its own' }),
  currency: Type.String({ description: 'ISO 4217 code of every amount (orders, invoices, payments, mails)', examples: ['EUR'] }),
  reminder_offsets_minutes: Type.Array(Type.Integer(), {
    description: 'How many minutes before its start each booking\'s customer gets a reminder mail, largest first (default [1440]); empty: no reminders',
    examples: [[1440, 120]],
  }),
  staff_notifications: Type.Boolean({ description: 'Whether agents get a mail (with a calendar entry) when a booking of theirs is made, moved or cancelled (default true)' }),
}, { title: 'Settings' });

const SettingsBody = Type.Object(
  {
    timezone: Type.Optional(Type.String({ maxLength: TEXT_LIMITS.timezone, description: 'IANA zone name, e.g. Europe/Berlin', ...checkedInCode({ minLength: 1 }) })),
    slot_interval_minutes: Type.Optional(Type.Integer(checkedInCode({ minimum: 5, maximum: 720 }))),
    min_lead_minutes: Type.Optional(Type.Integer(checkedInCode({ minimum: 0, maximum: 525600 }))),
    cancel_cutoff_minutes: Type.Optional(Type.Integer(checkedInCode({ minimum: 0, maximum: 525600 }))),
    reschedule_cutoff_minutes: Type.Optional(Type.Integer(checkedInCode({ minimum: 0, maximum: 525600 }))),
    max_advance_days: Type.Optional(Type.Integer(checkedInCode({ minimum: 1, maximum: MAX_ADVANCE_DAYS }))),
    currency: Type.Optional(Type.String({ description: 'ISO 4217 code, any case', ...checkedInCode({ pattern: '^[A-Za-z]{3}$', maxLength: 3 }) })),
    reminder_offsets_minutes: Type.Optional(
      Type.Array(Type.Integer(checkedInCode({ minimum: 1, maximum: 525600 })), { maxItems: MAX_REMINDERS, description: 'Distinct minutes before the start, e.g. [1440, 120]; [] turns reminders off' }),
    ),
    staff_notifications: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const SettingsResponse = envelopeB(SettingsData);

export default async function settingsRoutes(app: App): Promise<void> {
  app.get(
    '/settings',
    {
      config: { permission: 'settings:read' },
      schema: { operationId: 'getSettings', summary: 'Site settings', tags: ['settings'], response: { 200: SettingsResponse, ...errorResponses(AUTH_ERRORS) } },
    },
    async () => ({ success: true as const, data: await getSettings(app.db) }),
  );

  app.put(
    '/settings',
    {
      config: { permission: 'settings:write' },
      schema: {
        operationId: 'updateSettings',
        summary: 'Changes site settings; only the fields sent change',
        tags: ['settings'],
        body: SettingsBody,
        response: { 200: SettingsResponse, ...errorResponses([400, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const errors = new FieldErrors();
      const changes: Partial<SiteSettings> = {};
      for (const key of SETTING_KEYS) {
        const raw = request.body[key];
        if (raw === undefined) continue;
        try {
          Object.assign(changes, { [key]: parseSetting(key, raw) });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          const detail = error.details?.[key];
          errors.add(key, typeof detail === 'string' ? detail : error.message);
        }
      }
      errors.throwIfAny('The settings are invalid');
      await changeSettings(app.db, changes);
      return { success: true as const, message: 'Settings updated', data: await getSettings(app.db) };
    },
  );
}
