import type { Db } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import { DEFAULT_SITE_SCHEDULE, parseSchedule, SITE_SCHEDULE_KEY, type Schedule } from './model.js';

export async function readSiteSchedule(db: Db): Promise<Schedule> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', SITE_SCHEDULE_KEY).executeTakeFirst();
  return row ? parseSchedule(row.value) : DEFAULT_SITE_SCHEDULE;
}

export async function writeSiteSchedule(db: Db, schedule: Schedule): Promise<void> {
  const at = nowIso();
  await db
    .insertInto('settings')
    .values({ key: SITE_SCHEDULE_KEY, value: JSON.stringify(schedule), updated_at: at })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(schedule), updated_at: at }))
    .execute();
}

/** The agent's own schedule (null: the site's hours), or undefined when there is no such agent. */
export async function readAgentSchedule(db: Db, agentId: number): Promise<{ schedule: Schedule | null } | undefined> {
  const row = await db.selectFrom('agents').select('schedule').where('id', '=', agentId).where('deleted_at', 'is', null).executeTakeFirst();
  if (!row) return undefined;
  return { schedule: row.schedule === null ? null : parseSchedule(row.schedule) };
}

/** Sets (or, with null, removes) an agent's own schedule; false when there is no such agent. */
export async function writeAgentSchedule(db: Db, agentId: number, schedule: Schedule | null): Promise<boolean> {
  const result = await db
    .updateTable('agents')
    .set({ schedule: schedule === null ? null : JSON.stringify(schedule), updated_at: nowIso() })
    .where('id', '=', agentId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
