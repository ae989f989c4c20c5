import { sql, type Insertable, type Selectable } from 'kysely';
import { dialectOfDb, type Db } from '../../db/database.js';
import type { EventsTable, EventType } from './table.js';

export type EventRow = Selectable<EventsTable>;

export async function insertEvents(db: Db, rows: readonly Insertable<EventsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('events').values(rows).execute();
}

/**
 * Where an event stands in the feed's order: on PostgreSQL its transaction's id and its own, on
 * SQLite its id alone. Undefined when there is no such event.
 */
export interface FeedPosition {
  txId: string | null;
  id: number;
}

export function findEvent(db: Db, id: number): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function feedPosition(db: Db, id: number): Promise<FeedPosition | undefined> {
  if (dialectOfDb(db) === 'sqlite') {
    const row = await db.selectFrom('events').select('id').where('id', '=', id).executeTakeFirst();
    return row && { txId: null, id: row.id };
  }
  const row = await db
    .selectFrom('events')
    .select(['id', sql<string>`tx_id::text`.as('tx_id')])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { txId: row.tx_id, id: row.id };
}

export interface FeedQuery {
  /** Events after this position; from the first event when undefined. */
  after: FeedPosition | undefined;
  types: readonly EventType[] | undefined;
  limit: number;
}

/**
 * The committed events after a position, in commit order, such that no event can later appear
 * before the last one returned.
 *
 * PostgreSQL hands out ids before commit, so a transaction holding id 7 may commit after one
 * holding id 8: a reader who had been given 8 would never see 7. Each event therefore records its
 * transaction's id, and the feed returns only events of transactions older than the oldest one
 * still running (`pg_snapshot_xmin` of the statement's snapshot): every such transaction has
 * ended, so the set below that line is final, and it is read in (tx_id, id) order. Events of a
 * transaction still running wait until it ends; a transaction that commits later always has a
 * greater tx_id than the line, so it sorts after everything already read.
 *
 * SQLite has one writer at a time and makes a transaction's rows visible only with its commit,
 * so ids are already in commit order.
 */
function feedAfter(db: Db, query: FeedQuery) {
  let select = db.selectFrom('events');
  if (query.types !== undefined) select = select.where('type', 'in', query.types);
  if (dialectOfDb(db) === 'sqlite') {
    if (query.after !== undefined) select = select.where('id', '>', query.after.id);
    return select.orderBy('id').limit(query.limit);
  }
  select = select.where(sql<boolean>`tx_id < pg_snapshot_xmin(pg_current_snapshot())`);
  const after = query.after;
  if (after !== undefined) select = select.where(sql<boolean>`(tx_id, id) > (${after.txId}::xid8, ${after.id})`);
  return select.orderBy(sql`tx_id`).orderBy('id').limit(query.limit);
}

export function eventsAfter(db: Db, query: FeedQuery): Promise<EventRow[]> {
  return feedAfter(db, query).selectAll().execute();
}

/** eventsAfter without the events' data: what the webhook dispatcher needs of them. */
export function eventHeadsAfter(db: Db, query: FeedQuery): Promise<Pick<EventRow, 'id' | 'type' | 'created_at'>[]> {
  return feedAfter(db, query).select(['id', 'type', 'created_at']).execute();
}
