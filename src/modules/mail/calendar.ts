import { bookingUid, calendarOf, type CalendarMethod } from '../calendar/index.js';
import type { MailKind } from './table.js';
import type { MailPayload } from './templates.js';

/** Confirmations and changes put the appointment into the recipient's calendar or move it; cancellations take it out. */
const METHODS: Partial<Record<MailKind, CalendarMethod>> = {
  booking_confirmation: 'REQUEST',
  booking_change: 'REQUEST',
  booking_cancellation: 'CANCEL',
  staff_booking_created: 'REQUEST',
  staff_booking_changed: 'REQUEST',
  staff_booking_cancelled: 'CANCEL',
};

export interface MailCalendarContext {
  /** Names the host in every booking's UID. */
  publicUrl: string;
  /** Who sends the invitation (RFC 5546 wants an ORGANIZER on REQUEST and CANCEL): the mail's sender. */
  organizer: { name: string; email: string };
}

/**
 * The iCalendar part of a mail about a booking, or undefined for a kind that carries none or a
 * payload written before mails carried the booking's instants.
 */
export function calendarPart(kind: MailKind, recipient: string, payload: MailPayload, context: MailCalendarContext, now: Date): { method: CalendarMethod; content: string } | undefined {
  const method = METHODS[kind];
  const { booking_id: id, starts_at: startsAt, ends_at: endsAt, calendar_sequence: sequence } = payload;
  if (!method || id === undefined || !startsAt || !endsAt || sequence === undefined) return undefined;
  const staff = payload.manage_role === 'agent';
  const withWhom = staff ? payload.customer_name : payload.agent_name;
  const place = [payload.location_name, payload.location_address].filter(Boolean).join(', ');
  const content = calendarOf(method, [
    {
      uid: bookingUid(id, context.publicUrl),
      sequence,
      startsAt,
      endsAt,
      summary: [payload.service_name ?? 'Appointment', withWhom].filter(Boolean).join(staff ? ' – ' : ' with '),
      description: [payload.booking_code ? `Booking ${payload.booking_code}` : undefined, payload.manage_url].filter(Boolean).join('\n'),
      location: place,
      status: payload.status === 'pending' ? 'tentative' : 'confirmed',
      organizer: context.organizer,
      attendee: { name: payload.recipient_name ?? recipient, email: recipient },
      stampedAt: now.toISOString(),
    },
  ]);
  return { method, content };
}

/** "Name <address>" or a bare address, as MAIL_FROM holds it. */
export function mailbox(from: string): { name: string; email: string } {
  const match = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(from);
  return match ? { name: (match[1] ?? '').trim() || (match[2] as string), email: match[2] as string } : { name: from.trim(), email: from.trim() };
}
