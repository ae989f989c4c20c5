import { Type } from 'typebox';
import { Id, Int32 } from '../../http/schemas.js';
import { textPattern } from '../../http/text-patterns.js';

export const DateText = Type.String({ maxLength: 10, pattern: textPattern('^\\d{4}-\\d{2}-\\d{2}$', 'must be a date as YYYY-MM-DD'), description: 'YYYY-MM-DD' });
export const TimeText = Type.String({ maxLength: 5, pattern: textPattern('^([01]\\d|2[0-3]):[0-5]\\d$', 'must be a time as HH:MM (24-hour)'), description: 'HH:MM, 24-hour' });
/** An agent id, or `any` (also `-1`) to let availability choose. */
export const AgentChoice = Type.Union([Int32({ minimum: -1 }), Type.Literal('any')], { description: 'agent id, or any / -1' });

export const AvailabilityQuery = Type.Object({
  service_id: Id(),
  date: Type.Optional(DateText),
  date_from: Type.Optional(DateText),
  date_to: Type.Optional(DateText),
  agent_id: Type.Optional(AgentChoice),
  location_id: Type.Optional(Id()),
  duration: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440 })),
});

const Slot = Type.Object({
  start_time: Type.String(),
  end_time: Type.String(),
  start_datetime: Type.String({ description: 'ISO 8601 with offset' }),
  agent_ids: Type.Array(Type.Integer()),
  seats_left: Type.Optional(
    Type.Integer({ description: 'group services (capacity_max > 1) only: the most seats one of the agents has left at this start' }),
  ),
}, { title: 'Slot' });

export const AvailabilityResponse = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    timezone: Type.String(),
    service_id: Type.Integer(),
    duration: Type.Integer({ description: 'minutes: the request duration, else the service duration' }),
    days: Type.Array(Type.Object({ date: Type.String(), slots: Type.Array(Slot) })),
  }),
});
