import { Type, type Static } from 'typebox';
import { pageParams } from '../../core/pagination.js';
import { envelopeB, envelopeBList } from '../../core/envelope.js';
import { Id } from '../../http/schemas.js';
import { EVENT_TYPES } from '../events/index.js';

const Instant = (description: string) => Type.Union([Type.Null(), Type.String({ format: 'date-time' })], { description });
const EventTypes = Type.Union([Type.Null(), Type.Array(Type.Enum(EVENT_TYPES), { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true })], {
  description: 'The event types sent to the endpoint; null for every type',
});
const Url = Type.String({ minLength: 1, maxLength: 2048, format: 'uri', description: 'Where deliveries are POSTed: http(s), public addresses only; https in production' });
const Description = Type.String({ maxLength: 500 });
const Status = Type.Enum(['enabled', 'disabled'], { description: 'A disabled endpoint receives nothing' });

export const WebhookEndpoint = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    description: Type.Union([Type.Null(), Type.String()]),
    event_types: EventTypes,
    status: Status,
    disabled_reason: Type.Union([Type.Null(), Type.String()], { description: 'Why the service disabled it (failing for three days); null otherwise' }),
    failing_since: Instant('Since when every delivery has failed; null after a success'),
    previous_secret_expires_at: Instant('After a rotation: until when deliveries are also signed with the previous secret'),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'WebhookEndpoint' },
);
export type WebhookEndpointView = Static<typeof WebhookEndpoint>;

const WithSecret = Type.Object(
  { ...WebhookEndpoint.properties, secret: Type.String({ description: 'The signing secret (whsec_…), shown only in this answer' }) },
  { title: 'WebhookEndpointWithSecret' },
);

export const WebhookCreateBody = Type.Object(
  {
    url: Url,
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
);
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookUpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Type.Union([Type.Null(), Description])),
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
);
export type WebhookUpdateBody = Static<typeof WebhookUpdateBody>;

export const WebhookAttempt = Type.Object(
  {
    attempted_at: Type.String({ format: 'date-time' }),
    status_code: Type.Union([Type.Null(), Type.Integer()], { description: "The answer's status; null when none came" }),
    duration_ms: Type.Integer(),
    response_body: Type.Union([Type.Null(), Type.String()], { description: 'The first 1 KiB of the answer' }),
    error: Type.Union([Type.Null(), Type.String()]),
  },
  { title: 'WebhookAttempt' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.Integer(),
    webhook_id: Type.Integer(),
    event_id: Type.Union([Type.Null(), Type.Integer()], { description: 'Null for a test delivery' }),
    event_type: Type.String(),
    status: Type.Enum(['pending', 'succeeded', 'failed']),
    attempts: Type.Integer(),
    last_status_code: Type.Union([Type.Null(), Type.Integer()]),
    last_error: Type.Union([Type.Null(), Type.String()]),
    next_attempt_at: Instant('When a pending delivery is tried next'),
    delivered_at: Instant('When a 2xx answer came'),
    created_at: Type.String({ format: 'date-time' }),
    attempt_log: Type.Array(WebhookAttempt),
  },
  { title: 'WebhookDelivery' },
);

export const WebhookParams = Type.Object({ id: Id() });
export const DeliveryParams = Type.Object({ id: Id(), delivery_id: Id() });
export const WebhookListQuery = Type.Object({ ...pageParams(20) });
export type WebhookListQuery = Static<typeof WebhookListQuery>;

export const WebhookResponse = envelopeB(WebhookEndpoint);
export const WebhookWithSecretResponse = envelopeB(WithSecret);
export const WebhookListResponse = envelopeBList(WebhookEndpoint);
export const WebhookDeleted = envelopeB(Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) }));
export const DeliveryResponse = envelopeB(WebhookDelivery);
export const DeliveryListResponse = envelopeBList(WebhookDelivery);
