import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '../bookings/setup.js';
import { useTestApp, type Json } from '../helper.js';
import { feedSettled } from './settle.js';

/**
 * PostgreSQL hands out ids before commit order is known. These tests hold transactions open by
 * hand and show that the feed never lets a reader pass an event that has yet to commit.
 */
describe('the change feed under concurrent writers (postgres)', () => {
  const t = useTestApp('postgres');
  const clients: pg.Client[] = [];
  let key: string;

  beforeAll(async () => {
    key = await t.key({ permissions: ['events:read'], perMinute: 1_000_000, perHour: 1_000_000 });
    for (let i = 0; i < 6; i++) {
      const client = new pg.Client({ connectionString: t.databaseUrl.replace(/^postgresql:/, 'postgres:') });
      await client.connect();
      clients.push(client);
    }
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
  });

  const insertEvent = async (client: pg.Client, label: string): Promise<number> => {
    const { rows } = await client.query<{ id: number }>(
      `insert into events (type, resource_id, data, previous_attributes, source_type, created_at)
       values ('booking.updated', 1, $1, null, 'cli', now()::text) returning id`,
      [JSON.stringify({ label })],
    );
    return rows[0]!.id;
  };
  const feed = async (after?: number): Promise<Json> => {
    const res = await t.app.inject({ method: 'GET', url: `${API}/events?limit=1000${after === undefined ? '' : `&after=${after}`}`, headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it('holds back an event committed behind one still running, then lists both', async () => {
    const [a, b] = clients as [pg.Client, pg.Client];
    const start = (await feed()).next_after as number | null;
    await a.query('begin');
    const early = await insertEvent(a, 'early id, late commit');
    await b.query('begin');
    const late = await insertEvent(b, 'late id, early commit');
    await b.query('commit');
    expect(late).toBeGreaterThan(early);

    // A reader going by id alone would now be given `late`, and would never see `early`.
    const naive = await b.query<{ id: number }>('select id from events where id > $1 order by id', [start ?? 0]);
    expect(naive.rows.map((r) => r.id)).toEqual([late]);
    // The feed waits for the transaction still running.
    expect((await feed(start ?? undefined)).data).toEqual([]);

    await a.query('commit');
    await feedSettled(t.db);
    const after = await feed(start ?? undefined);
    // In the order their transactions began: the one holding the earlier id first.
    expect((after.data as { id: number }[]).map((e) => e.id)).toEqual([early, late]);
  });

  it('a reader walking the feed while writers commit in random order sees every event exactly once', async () => {
    const start = (await feed()).next_after as number | null;
    const committed: number[] = [];
    let writing = true;
    // Deterministic interleavings: a seeded generator decides how long each transaction stays open.
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const writers = clients.map(async (client, w) => {
      for (let i = 0; i < 25; i++) {
        await client.query('begin');
        const ids: number[] = [];
        const count = 1 + Math.floor(random() * 3);
        for (let j = 0; j < count; j++) {
          ids.push(await insertEvent(client, `w${w}.${i}.${j}`));
          // Other writers' statements run meanwhile: each round trip lets them in.
          for (let k = Math.floor(random() * 4); k > 0; k--) await client.query('select 1');
        }
        await client.query('commit');
        committed.push(...ids);
      }
    });
    const seen: number[] = [];
    const reader = (async () => {
      let cursor = start ?? undefined;
      for (;;) {
        const done = !writing;
        const page = await feed(cursor);
        seen.push(...(page.data as { id: number }[]).map((e) => e.id));
        cursor = page.next_after ?? undefined;
        if (done && !page.has_more) return;
      }
    })();
    await Promise.all(writers);
    // Other test files' transactions on the server may still hold the last events back: the
    // reader reads on once the feed shows them all.
    await feedSettled(t.db);
    writing = false;
    await reader;

    expect(committed).toHaveLength(seen.length);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((x, y) => x - y)).toEqual([...committed].sort((x, y) => x - y));
  });
});
