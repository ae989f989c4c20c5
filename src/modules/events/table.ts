import type { Generated } from 'kysely';

export const EVENT_TYPES = [
  'booking.created',
  'booking.updated',
  'booking.rescheduled',
  'booking.status_changed',
  'booking.cancelled',
  'booking.deleted',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'order.updated',
  'order.cancelled',
  'invoice.paid',
  'invoice.voided',
  'payment.created',
  'payment.updated',
  'payment.refunded',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface EventsTable {
  id: Generated<number>;
  type: EventType;
  /** The id of the booking, customer, order, invoice or payment the event is about. */
  resource_id: number;
  /** JSON: the resource as its GET returns it after the change (for a deletion: before it). */
  data: string;
  /** JSON: the changed fields' old values, for updates; null otherwise. */
  previous_attributes: string | null;
  source_type: 'api_key' | 'manage_link' | 'admin' | 'cli';
  /** The API key's id when source_type is api_key. */
  source_id: number | null;
  /** The manage link's role when source_type is manage_link. */
  source_role: 'customer' | 'agent' | null;
  request_id: string | null;
  created_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    events: EventsTable;
  }
}
