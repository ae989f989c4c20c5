import { bookingLock } from '../../core/locks.js';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import type { PeriodicTask } from '../jobs/index.js';
import { bookingMail, enqueueBookingMails } from '../mail/index.js';
import type { ManageLinks } from '../manage-links/index.js';
import { getSettings } from '../settings/index.js';
import { loadDetail } from './present.js';
import { dueReminders, recordReminderOutcomes, type DueReminder } from './reminder-repository.js';
import { findBooking } from './repository.js';

const BATCH = 100;
const MINUTE_MS = 60_000;

/** A booking that got its time after the reminder was due (made or moved inside the offset) is not reminded late. */
function cameTooLate(due: DueReminder, offsetMinutes: number): boolean {
  return Date.parse(due.scheduled_at) > Date.parse(due.start_at) - offsetMinutes * MINUTE_MS;
}

/**
 * One batch of one offset's due reminders, in one transaction holding the bookings' locks (an
 * update or cancellation of one waits, and is seen if it came first): each outcome is recorded
 * once for the booking's offset and start, and a reminder sent is an outbox row written with it.
 * Another instance doing the same batch records nothing and sends nothing.
 */
async function remindBatch(db: Db, links: ManageLinks, offsetMinutes: number, now: Date): Promise<number> {
  const due = await dueReminders(db, offsetMinutes, now, BATCH);
  if (due.length === 0) return 0;
  await lockedTransaction(
    db,
    due.map((d) => bookingLock(d.booking_id)),
    async (trx) => {
      const at = now.toISOString();
      const bookings = [];
      for (const d of due) {
        const booking = await findBooking(trx, d.booking_id);
        // Moved, cancelled or deleted since it was read: the next round sees it as it is now.
        if (booking && booking.start_at === d.start_at && (booking.status === 'pending' || booking.status === 'approved')) bookings.push({ due: d, booking });
      }
      const written = await recordReminderOutcomes(
        trx,
        bookings.map(({ due: d }) => ({ booking_id: d.booking_id, offset_minutes: offsetMinutes, start_at: d.start_at, outcome: cameTooLate(d, offsetMinutes) ? 'skipped' : 'sent', created_at: at })),
      );
      const { currency } = await getSettings(trx);
      const mails = [];
      for (const { due: d, booking } of bookings) {
        if (!written.has(d.booking_id) || cameTooLate(d, offsetMinutes)) continue;
        const view = await loadDetail(trx, d.booking_id, links, currency);
        if (view) mails.push(bookingMail(view, 'booking_reminder', { linkVersion: booking.manage_link_version, calendarSequence: booking.calendar_sequence }));
      }
      await enqueueBookingMails(trx, mails, at);
    },
  );
  return due.length;
}

/**
 * Writes each live booking's reminders (the site's reminder_offsets_minutes) to the outbox as they
 * fall due, exactly once per booking, offset and start across instances and restarts: a moved
 * booking is reminded of its new time, a cancelled one of nothing.
 */
export function reminderTask(links: ManageLinks): PeriodicTask {
  return {
    name: 'booking-reminders',
    async run(db: Db, now: Date): Promise<void> {
      const { reminder_offsets_minutes: offsets } = await getSettings(db);
      for (const offset of offsets) {
        while ((await remindBatch(db, links, offset, now)) === BATCH);
      }
    },
  };
}
