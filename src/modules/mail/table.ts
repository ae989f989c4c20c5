import type { Generated } from 'kysely';

export type MailKind =
  | 'booking_confirmation'
  | 'booking_change'
  | 'booking_cancellation'
  | 'booking_reminder'
  | 'staff_booking_created'
  | 'staff_booking_changed'
  | 'staff_booking_cancelled'
  | 'customer_welcome';
export const OUTBOX_STATUSES = ['pending', 'sent', 'failed', 'not_delivered'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

export interface OutboxTable {
  id: Generated<number>;
  kind: MailKind;
  recipient: string;
  subject: string;
  /** JSON: what the templates render. */
  payload: string;
  status: OutboxStatus;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string;
  /** A sender claims a row until this instant; a row whose claim lapsed is due again. */
  locked_until: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    outbox: OutboxTable;
  }
}
