export interface AdminSessionsTable {
  /** SHA-256 hex of the session cookie's token. */
  id: string;
  /** The token every form of this session must send back. */
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    admin_sessions: AdminSessionsTable;
  }
}
