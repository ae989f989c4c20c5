import { sql } from 'kysely';
import type { Db, Dialect } from './database.js';

/**
 * Runs `work` in one transaction that holds a write lock on each of `lockKeys` (e.g. `agent:7`)
 * until it commits, across every process on the same database, so that a check and the write it
 * guards cannot interleave with another writer of the same keys.
 *
 * SQLite: every transaction holds the write lock from BEGIN IMMEDIATE on (see GroupCommitDriver), the database's single
 * write lock at once (waiting up to busy_timeout), which serialises all writers, a superset of
 * per-key locking.
 * PostgreSQL: a transaction-scoped advisory lock per key, taken in sorted order so that two
 * transactions locking overlapping sets cannot deadlock; READ COMMITTED then lets each statement
 * see what earlier lock holders committed.
 */
export async function lockedTransaction<T>(
  database: { db: Db; dialect: Dialect },
  lockKeys: readonly string[],
  work: (trx: Db) => Promise<T>,
): Promise<T> {
  return database.db.transaction().execute(async (trx) => {
    if (database.dialect === 'postgres') {
      for (const key of [...new Set(lockKeys)].sort()) {
        await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
      }
    }
    return work(trx);
  });
}
