import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { JobColumns, JobTableName } from './table.js';

/**
 * One view of every job table: the queries below touch only the columns all of them share, so
 * each is written once for all. The one cast of this module.
 */
function jobTables(db: Db): Kysely<Record<JobTableName, JobColumns>> {
  return db as unknown as Kysely<Record<JobTableName, JobColumns>>;
}

/**
 * Claims up to `limit` due rows of a job table for one runner until `claimUntil`, in one
 * statement. The WHERE conditions are checked again on each row as it is updated, so runners
 * (processes or instances) racing for the same rows each get a disjoint set; a row whose claim
 * has lapsed (its runner died mid-job) is due again.
 */
export async function claimDue(db: Db, table: JobTableName, now: string, claimUntil: string, limit: number): Promise<Record<string, unknown>[]> {
  const jobs = jobTables(db);
  const due = jobs
    .selectFrom(table)
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit);
  return jobs
    .updateTable(table)
    .set({ locked_until: claimUntil, updated_at: now })
    .where('id', 'in', due)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .returningAll()
    .execute();
}

export interface Finished {
  status: string;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string;
  /** The queue's own columns (mail: sent_at; webhooks: the last status code, delivered_at). */
  extra: Record<string, unknown>;
}

/**
 * Records what became of a claimed row and releases the claim. Only the holder of the claim
 * writes: when the claim lapsed and another runner took the row over, this returns false.
 */
export async function finish(db: Db, table: JobTableName, id: number, claimUntil: string, finished: Finished, now: string): Promise<boolean> {
  const result = await jobTables(db)
    .updateTable(table)
    .set({
      ...finished.extra,
      status: finished.status,
      attempts: finished.attempts,
      last_error: finished.lastError,
      next_attempt_at: finished.nextAttemptAt,
      locked_until: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('locked_until', '=', claimUntil)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives back rows claimed but not begun (the runner is stopping). */
export async function releaseClaims(db: Db, table: JobTableName, ids: readonly number[], claimUntil: string): Promise<void> {
  if (ids.length === 0) return;
  await jobTables(db).updateTable(table).set({ locked_until: null }).where('id', 'in', ids).where('locked_until', '=', claimUntil).execute();
}
