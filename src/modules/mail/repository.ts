import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { OutboxStatus, OutboxTable } from './table.js';

export type OutboxRow = Selectable<OutboxTable>;

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
