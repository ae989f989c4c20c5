import type { Generated } from 'kysely';

export interface AuditLogTable {
  id: Generated<number>;
  at: string;
  key_id: number | null;
  method: string;
  /** URL path without the query string: queries may carry personal data. */
  path: string;
  status: number;
  ip: string;
  duration_ms: number;
}

declare module '../../db/database.js' {
  interface Database {
    audit_log: AuditLogTable;
  }
}
