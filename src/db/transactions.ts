import { sql } from 'kysely';
import { CATALOG_LOCK, type LockKey } from '../core/locks.js';
import { isUniqueViolation } from './constraints.js';
import { dialectOfDb, type Db, type Dialect } from './database.js';

/**
 * Runs `work` in one transaction that holds a write lock on each of `lockKeys` (e.g. `agent:7`)
 * until it commits, across every process on the same database, so that a check and the write it
 * guards cannot interleave with another writer of the same keys.
 *
 * SQLite: every transaction holds the write lock from BEGIN IMMEDIATE on (see GroupCommitDriver), the database's single
 * write lock at once (waiting up to the bound of its kind of work, DB_*_TIMEOUT_MS), which
 * serialises all writers, a superset of per-key locking.
 * PostgreSQL: a transaction-scoped advisory lock per key, taken in sorted order so that two
 * transactions locking overlapping sets cannot deadlock (a wait for one ends at the statement
 * bound, and the transaction rolls back); READ COMMITTED then lets each statement see what
 * earlier lock holders committed. A key named both ways is taken exclusively. A
 * transaction PostgreSQL ends to break a deadlock (of row locks), or one that made a code another
 * row already has, runs again, three times at most.
 */
export async function lockedTransaction<T>(db: Db, lockKeys: readonly LockKey[], work: (trx: Db) => Promise<T>): Promise<T> {
  const dialect = dialectOfDb(db);
  for (let attempt = 1; ; attempt++) {
    try {
      return await lockedAttempt(db, dialect, lockKeys, work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !(endedForAnother(error) || metTakenCode(error))) throw error;
    }
  }
}

/** Runs of a transaction PostgreSQL ends for another's sake, at most. */
const ATTEMPTS = 3;

/**
 * A deadlock or serialisation failure: PostgreSQL rolled the transaction back so that another
 * could go on, and running it again is safe. Advisory locks in sorted order cannot deadlock;
 * row locks taken in different orders by transactions under different keys still can.
 */
function endedForAnother(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Codes the service makes (readableCode) and each table keeps unique. Each run of a transaction
 * makes its own, so one that met a code another row already has runs again with new ones.
 */
const GENERATED_CODES = [
  ['bookings', 'booking_code'],
  ['orders', 'confirmation_code'],
  ['invoices', 'invoice_number'],
  ['customers', 'customer_code'],
] as const;

function metTakenCode(error: unknown): boolean {
  return GENERATED_CODES.some(([table, column]) => isUniqueViolation(error, table, column));
}

async function lockedAttempt<T>(db: Db, dialect: Dialect, lockKeys: readonly LockKey[], work: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') {
      const exclusive = new Map<string, boolean>();
      for (const key of lockKeys) {
        if (typeof key === 'string') exclusive.set(key, true);
        else if (!exclusive.has(key.shared)) exclusive.set(key.shared, false);
      }
      // One statement, one round trip: PostgreSQL evaluates a select list in order, so the locks
      // are still taken one after the other in sorted order.
      const locks = [...exclusive.keys()]
        .sort()
        .map((key) =>
          exclusive.get(key) ? sql`pg_advisory_xact_lock(hashtextextended(${key}, 0))` : sql`pg_advisory_xact_lock_shared(hashtextextended(${key}, 0))`,
        );
      if (locks.length > 0) await sql`select ${sql.join(locks)}`.execute(trx);
    }
    return work(trx);
  });
}

/**
 * Runs `work` in one transaction holding the catalog lock shared: for a write that makes a record
 * refer to an agent, service, location or category, with its check that they exist inside `work`,
 * so that no removal (which holds the lock exclusively) takes one away between check and commit.
 */
export function referencingCatalog<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return lockedTransaction(db, [{ shared: CATALOG_LOCK }], work);
}
