import { sql } from 'kysely';
import type { Db } from '../src/db/database.js';

/** Pairs of live bookings of one agent whose spans overlap: what "double-booked" means in SQL. */
export async function overlappingPairs(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*) as n
    from bookings a
    join bookings b on a.agent_id = b.agent_id and a.id < b.id
    join services s on s.id = a.service_id
    where a.status <> 'cancelled' and b.status <> 'cancelled'
      and a.start_at < b.end_at and b.start_at < a.end_at
      and not (a.service_id = b.service_id and a.start_at = b.start_at and s.capacity_max > 1)`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
