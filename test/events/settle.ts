import { sql } from 'kysely';
import { vi } from 'vitest';
import { dialectOfDb, type Db } from '../../src/db/database.js';
import type { Json } from '../helper.js';

/** An event as the feed lists it, typed loosely for assertions. */
export interface FeedEvent {
  id: number;
  type: string;
  data: Json;
  previous_attributes: Json;
  request_id: string | null;
  source: Json;
}

/**
 * Waits until the feed shows every committed event of this database. On PostgreSQL the feed holds
 * events back while any older transaction of the whole cluster is open (`pg_snapshot_xmin` is
 * cluster-wide), and other test files migrate and write their own databases on the same server.
 */
export async function feedSettled(db: Db): Promise<void> {
  if (dialectOfDb(db) === 'sqlite') return;
  await vi.waitFor(
    async () => {
      const { rows } = await sql<{ held: number }>`select count(*)::int as held from events where tx_id >= pg_snapshot_xmin(pg_current_snapshot())`.execute(db);
      if (rows[0]!.held > 0) throw new Error(`${rows[0]!.held} events held back by an older transaction`);
    },
    { timeout: 15_000, interval: 10 },
  );
}
