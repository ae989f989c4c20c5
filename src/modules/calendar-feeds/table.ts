import type { Generated } from 'kysely';

export interface CalendarFeedsTable {
  id: Generated<number>;
  agent_id: number;
  /** SHA-256 (hex) of the feed's token: the token itself is shown once and never stored. */
  token_hash: string;
  label: string | null;
  created_at: string;
  /** When a calendar last fetched the feed (at most once a minute is recorded); null before. */
  last_used_at: string | null;
}

declare module '../../db/database.js' {
  interface Database {
    calendar_feeds: CalendarFeedsTable;
  }
}
