import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { deleteExpiredSessions, findLiveSession, insertSession } from './session-repository.js';

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
  await deleteExpiredSessions(db, now.toISOString());
  await insertSession(db, { id: session.id, csrf_token: session.csrfToken, created_at: now.toISOString(), expires_at: session.expiresAt });
  return { token, session };
}

export async function findSession(db: Db, token: string, now: Date): Promise<AdminSession | undefined> {
  const row = await findLiveSession(db, hashToken(token), now.toISOString());
  return row && { id: row.id, csrfToken: row.csrf_token, expiresAt: row.expires_at };
}
