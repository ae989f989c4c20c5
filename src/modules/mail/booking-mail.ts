import type { Db } from '../../db/database.js';
import { enqueueMail, type OutgoingMail } from './outbox.js';

/** What mail about a booking tells of it; a booking as GET /bookings/{id} shows it has all of it. */
export interface BookingFacts {
  id: number;
  booking_code: string;
  status: string;
  start_date: string;
  start_time: string;
  end_time: string;
  timezone: string;
  price: string;
  service_name: string;
  customer: { full_name: string; email: string | null };
  agent: { full_name: string };
  location: { name: string };
}

export type BookingMailKind = 'booking_confirmation' | 'booking_change';

/**
 * The mail about a booking to its customer, or undefined for a customer without an email. It
 * names the version of the booking's manage links (never a key): the sender makes the customer's
 * link from it, so a link renewed before the mail goes out is not revived by it.
 */
export function bookingMail(booking: BookingFacts, linkVersion: number, kind: BookingMailKind, currency: string, changes: string[] = []): OutgoingMail | undefined {
  const recipient = booking.customer.email;
  // A booking created cancelled (recorded after the fact) confirms nothing to its customer.
  if (!recipient || (kind === 'booking_confirmation' && booking.status === 'cancelled')) return undefined;
  const when = `${booking.start_date} ${booking.start_time}`;
  return {
    kind,
    recipient,
    subject:
      kind === 'booking_confirmation'
        ? `Your booking ${booking.booking_code}: ${booking.service_name} on ${when}`
        : `Your booking ${booking.booking_code} has changed: ${booking.service_name} on ${when}`,
    payload: {
      booking_id: booking.id,
      booking_code: booking.booking_code,
      status: booking.status,
      customer_name: booking.customer.full_name,
      service_name: booking.service_name,
      agent_name: booking.agent.full_name,
      location_name: booking.location.name,
      start_date: booking.start_date,
      start_time: booking.start_time,
      end_time: booking.end_time,
      timezone: booking.timezone,
      price: booking.price,
      currency,
      manage_link_version: linkVersion,
      ...(changes.length > 0 ? { changes } : {}),
    },
  };
}

/** What a change notice lists: each fact the customer sees that differs, as "Time: 09:00–10:00 → 10:00–11:00". */
export function bookingChanges(before: BookingFacts, after: BookingFacts, currency: string): string[] {
  const facts = (b: BookingFacts): [string, string][] => [
    ['Service', b.service_name],
    ['Date', b.start_date],
    ['Time', `${b.start_time}–${b.end_time}`],
    ['With', b.agent.full_name],
    ['Where', b.location.name],
    ['Status', b.status],
    ['Price', `${b.price} ${currency}`],
  ];
  const old = new Map(facts(before));
  return facts(after).flatMap(([label, value]) => (old.get(label) === value ? [] : [`${label}: ${old.get(label) ?? ''} → ${value}`]));
}

/** Queues the mail about a booking with the caller's transaction (see enqueueMail); false when there is none to send. */
export async function mailAbout(db: Db, booking: BookingFacts, linkVersion: number, kind: BookingMailKind, currency: string, changes: string[] = []): Promise<boolean> {
  const mail = bookingMail(booking, linkVersion, kind, currency, changes);
  if (mail) await enqueueMail(db, mail);
  return mail !== undefined;
}
