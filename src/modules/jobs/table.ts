import type { Database } from '../../db/database.js';

/**
 * The columns every job table has (the mail outbox, webhook deliveries): a row is to do while its
 * status is `pending` and `next_attempt_at` has come; a runner claims it until `locked_until`.
 * Other statuses are final and each queue names its own.
 */
export interface JobColumns {
  id: number;
  status: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string;
  locked_until: string | null;
  updated_at: string;
}

/** The tables of Database that are job tables: found by their columns, so this module names none. */
export type JobTableName = {
  [K in keyof Database]: Database[K] extends { status: string; attempts: number; next_attempt_at: string; locked_until: string | null } ? K : never;
}[keyof Database];
