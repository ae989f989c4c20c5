import type { Generated } from 'kysely';

export interface IdempotencyKeysTable {
  id: Generated<number>;
  /** The API key that sent the request: idempotency keys are scoped to their owner. */
  api_key_id: number;
  idempotency_key: string;
  /** SHA-256 of method, URL and body: a retry must send the same request. */
  request_hash: string;
  /** in_progress → applied (work committed) → done (response stored), or lost (no response to store). */
  state: 'in_progress' | 'applied' | 'done' | 'lost';
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../db/database.js' {
  interface Database {
    idempotency_keys: IdempotencyKeysTable;
  }
}
