import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { OutboxStatus, OutboxTable } from './table.js';

export type OutboxRow = Selectable<OutboxTable>;

/**
 * Claims up to `limit` due rows for one sender until `claimUntil`, in one statement. The WHERE
 * conditions are checked again on each row as it is updated, so two senders (processes or
 * instances) racing for the same rows each get a disjoint set; a row whose claim has lapsed
 * (its sender died mid-send) is due again.
 */
export function claimDue(db: Db, now: string, claimUntil: string, limit: number): Promise<OutboxRow[]> {
  const due = db
    .selectFrom('outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit);
  return db
    .updateTable('outbox')
    .set({ locked_until: claimUntil, updated_at: now })
    .where('id', 'in', due)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .returningAll()
    .execute();
}

export interface Outcome {
  status: OutboxStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string;
  sentAt: string | null;
}

/**
 * Records what became of a claimed row and releases the claim. Only the holder of the claim
 * writes: when the claim lapsed and another sender took the row over, this returns false.
 */
export async function finish(db: Db, id: number, claimUntil: string, outcome: Outcome, now: string): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set({
      status: outcome.status,
      attempts: outcome.attempts,
      last_error: outcome.lastError,
      next_attempt_at: outcome.nextAttemptAt,
      sent_at: outcome.sentAt,
      locked_until: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('locked_until', '=', claimUntil)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives back rows claimed but not attempted (the sender is stopping). */
export async function releaseClaims(db: Db, ids: readonly number[], claimUntil: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('outbox').set({ locked_until: null }).where('id', 'in', ids).where('locked_until', '=', claimUntil).execute();
}

export interface OutboxQuery {
  status?: OutboxStatus;
  limit: number;
  offset: number;
}

/** Newest first. */
export function listOutbox(db: Db, query: OutboxQuery): Promise<OutboxRow[]> {
  let select = db.selectFrom('outbox').selectAll();
  if (query.status !== undefined) select = select.where('status', '=', query.status);
  return select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).offset(query.offset).execute();
}

export async function countOutbox(db: Db, status?: OutboxStatus): Promise<number> {
  let select = db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n'));
  if (status !== undefined) select = select.where('status', '=', status);
  const { n } = await select.executeTakeFirstOrThrow();
  return Number(n);
}

/** Adds one mail to the outbox; its id. */
export async function insertOutboxRow(db: Db, row: Insertable<OutboxTable>): Promise<number> {
  const { id } = await db.insertInto('outbox').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** Adds mails to the outbox, in one statement. */
export async function insertOutboxRows(db: Db, rows: readonly Insertable<OutboxTable>[]): Promise<void> {
  await db.insertInto('outbox').values(rows).execute();
}
