import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CalendarFeedsTable } from './table.js';

export type FeedRow = Selectable<CalendarFeedsTable>;
/** A feed as a list shows it: never its token's hash. */
export type ListedFeed = Omit<FeedRow, 'token_hash'>;

const LISTED = ['id', 'agent_id', 'label', 'created_at', 'last_used_at'] as const;

export function insertFeed(db: Db, row: Insertable<CalendarFeedsTable>): Promise<ListedFeed> {
  return db.insertInto('calendar_feeds').values(row).returning(LISTED).executeTakeFirstOrThrow();
}

export async function listFeeds(db: Db, agentId: number, limit: number, offset: number): Promise<{ rows: ListedFeed[]; total: number }> {
  const rows = await db.selectFrom('calendar_feeds').select(LISTED).where('agent_id', '=', agentId).orderBy('id', 'desc').limit(limit).offset(offset).execute();
  const { n } = await db
    .selectFrom('calendar_feeds')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/** Whether the agent had the feed, which is gone now. */
export async function deleteFeed(db: Db, agentId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('calendar_feeds').where('id', '=', id).where('agent_id', '=', agentId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** The feed whose token has this hash, with its agent's names; none when the agent is deleted. */
export function feedByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('calendar_feeds as f')
    .innerJoin('agents as a', 'a.id', 'f.agent_id')
    .select(['f.id', 'f.agent_id', 'f.last_used_at', 'a.first_name as agent_first_name', 'a.last_name as agent_last_name', 'a.display_name as agent_display_name'])
    .where('f.token_hash', '=', tokenHash)
    .where('a.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Records a fetch unless one was recorded since `unlessSince`: calendars poll, and each fetch need not write. */
export async function touchFeed(db: Db, id: number, at: string, unlessSince: string): Promise<void> {
  await db
    .updateTable('calendar_feeds')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', unlessSince)]))
    .execute();
}
