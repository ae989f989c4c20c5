import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.js';

export const SESSION_HOURS = 12;

export interface AdminSession {
  id: string;
  csrfToken: string;
  expiresAt: string;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Starts a session; returns the cookie token, the only place it exists in clear. */
export async function createSession(db: Db, now: Date): Promise<{ token: string; session: AdminSession }> {
  const token = randomToken();
  const session: AdminSession = {
    id: hashToken(token),
    csrfToken: randomToken(),
    expiresAt: new Date(now.getTime() + SESSION_HOURS * 3_600_000).toISOString(),
  };
  // Expired sessions are swept here, at the only moment a new one appears.
  await db.deleteFrom('admin_sessions').where('expires_at', '<', now.toISOString()).execute();
  await db
    .insertInto('admin_sessions')
    .values({ id: session.id, csrf_token: session.csrfToken, created_at: now.toISOString(), expires_at: session.expiresAt })
    .execute();
  return { token, session };
}

export async function findSession(db: Db, token: string, now: Date): Promise<AdminSession | undefined> {
  const row = await db
    .selectFrom('admin_sessions')
    .select(['id', 'csrf_token', 'expires_at'])
    .where('id', '=', hashToken(token))
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
  return row && { id: row.id, csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('admin_sessions').where('id', '=', id).execute();
}

export async function deleteAllSessions(db: Db): Promise<void> {
  await db.deleteFrom('admin_sessions').execute();
}
