import { Type } from 'typebox';
import { Id } from '../../http/schemas.js';
import { textPattern } from '../../http/text-patterns.js';
import { EVENT_TYPES } from './table.js';

const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

const Source = Type.Union(
  [
    Type.Object({ type: Type.Literal('api_key'), api_key_id: Type.Integer() }),
    Type.Object({ type: Type.Literal('manage_link'), role: Type.Enum(['customer', 'agent']) }),
    Type.Object({ type: Type.Enum(['admin', 'cli']) }),
  ],
  { description: 'Who made the change: an API key, a manage link, the admin pages or the command line' },
);

export const Event = Type.Object(
  {
    id: Type.Integer(),
    type: Type.Enum(EVENT_TYPES),
    created_at: Type.String({ format: 'date-time', description: 'When the change was made (UTC)' }),
    data: AnyObject('The resource as its GET returns it after the change (for a deletion: as it was), less manage-link keys'),
    previous_attributes: Type.Union([Type.Null(), AnyObject('For updates: the old values of the fields that changed')]),
    request_id: Type.Union([Type.Null(), Type.String()], { description: 'X-Request-Id of the request that made the change' }),
    source: Source,
  },
  { title: 'Event' },
);

export const EventListQuery = Type.Object({
  after: Type.Optional(Id({ description: 'Events after this one, in the order of the feed; from the first event when absent' })),
  types: Type.Optional(
    Type.String({
      maxLength: 1000,
      pattern: textPattern('^[a-z_.]+(,[a-z_.]+)*$', 'must be event types separated by commas'),
      description: `Only events of these types, separated by commas: ${EVENT_TYPES.join(', ')}`,
      examples: ['booking.created,booking.cancelled'],
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'At most this many events' })),
});

export const EventListResponse = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(Event),
  has_more: Type.Boolean({ description: 'Whether more events followed at the time of reading: ask again with after = next_after' }),
  next_after: Type.Union([Type.Null(), Type.Integer()], {
    description: 'The id to pass as `after` to read on: the last event returned, or the `after` given when none was',
  }),
});
