import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';

/** One booking as a calendar shows it. Instants are ISO strings in UTC; the calendar writes them as UTC dates. */
export interface CalendarEntry {
  /** Stable for the booking's life (bookingUid): a calendar moves or drops the appointment it already has. */
  uid: string;
  /** Raised with each change the calendar must take over an earlier copy (RFC 5545 §3.8.7.4). */
  sequence: number;
  startsAt: string;
  endsAt: string;
  summary: string;
  description: string;
  location: string;
  status: 'confirmed' | 'tentative' | 'cancelled';
  organizer?: { name: string; email: string };
  attendee?: { name: string; email: string };
  /** DTSTAMP: when this copy was made. */
  stampedAt: string;
}

/**
 * REQUEST puts an appointment into the recipient's calendar or moves it there, CANCEL takes it out
 * (RFC 5546); PUBLISH is a feed's: a list to show, not an invitation to answer.
 */
export type CalendarMethod = 'REQUEST' | 'CANCEL' | 'PUBLISH';

const STATUS = { confirmed: ICalEventStatus.CONFIRMED, tentative: ICalEventStatus.TENTATIVE, cancelled: ICalEventStatus.CANCELLED } as const;

/** The UID of a booking's appointment in every calendar: the same for each mail and feed that carries it. */
export function bookingUid(bookingId: number, publicUrl: string): string {
  return `booking-${bookingId}@${new URL(publicUrl).host}`;
}

/**
 * An iCalendar document (RFC 5545: CRLF lines folded at 75 octets, text escaped, dates in UTC)
 * of the entries, written by ical-generator.
 */
export function calendarOf(method: CalendarMethod, entries: readonly CalendarEntry[], name?: string): string {
  const calendar = ical({ prodId: { company: 'booking-service', product: 'bookings', language: 'EN' }, method: ICalCalendarMethod[method], ...(name ? { name } : {}) });
  for (const entry of entries) {
    calendar.createEvent({
      id: entry.uid,
      sequence: entry.sequence,
      start: new Date(entry.startsAt),
      end: new Date(entry.endsAt),
      stamp: new Date(entry.stampedAt),
      summary: entry.summary,
      description: entry.description,
      location: entry.location,
      status: method === 'CANCEL' ? ICalEventStatus.CANCELLED : STATUS[entry.status],
      ...(entry.organizer ? { organizer: entry.organizer } : {}),
      ...(entry.attendee ? { attendees: [{ ...entry.attendee, rsvp: false }] } : {}),
    });
  }
  // RFC 5545 ends every content line, END:VCALENDAR's too, with CRLF; ical-generator leaves the last one out.
  return `${calendar.toString()}\r\n`;
}
