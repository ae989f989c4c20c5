import type { Generated } from 'kysely';

export type BookingStatus = 'pending' | 'approved' | 'cancelled' | 'completed' | 'no_show';
export type BookingPaymentStatus = 'not_paid' | 'partially_paid' | 'paid' | 'refunded';

export interface BookingsTable {
  id: Generated<number>;
  booking_code: string;
  status: BookingStatus;
  payment_status: BookingPaymentStatus;
  service_id: number;
  agent_id: number;
  location_id: number;
  customer_id: number;
  order_id: number | null;
  /** Local wall-clock fields (YYYY-MM-DD, HH:MM) in `timezone`. */
  start_date: string;
  start_time: string;
  end_date: string;
  end_time: string;
  timezone: string;
  /** The span as UTC instants (ISO text); overlap checks compare these. */
  start_at: string;
  end_at: string;
  duration: number;
  /** Minutes kept free before and after, as checked when the booking was made or moved (migration 0016). */
  buffer_before: Generated<number>;
  buffer_after: Generated<number>;
  /** Seats the booking takes of its service's capacity_max. */
  attendees: Generated<number>;
  price_cents: number;
  notes: string | null;
  customer_comment: string | null;
  /** What the manage-booking links' keys are derived from with the id (manage-links): raised to revoke them. */
  manage_link_version: Generated<number>;
  /**
   * When the booking got its current time or came back from cancelled (for bookings older than
   * migration 0025, when that migration ran): a reminder already due then is not sent.
   */
  scheduled_at: string;
  /** The iCalendar SEQUENCE of its copies in calendars: raised with each change a mail announces. */
  calendar_sequence: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface BookingMetaTable {
  booking_id: number;
  meta_key: string;
  meta_value: string;
}

/** The outcome of one reminder (offset) of one booking at one start: its one row makes it happen once. */
export interface BookingRemindersTable {
  id: Generated<number>;
  booking_id: number;
  offset_minutes: number;
  start_at: string;
  /** sent: written to the outbox; skipped: the booking got its time after the reminder was due. */
  outcome: 'sent' | 'skipped';
  created_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    bookings: BookingsTable;
    booking_meta: BookingMetaTable;
    booking_reminders: BookingRemindersTable;
  }
}
