import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import { AppError, type ErrorCode } from '../../core/errors.js';
import { nowIso } from '../../lib/time.js';
import { CATALOG_LOCK } from '../../core/locks.js';
import { anyBookingNames, upcomingBookingCount, type CatalogRef } from '../bookings/index.js';

type InUseCode = Extract<ErrorCode, 'agent_has_bookings' | 'service_has_bookings' | 'location_has_bookings'>;

/** How one kind of record (agent, service, location) leaves the catalog. */
export interface Removal {
  column: CatalogRef;
  code: InUseCode;
  what: string;
  /** Whether a record with the id exists and is not deleted. */
  exists(trx: Db, id: number): Promise<boolean>;
  /** Deletes the row, with its connections and the customers' preferences for it. */
  remove(trx: Db, id: number): Promise<void>;
  /**
   * Keeps the row for the past or cancelled bookings that refer to it, marked deleted and
   * disconnected, so that nothing can book it any more.
   */
  retire(trx: Db, id: number, at: string): Promise<void>;
}

/**
 * Deletes a record unless upcoming bookings that are not cancelled need it (409). Past and
 * cancelled bookings keep it as their history: then it is retired rather than removed.
 * Returns false when there is no such record.
 */
export async function deleteUnlessBooked(db: Db, removal: Removal, id: number): Promise<boolean> {
  // Exclusively: no booking write is under way while the check below and the removal run (see CATALOG_LOCK).
  return lockedTransaction(db, [CATALOG_LOCK], async (trx) => {
    if (!(await removal.exists(trx, id))) return false;
    const at = nowIso();
    const upcoming = await upcomingBookingCount(trx, removal.column, id, at);
    if (upcoming > 0) {
      throw new AppError(removal.code, `${removal.what} ${id} has ${upcoming} upcoming booking(s); cancel or move them first`, {
        upcoming_bookings: upcoming,
      });
    }
    if (await anyBookingNames(trx, removal.column, id)) await removal.retire(trx, id, at);
    else await removal.remove(trx, id);
    return true;
  });
}

