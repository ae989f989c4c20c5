import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { containsText } from '../../http/list-query.js';
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

export type StatusClass = 2 | 3 | 4 | 5;

export interface AuditFilter {
  /** A key id, or null for requests without a valid key. */
  keyId?: number | null;
  statusClass?: StatusClass;
  /** Part of the path, case-insensitive. */
  pathContains?: string;
  /** ISO instants; from inclusive, to exclusive. */
  from?: string;
  to?: string;
}

function filtered(db: Db, filter: AuditFilter) {
  let select = db.selectFrom('audit_log');
  if (filter.keyId === null) select = select.where('key_id', 'is', null);
  else if (filter.keyId !== undefined) select = select.where('key_id', '=', filter.keyId);
  if (filter.statusClass !== undefined) {
    select = select.where('status', '>=', filter.statusClass * 100).where('status', '<', filter.statusClass * 100 + 100);
  }
  if (filter.pathContains) {
    select = select.where(containsText('path', filter.pathContains));
  }
  if (filter.from !== undefined) select = select.where('at', '>=', filter.from);
  if (filter.to !== undefined) select = select.where('at', '<', filter.to);
  return select;
}

/** One page of matching entries, newest first. */
export function searchEntries(db: Db, filter: AuditFilter, page: { limit: number; offset: number }): Promise<AuditEntry[]> {
  return filtered(db, filter)
    .selectAll()
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countEntries(db: Db, filter: AuditFilter): Promise<number> {
  const { n } = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

export interface HourlyUsage {
  key_id: number | null;
  /** The UTC hour, "YYYY-MM-DDTHH". */
  hour: string;
  requests: number;
}

/** Matching requests per key and UTC hour (ISO text sorts and truncates the same on both engines). */
export async function usagePerKeyHour(db: Db, filter: AuditFilter): Promise<HourlyUsage[]> {
  const hour = sql<string>`substr(${sql.ref('at')}, 1, 13)`;
  const rows = await filtered(db, filter)
    .select(['key_id', hour.as('hour'), (eb) => eb.fn.countAll<number>().as('requests')])
    .groupBy(['key_id', hour])
    .orderBy(hour)
    .execute();
  return rows.map((r) => ({ key_id: r.key_id, hour: r.hour, requests: Number(r.requests) }));
}

/** Requests per key since an instant (requests without a key are left out). */
export async function requestsPerKeySince(db: Db, since: string): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('audit_log')
    .select(['key_id', (eb) => eb.fn.countAll<number>().as('requests')])
    .where('at', '>=', since)
    .where('key_id', 'is not', null)
    .groupBy('key_id')
    .execute();
  return new Map(rows.filter((r) => r.key_id !== null).map((r) => [r.key_id as number, Number(r.requests)]));
}
