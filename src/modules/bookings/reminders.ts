import { bookingLock } from '../../core/locks.js';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import type { PeriodicTask } from '../jobs/index.js';
import { bookingMail, enqueueBookingMails } from '../mail/index.js';
import type { ManageLinks } from '../manage-links/index.js';
import { getSettings } from '../settings/index.js';
import { loadDetail } from './present.js';
import { dueReminders, recordReminderOutcomes, remindedBookings, type DueReminder, type ReminderOutcome } from './reminder-repository.js';

const BATCH = 100;
const LIVE: ReadonlySet<string> = new Set(['pending', 'approved']);
const MINUTE_MS = 60_000;

/** A booking that got its time after the reminder was due (made or moved inside the offset) is not reminded late. */
function cameTooLate(due: DueReminder, offsetMinutes: number): boolean {
  return Date.parse(due.scheduled_at) > Date.parse(due.start_at) - offsetMinutes * MINUTE_MS;
}

/**
 * One batch of one offset's due reminders. Those that came too late are recorded as skipped in
 * one statement: nothing is sent, so nothing need be locked (a booking moved meanwhile has
 * another start, and so other reminders). The rest are sent in one transaction holding their
 * bookings' locks (an update or cancellation of one waits, and is seen if it came first): each
 * outcome is recorded once for the booking's offset and start, and only a reminder whose outcome
 * this transaction wrote becomes an outbox row, written with it; another instance doing the same
 * batch records nothing and sends nothing.
 */
async function remindBatch(db: Db, links: ManageLinks, offsetMinutes: number, now: Date): Promise<number> {
  const due = await dueReminders(db, offsetMinutes, now, BATCH);
  const at = now.toISOString();
  const outcome = (d: DueReminder, result: ReminderOutcome['outcome']): ReminderOutcome => ({ booking_id: d.booking_id, offset_minutes: offsetMinutes, start_at: d.start_at, outcome: result, created_at: at });
  await recordReminderOutcomes(
    db,
    due.filter((d) => cameTooLate(d, offsetMinutes)).map((d) => outcome(d, 'skipped')),
  );
  const toSend = due.filter((d) => !cameTooLate(d, offsetMinutes));
  if (toSend.length === 0) return due.length;
  await lockedTransaction(
    db,
    toSend.map((d) => bookingLock(d.booking_id)),
    async (trx) => {
      const current = new Map((await remindedBookings(trx, toSend.map((d) => d.booking_id))).map((b) => [b.id, b]));
      // Moved, cancelled or deleted since it was read: the next round sees it as it is now.
      const still = toSend.filter((d) => current.get(d.booking_id)?.start_at === d.start_at && LIVE.has(current.get(d.booking_id)?.status ?? ''));
      const written = await recordReminderOutcomes(
        trx,
        still.map((d) => outcome(d, 'sent')),
      );
      const { currency } = await getSettings(trx);
      const mails = [];
      for (const d of still) {
        const booking = current.get(d.booking_id);
        if (!booking || !written.has(d.booking_id)) continue;
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
