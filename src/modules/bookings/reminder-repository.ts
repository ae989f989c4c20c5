import type { Db } from '../../db/database.js';

/** A live booking whose reminder of one offset has fallen due and has no outcome yet. */
export interface DueReminder {
  booking_id: number;
  start_at: string;
  scheduled_at: string;
}

/**
 * Live bookings starting after `now` and at most `offsetMinutes` after it (their reminder is due)
 * with no outcome recorded for this offset and their current start, soonest first.
 */
export function dueReminders(db: Db, offsetMinutes: number, now: Date, limit: number): Promise<DueReminder[]> {
  const until = new Date(now.getTime() + offsetMinutes * 60_000).toISOString();
  return db
    .selectFrom('bookings as b')
    .select(['b.id as booking_id', 'b.start_at', 'b.scheduled_at'])
    .where('b.start_at', '>', now.toISOString())
    .where('b.start_at', '<=', until)
    .where('b.status', 'in', ['pending', 'approved'])
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('booking_reminders as r')
            .select('r.id')
            .whereRef('r.booking_id', '=', 'b.id')
            .where('r.offset_minutes', '=', offsetMinutes)
            .whereRef('r.start_at', '=', 'b.start_at'),
        ),
      ),
    )
    .orderBy('b.start_at')
    .orderBy('b.id')
    .limit(limit)
    .execute();
}

export interface ReminderOutcome {
  booking_id: number;
  offset_minutes: number;
  start_at: string;
  outcome: 'sent' | 'skipped';
  created_at: string;
}

/**
 * Records outcomes; those already recorded (by another instance, or an earlier round) are left
 * alone. The booking ids of the rows this call wrote: only these may be acted on.
 */
export async function recordReminderOutcomes(db: Db, rows: readonly ReminderOutcome[]): Promise<Set<number>> {
  if (rows.length === 0) return new Set();
  const written = await db
    .insertInto('booking_reminders')
    .values(rows)
    .onConflict((oc) => oc.columns(['booking_id', 'offset_minutes', 'start_at']).doNothing())
    .returning('booking_id')
    .execute();
  return new Set(written.map((r) => r.booking_id));
}

/** What a reminder checks and names of its bookings, as they are now. */
export function remindedBookings(db: Db, ids: readonly number[]) {
  return db.selectFrom('bookings').select(['id', 'start_at', 'status', 'manage_link_version', 'calendar_sequence']).where('id', 'in', ids).execute();
}
