import type { Generated } from 'kysely';
import type { RequestRecord } from '../../http/auth.js';

/** One audited request, as the auth hook records it. */
export interface AuditLogTable extends RequestRecord {
  id: Generated<number>;
}

declare module '../../db/database.js' {
  interface Database {
    audit_log: AuditLogTable;
  }
}
