import type { Db } from '../../src/db/database.js';
import { overlappingPairs } from '../../bench/overlaps.js';
import type { Outcome, OutcomeKind } from './load.js';

export interface DataCheck {
  bookingsStored: number;
  acknowledged: number;
  /** Acknowledged (2xx) bookings that are not in the database, or not under the id the client was given. */
  acknowledgedMissing: number;
  overlappingPairs: number;
  /** Bookings committed whose request the client saw fail, by how it failed: for information. */
  committedUnacknowledged: Partial<Record<OutcomeKind, number>>;
}

/** Reads the database directly: what the clients were told against what is stored. */
export async function checkData(db: Db, outcomes: readonly Outcome[]): Promise<DataCheck> {
  const stored = await db
    .selectFrom('booking_meta')
    .innerJoin('bookings', 'bookings.id', 'booking_meta.booking_id')
    .select(['bookings.id', 'booking_meta.meta_value as marker'])
    .where('booking_meta.meta_key', '=', 'fault_request')
    .execute();
  const idByMarker = new Map(stored.map((row) => [row.marker, row.id]));
  const acknowledged = outcomes.filter((o) => o.kind === 'created');
  const committedUnacknowledged: Partial<Record<OutcomeKind, number>> = {};
  for (const outcome of outcomes) {
    if (outcome.kind !== 'created' && idByMarker.has(outcome.marker)) {
      committedUnacknowledged[outcome.kind] = (committedUnacknowledged[outcome.kind] ?? 0) + 1;
    }
  }
  return {
    bookingsStored: stored.length,
    acknowledged: acknowledged.length,
    acknowledgedMissing: acknowledged.filter((o) => idByMarker.get(o.marker) !== o.bookingId).length,
    overlappingPairs: await overlappingPairs(db),
    committedUnacknowledged,
  };
}
