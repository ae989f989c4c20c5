import type { Db } from '../../db/database.js';
import { AppError, type ErrorCode } from '../../http/errors.js';
import { nowIso } from '../../lib/time.js';

type BookingRef = 'agent_id' | 'service_id' | 'location_id';
type InUseCode = Extract<ErrorCode, 'agent_has_bookings' | 'service_has_bookings' | 'location_has_bookings'>;

/** True when a statement failed because a row is still referenced (or references a missing row). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

function inUseError(code: InUseCode, what: string, id: number, upcoming: number): AppError {
  return upcoming > 0
    ? new AppError(code, `${what} ${id} has ${upcoming} upcoming booking(s); cancel or move them first`, { upcoming_bookings: upcoming })
    : new AppError(code, `${what} ${id} is referenced by past or cancelled bookings, which are kept; set its status instead`, {
        upcoming_bookings: 0,
      });
}

/**
 * Refuses (409) to delete a record that bookings refer to: upcoming bookings that are not
 * cancelled still need it, and past or cancelled ones keep it as their history.
 */
export async function assertNoBookings(db: Db, column: BookingRef, id: number, code: InUseCode, what: string): Promise<void> {
  const used = await db.selectFrom('bookings').select('id').where(column, '=', id).limit(1).executeTakeFirst();
  if (!used) return;
  const { upcoming } = await db
    .selectFrom('bookings')
    .select((eb) => eb.fn.countAll<number>().as('upcoming'))
    .where(column, '=', id)
    .where('status', '!=', 'cancelled')
    .where('end_at', '>', nowIso())
    .executeTakeFirstOrThrow();
  throw inUseError(code, what, id, Number(upcoming));
}

/**
 * Deletes inside one transaction after the bookings check; a booking that slips in between the
 * check and the delete trips the foreign key, which is the same refusal.
 */
export async function deleteUnlessBooked(
  db: Db,
  ref: { column: BookingRef; code: InUseCode; what: string; id: number },
  remove: (trx: Db) => Promise<boolean>,
): Promise<boolean> {
  try {
    return await db.transaction().execute(async (trx) => {
      await assertNoBookings(trx, ref.column, ref.id, ref.code, ref.what);
      return remove(trx);
    });
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    await assertNoBookings(db, ref.column, ref.id, ref.code, ref.what);
    throw new AppError(ref.code, `${ref.what} ${ref.id} is still in use`);
  }
}
