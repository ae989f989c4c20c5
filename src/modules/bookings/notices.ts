import type { Db } from '../../db/database.js';
import { bookingChanges, bookingMail, enqueueBookingMails, type BookingFacts, type OutgoingMail } from '../mail/index.js';
import { linkedBooking } from '../manage-links/index.js';
import { raiseCalendarSequence } from './repository.js';

/** What decides who is told of a change besides the change itself. */
export interface NoticePolicy {
  /** The site's staff_notifications setting. */
  staffNotices: boolean;
  /** A new booking's confirmation to its customer (send_confirmation). */
  confirmCustomer?: boolean;
  /**
   * Whether the customer hears of a change (send_notification): undefined tells them of a
   * cancellation only; false of nothing.
   */
  notifyCustomer?: boolean;
}

/** The booking's calendar version and link version after the change. */
export interface NoticeVersions {
  linkVersion: number;
  calendarSequence: number;
}

function live(booking: BookingFacts | undefined): booking is BookingFacts {
  return booking !== undefined && booking.status !== 'cancelled';
}

/** What an agent's calendar holds of a booking: a change of status or price is no news to them. */
function movedInCalendar(before: BookingFacts, after: BookingFacts): boolean {
  return (
    before.start_datetime !== after.start_datetime ||
    before.end_datetime !== after.end_datetime ||
    before.service_name !== after.service_name ||
    before.location.name !== after.location.name ||
    before.location.full_address !== after.location.full_address
  );
}

/**
 * The mails a change of one booking sends: `before` undefined is a new booking, `after`
 * undefined a deleted one. A booking that starts or stops taking time is a new booking or a
 * cancellation to its agent; a live one that changed in anything its customer sees is a change
 * notice to the customer (when asked for), to a new agent a new booking and to the former one a
 * cancellation, to the same agent a change when it moved in their calendar. A change of nothing
 * seen sends nothing.
 */
export function bookingNotices(before: BookingFacts | undefined, after: BookingFacts | undefined, policy: NoticePolicy, versions: NoticeVersions): OutgoingMail[] {
  const mails: (OutgoingMail | undefined)[] = [];
  const staff = (booking: BookingFacts, kind: 'staff_booking_created' | 'staff_booking_changed' | 'staff_booking_cancelled', changes?: string[]) => {
    if (policy.staffNotices) mails.push(bookingMail(booking, kind, { ...versions, ...(changes ? { changes } : {}) }));
  };
  if (before === undefined) {
    if (live(after)) {
      if (policy.confirmCustomer) mails.push(bookingMail(after, 'booking_confirmation', versions));
      staff(after, 'staff_booking_created');
    }
  } else if (live(before) && !live(after)) {
    const ended = after ?? { ...before, status: 'cancelled' };
    if (policy.notifyCustomer !== false) mails.push(bookingMail(ended, 'booking_cancellation', versions));
    staff(ended, 'staff_booking_cancelled');
  } else if (after !== undefined) {
    const changes = bookingChanges(before, after);
    if (changes.length === 0) return [];
    if (policy.notifyCustomer === true) mails.push(bookingMail(after, 'booking_change', { ...versions, changes }));
    if (!live(after)) return mails.filter((m) => m !== undefined);
    if (!live(before)) staff(after, 'staff_booking_created');
    else if (before.agent.id !== after.agent.id) {
      staff({ ...before, status: 'cancelled' }, 'staff_booking_cancelled');
      staff(after, 'staff_booking_created');
    } else if (movedInCalendar(before, after)) staff(after, 'staff_booking_changed', changes);
  }
  return mails.filter((m) => m !== undefined);
}

/**
 * Writes the mails of a change to an existing booking with the caller's transaction. A change its
 * customer sees raises the booking's calendar SEQUENCE first, so every calendar takes the copy
 * these mails carry over the one it has; a change of nothing seen writes nothing.
 */
export async function writeChangeNotices(trx: Db, before: BookingFacts, after: BookingFacts, policy: NoticePolicy): Promise<void> {
  if (bookingChanges(before, after).length === 0) return;
  const calendarSequence = await raiseCalendarSequence(trx, after.id);
  // The change may have renewed the links (a new customer, a new email): the mails carry the current ones.
  const { manage_link_version: linkVersion } = (await linkedBooking(trx, after.id))!;
  await enqueueBookingMails(trx, bookingNotices(before, after, policy, { linkVersion, calendarSequence }));
}
