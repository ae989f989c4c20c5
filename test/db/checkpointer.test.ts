import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { createTestDatabase, type TestDatabase } from '../databases.js';

// Checkpoints are a matter of SQLite's write-ahead log only; PostgreSQL has its own checkpointer.
describe('SQLite background checkpoints', () => {
  let database: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;

  afterEach(async () => {
    await handle?.destroy();
    await database?.drop();
    handle = undefined;
  });

  /** Writes about 2 MB in small transactions: below SQLite's own threshold of 1,000 pages (4 MB). */
  async function writeLog(db: DatabaseHandle['db']): Promise<void> {
    await sql`create table filler (text text not null)`.execute(db);
    for (let i = 0; i < 200; i++) {
      await sql`insert into filler (text) values (${'x'.repeat(10_000)})`.execute(db);
    }
  }

  /** Bytes of the database file itself, without its write-ahead log. */
  const fileSize = (file: string) => fs.statSync(file).size;

  it('moves committed writes into the database file without the writing connection doing it', async () => {
    database = await createTestDatabase('sqlite');
    const file = database.url.slice('sqlite:'.length);
    handle = openDatabase(database.url, { backgroundCheckpoints: true });
    const before = fileSize(file);
    await writeLog(handle.db);
    // The worker runs every 200 ms; give it up to 10 s on a loaded machine.
    for (let i = 0; i < 100 && fileSize(file) - before < 1_500_000; i++) await sleep(100);
    expect(fileSize(file) - before).toBeGreaterThan(1_500_000);
    expect(await sql<{ n: number }>`select count(*) as n from filler`.execute(handle.db).then((r) => r.rows[0]?.n)).toBe(200);
  });

  it('without it, the same writes stay in the log until SQLite’s own threshold', async () => {
    database = await createTestDatabase('sqlite');
    const file = database.url.slice('sqlite:'.length);
    handle = openDatabase(database.url);
    const before = fileSize(file);
    await writeLog(handle.db);
    await sleep(1_000);
    expect(fileSize(file) - before).toBeLessThan(1_500_000);
  });
});
