import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { AuditLogTable } from './table.js';

export type AuditEntry = Selectable<AuditLogTable>;
export type NewAuditEntry = Insertable<AuditLogTable>;

// Keeps one multi-row INSERT under SQLite's and PostgreSQL's bound-parameter limits.
const ROWS_PER_INSERT = 500;

export async function insertEntries(db: Db, entries: readonly NewAuditEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += ROWS_PER_INSERT) {
    await db.insertInto('audit_log').values(entries.slice(i, i + ROWS_PER_INSERT)).execute();
  }
}

export interface AuditQuery {
  keyId?: number;
  limit: number;
}

/** Newest first. */
export function listEntries(db: Db, query: AuditQuery): Promise<AuditEntry[]> {
  let select = db.selectFrom('audit_log').selectAll();
  if (query.keyId !== undefined) select = select.where('key_id', '=', query.keyId);
  return select.orderBy('at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
}
