import type { Generated } from 'kysely';

export type EndpointStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookEndpointsTable {
  id: Generated<number>;
  url: string;
  description: string | null;
  /** JSON array of event types; null for every type. */
  event_types: string | null;
  status: EndpointStatus;
  /** Why the service disabled it (failing for three days); null when enabled or disabled by a caller. */
  disabled_reason: string | null;
  /** The signing secret is derived from the server's secret, the endpoint's id and this version. */
  secret_version: number;
  /** After a rotation, the version still valid until previous_secret_expires_at (24 hours). */
  previous_secret_version: number | null;
  previous_secret_expires_at: string | null;
  /** Since when every delivery to it has failed; null after a success. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  /** Null for a test delivery (POST /webhooks/{id}/test), which is no event of the feed. */
  event_id: number | null;
  event_type: string;
  /** The JSON body of a test delivery; null for an event's, whose body is the event as the feed shows it (events never change). */
  payload: string | null;
  status: DeliveryStatus;
  attempts: number;
  last_error: string | null;
  last_status_code: number | null;
  next_attempt_at: string;
  locked_until: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  /** The first 1 KiB of the answer. */
  response_body: string | null;
  error: string | null;
}

export interface WebhookDispatchTable {
  id: number;
  /** The last event turned into deliveries; null before the first. */
  last_event_id: number | null;
  updated_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
    webhook_dispatch: WebhookDispatchTable;
  }
}
