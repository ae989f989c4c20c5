import type { Db } from '../../db/database.js';

export interface SessionRow {
  id: string;
  csrf_token: string;
  expires_at: string;
}

/** Removes the sessions that expired before `now`. */
export async function deleteExpiredSessions(db: Db, now: string): Promise<void> {
  await db.deleteFrom('admin_sessions').where('expires_at', '<', now).execute();
}

export async function insertSession(db: Db, row: SessionRow & { created_at: string }): Promise<void> {
  await db.insertInto('admin_sessions').values({ id: row.id, csrf_token: row.csrf_token, created_at: row.created_at, expires_at: row.expires_at }).execute();
}

/** The session with the id, unless it expired by `now`. */
export function findLiveSession(db: Db, id: string, now: string): Promise<SessionRow | undefined> {
  return db.selectFrom('admin_sessions').select(['id', 'csrf_token', 'expires_at']).where('id', '=', id).where('expires_at', '>', now).executeTakeFirst();
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('admin_sessions').where('id', '=', id).execute();
}

export async function deleteAllSessions(db: Db): Promise<void> {
  await db.deleteFrom('admin_sessions').execute();
}
