import type { Db } from '../../db/database.js';
import { enqueueMails, type OutgoingMail } from './outbox.js';
import type { MailKind } from './table.js';

/** What mail about a booking tells of it; a booking as GET /bookings/{id} shows it has all of it. */
export interface BookingFacts {
  id: number;
  booking_code: string;
  status: string;
  start_date: string;
  start_time: string;
  end_time: string;
  /** The start and end with the site's offset (ISO 8601): the instants a calendar entry holds. */
  start_datetime: string;
  end_datetime: string;
  timezone: string;
  price: string;
  currency: string;
  service_name: string;
  customer: { full_name: string; email: string | null; phone?: string | null };
  agent: { id: number; full_name: string; email: string };
  location: { name: string; full_address: string };
}

/** Mail to a booking's customer. */
export type CustomerMailKind = 'booking_confirmation' | 'booking_change' | 'booking_cancellation' | 'booking_reminder';
/** Mail to a booking's agent (staff notices). */
export type StaffMailKind = 'staff_booking_created' | 'staff_booking_changed' | 'staff_booking_cancelled';
export type BookingMailKind = CustomerMailKind | StaffMailKind;

/** What a mail about a booking needs besides the booking. */
export interface BookingMailContext {
  /** The version of the booking's manage links (never a key): the sender makes the link from it, so a link renewed before the mail goes out is not revived by it. */
  linkVersion: number;
  /** The iCalendar SEQUENCE of the booking's calendar entry as this mail announces it. */
  calendarSequence: number;
  /** Lines saying what changed, for change notices. */
  changes?: readonly string[];
}

function when(booking: BookingFacts): string {
  return `${booking.start_date} ${booking.start_time}`;
}

const SUBJECTS: Record<BookingMailKind, (b: BookingFacts) => string> = {
  booking_confirmation: (b) => `Your booking ${b.booking_code}: ${b.service_name} on ${when(b)}`,
  booking_change: (b) => `Your booking ${b.booking_code} has changed: ${b.service_name} on ${when(b)}`,
  booking_cancellation: (b) => `Your booking ${b.booking_code} is cancelled: ${b.service_name} on ${when(b)}`,
  booking_reminder: (b) => `Reminder: ${b.service_name} on ${when(b)} (booking ${b.booking_code})`,
  staff_booking_created: (b) => `New booking ${b.booking_code}: ${b.service_name} on ${when(b)} with ${b.customer.full_name}`,
  staff_booking_changed: (b) => `Booking ${b.booking_code} has changed: ${b.service_name} on ${when(b)} with ${b.customer.full_name}`,
  staff_booking_cancelled: (b) => `Booking ${b.booking_code} is cancelled: ${b.service_name} on ${when(b)} with ${b.customer.full_name}`,
};

const STAFF_KINDS: ReadonlySet<MailKind> = new Set<StaffMailKind>(['staff_booking_created', 'staff_booking_changed', 'staff_booking_cancelled']);

/**
 * The mail of `kind` about a booking to its customer or (staff kinds) its agent, or undefined
 * when the recipient has no email address.
 */
export function bookingMail(booking: BookingFacts, kind: BookingMailKind, context: BookingMailContext): OutgoingMail | undefined {
  const staff = STAFF_KINDS.has(kind);
  const recipient = staff ? booking.agent.email : booking.customer.email;
  if (!recipient) return undefined;
  const changes = context.changes ?? [];
  return {
    kind,
    recipient,
    subject: SUBJECTS[kind](booking),
    payload: {
      booking_id: booking.id,
      booking_code: booking.booking_code,
      status: booking.status,
      recipient_name: staff ? booking.agent.full_name : booking.customer.full_name,
      customer_name: booking.customer.full_name,
      ...(staff && booking.customer.email ? { customer_email: booking.customer.email } : {}),
      ...(staff && booking.customer.phone ? { customer_phone: booking.customer.phone } : {}),
      service_name: booking.service_name,
      agent_name: booking.agent.full_name,
      location_name: booking.location.name,
      location_address: booking.location.full_address,
      start_date: booking.start_date,
      start_time: booking.start_time,
      end_time: booking.end_time,
      timezone: booking.timezone,
      starts_at: new Date(booking.start_datetime).toISOString(),
      ends_at: new Date(booking.end_datetime).toISOString(),
      price: booking.price,
      currency: booking.currency,
      manage_link_version: context.linkVersion,
      manage_role: staff ? 'agent' : 'customer',
      calendar_sequence: context.calendarSequence,
      ...(changes.length > 0 ? { changes: [...changes] } : {}),
    },
  };
}

/** What a change notice lists: each fact the customer sees that differs, as "Time: 09:00–10:00 → 10:00–11:00". */
export function bookingChanges(before: BookingFacts, after: BookingFacts): string[] {
  const facts = (b: BookingFacts): [string, string][] => [
    ['Service', b.service_name],
    ['Date', b.start_date],
    ['Time', `${b.start_time}–${b.end_time}`],
    ['With', b.agent.full_name],
    ['Where', b.location.name],
    ['Status', b.status],
    ['Price', `${b.price} ${b.currency}`],
  ];
  const old = new Map(facts(before));
  return facts(after).flatMap(([label, value]) => (old.get(label) === value ? [] : [`${label}: ${old.get(label) ?? ''} → ${value}`]));
}

/** Queues mails with the caller's transaction (see enqueueMail), leaving out those without a recipient; due from `at` (default now). */
export async function enqueueBookingMails(db: Db, mails: readonly (OutgoingMail | undefined)[], at?: string): Promise<void> {
  await enqueueMails(
    db,
    mails.filter((mail) => mail !== undefined),
    at,
  );
}
