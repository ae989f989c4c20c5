import type { Generated } from 'kysely';

export interface ApiKeysTable {
  id: Generated<number>;
  name: string;
  type: 'test' | 'live';
  /** The key's first 12 characters, safe to show. */
  prefix: string;
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  key_hash: string;
  /** JSON array of permission names, or ["*"]. */
  permissions: string;
  status: 'active' | 'inactive';
  per_minute: number;
  per_hour: number;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

declare module '../../db/database.js' {
  interface Database {
    api_keys: ApiKeysTable;
  }
}
