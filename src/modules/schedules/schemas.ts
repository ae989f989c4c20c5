import { Type } from 'typebox';
import { checkedInCode } from '../../http/schemas.js';
import { PERIOD_END, PERIOD_START } from './model.js';
import { envelopeB } from '../../core/envelope.js';

export const PeriodSchema = Type.Object(
  {
    start: Type.String({ description: 'HH:MM, 00:00 to 23:59', ...checkedInCode({ pattern: PERIOD_START.source, maxLength: 5 }) }),
    end: Type.String({ description: 'HH:MM, after start; 24:00 for midnight at the end of the day', ...checkedInCode({ pattern: PERIOD_END.source, maxLength: 5 }) }),
  },
  { title: 'Period', additionalProperties: false },
);

/** What a client sends: weekday names are checked in code so that a wrong one is named in `details`. */
export const WeeklyInputSchema = Type.Record(Type.String(), Type.Array(PeriodSchema, { maxItems: 48 }), {
  description: 'Weekday (monday … sunday) → working periods; a weekday left out or empty is a day off',
  // Only the seven weekday names are taken, the longest of them 9 characters.
  ...checkedInCode({ maxProperties: 7, propertyNames: { minLength: 6, maxLength: 9 } }),
});

/** What the service answers: every weekday present, periods sorted. */
const Day = Type.Array(PeriodSchema);
export const WeeklySchema = Type.Object({
  monday: Day,
  tuesday: Day,
  wednesday: Day,
  thursday: Day,
  friday: Day,
  saturday: Day,
  sunday: Day,
}, { title: 'WeeklyHours' });

const ExceptionInput = Type.Object({
  date: Type.String({ description: 'YYYY-MM-DD', ...checkedInCode({ format: 'date' }) }),
  periods: Type.Optional(Type.Array(PeriodSchema, { maxItems: 48, description: 'Replaces the weekday\'s periods; empty or absent: a day off' })),
});

export const ScheduleBody = Type.Object({
  weekly: WeeklyInputSchema,
  exceptions: Type.Optional(Type.Array(ExceptionInput, { maxItems: 1000 })),
});

const ScheduleData = Type.Object({
  weekly: WeeklySchema,
  exceptions: Type.Array(Type.Object({ date: Type.String(), periods: Type.Array(PeriodSchema) })),
}, { title: 'Schedule' });

export const SiteScheduleResponse = envelopeB(ScheduleData);

export const AgentScheduleResponse = envelopeB(
  Type.Object({
    ...ScheduleData.properties,
    uses_site_schedule: Type.Boolean({ description: 'true: the agent has no hours of its own and works the site schedule shown' }),
  }),
);
