import { Type, type Static } from 'typebox';
import { DeletedData, envelopeB, envelopeBList } from '../../core/envelope.js';
import { pageParams } from '../../core/pagination.js';
import { Id } from '../../http/schemas.js';

const Label = Type.String({ maxLength: 200, description: 'What the feed is for, as its agent knows it' });
const Created = Type.String({ format: 'date-time' });

export const CalendarFeed = Type.Object(
  {
    id: Type.Integer(),
    agent_id: Type.Integer(),
    label: Type.Union([Type.Null(), Label]),
    created_at: Created,
    last_used_at: Type.Union([Type.Null(), Type.String({ format: 'date-time' })], { description: 'When a calendar last fetched it (recorded at most once a minute); null before' }),
  },
  { title: 'CalendarFeed' },
);
export type CalendarFeedView = Static<typeof CalendarFeed>;

const CalendarFeedWithUrl = Type.Object(
  {
    id: Type.Integer(),
    agent_id: Type.Integer(),
    label: Type.Union([Type.Null(), Label]),
    url: Type.String({ format: 'uri', description: "The feed's secret address (iCalendar, no key needed), shown only in this answer" }),
    created_at: Created,
  },
  { title: 'CalendarFeedWithUrl' },
);
export type CalendarFeedWithUrlView = Static<typeof CalendarFeedWithUrl>;

export const FeedCreateBody = Type.Object({ label: Type.Optional(Label) }, { additionalProperties: false });
export type FeedCreateBody = Static<typeof FeedCreateBody>;

export const AgentParams = Type.Object({ id: Id() });
export const FeedParams = Type.Object({ id: Id(), feed_id: Id() });
export const FeedListQuery = Type.Object({ ...pageParams(20) });
export type FeedListQuery = Static<typeof FeedListQuery>;

export const FeedWithUrlResponse = envelopeB(CalendarFeedWithUrl);
export const FeedListResponse = envelopeBList(CalendarFeed);
export const FeedDeletedResponse = envelopeB(DeletedData);
