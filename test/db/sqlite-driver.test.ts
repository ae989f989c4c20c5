import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle, type Dialect } from '../../src/db/database.js';
import { GroupCommitDriver, MAX_GROUP_MEMBERS, groupCommitDialect } from '../../src/db/sqlite-driver.js';
import { withStatementCache, type StatementCache } from '../../src/db/statement-cache.js';
import { createTestDatabase, type TestDatabase } from '../databases.js';
import { DIALECTS } from '../helper.js';

interface Tables {
  items: { id: string; note: string };
  parents: { id: number };
  children: { id: number; parent_id: number };
}

async function createTables(db: Kysely<Tables>): Promise<void> {
  await db.schema.createTable('items').addColumn('id', 'varchar(50)', (c) => c.primaryKey()).addColumn('note', 'varchar(50)', (c) => c.notNull()).execute();
}

async function ids(db: Kysely<Tables>): Promise<string[]> {
  return (await db.selectFrom('items').select('id').orderBy('id').execute()).map((r) => r.id);
}

/** Transactions that each write their rows, some failing on purpose, all started in the same turn. */
function concurrentWrites(db: Kysely<Tables>, count: number, failing: (i: number) => 'throw' | 'duplicate' | undefined) {
  return Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      db.transaction().execute(async (trx) => {
        const id = `t${String(i).padStart(3, '0')}`;
        await trx.insertInto('items').values({ id, note: 'first' }).execute();
        if (failing(i) === 'throw') throw new Error(`transaction ${i} gives up`);
        // A second insert of the same key fails in the database, after the first took effect.
        await trx.insertInto('items').values({ id: failing(i) === 'duplicate' ? id : `${id}-second`, note: 'second' }).execute();
      }),
    ),
  );
}

describe.each(DIALECTS)('transactions side by side (%s)', (dialect: Dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let db: Kysely<Tables>;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    handle = openDatabase(database.url);
    db = handle.db as unknown as Kysely<Tables>;
    await createTables(db);
  });
  afterEach(async () => {
    await db.deleteFrom('items').execute();
  });
  afterAll(async () => {
    await handle.destroy();
    await database.drop();
  });

  it('commit their own work, and a failing one rolls back only its own', async () => {
    const outcomes = await concurrentWrites(db, 30, (i) => (i % 10 === 3 ? 'throw' : i % 10 === 7 ? 'duplicate' : undefined));
    expect(outcomes.map((o) => o.status)).toEqual(Array.from({ length: 30 }, (_, i) => (i % 10 === 3 || i % 10 === 7 ? 'rejected' : 'fulfilled')));
    const expected = Array.from({ length: 30 }, (_, i) => i)
      .filter((i) => i % 10 !== 3 && i % 10 !== 7)
      .flatMap((i) => [`t${String(i).padStart(3, '0')}`, `t${String(i).padStart(3, '0')}-second`]);
    expect(await ids(db)).toEqual(expected.sort());
  });

  it('show a write to every later read once it has returned, inside or outside a transaction', async () => {
    for (let i = 0; i < 5; i++) {
      await db.insertInto('items').values({ id: `lone-${i}`, note: 'lone' }).execute();
      expect(await db.selectFrom('items').select('id').where('id', '=', `lone-${i}`).execute()).toHaveLength(1);
      await db.transaction().execute((trx) => trx.insertInto('items').values({ id: `trx-${i}`, note: 'trx' }).execute());
      expect(await db.selectFrom('items').select('id').where('id', '=', `trx-${i}`).execute()).toHaveLength(1);
    }
  });

  it('are not seen by reads outside them before they are reported committed', async () => {
    const seenOutside: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ id: `seen-${i}`, note: 'x' }).execute();
          // Earlier transactions of this burst may have done their work without being committed yet.
          seenOutside.push((await db.selectFrom('items').select('id').execute()).length);
          expect((await trx.selectFrom('items').select('id').where('id', '=', `seen-${i}`).execute()).length).toBe(1);
        }),
      ),
    );
    // Each read outside saw only what was committed: never its own row, nor one of a transaction
    // that had not ended before it. On SQLite the ten form one group, committed after the last.
    for (const [i, count] of seenOutside.entries()) expect(count).toBeLessThan(i + 1);
    if (dialect === 'sqlite') expect(seenOutside).toEqual(Array.from({ length: 10 }, () => 0));
    expect(await ids(db)).toHaveLength(10);
  });
});

/** SQL statements the writing connection prepared, in order (the statement cache is asked every time). */
function loggingCache(database: SQLite.Database, log: string[]): StatementCache {
  const cache = withStatementCache(database);
  return {
    close: () => cache.close(),
    prepare(source) {
      log.push(source);
      return cache.prepare(source);
    },
  };
}

describe('group commit on SQLite', () => {
  let dir: string;
  let log: string[];
  let db: Kysely<Tables>;
  let file: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-group-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function open(name: string, options: { memory?: boolean } = {}): Promise<Kysely<Tables>> {
    file = options.memory ? ':memory:' : path.join(dir, `${name}.db`);
    const writer = new SQLite(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('foreign_keys = ON');
    log = [];
    const readerDatabase = options.memory ? undefined : new SQLite(file);
    const reader = readerDatabase && { database: readerDatabase, statements: withStatementCache(readerDatabase) };
    db = new Kysely<Tables>({
      dialect: groupCommitDialect(() => new GroupCommitDriver({ database: writer, statements: loggingCache(writer, log) }, reader)),
    });
    await createTables(db);
    log.length = 0;
    return db;
  }

  const commits = () => log.filter((s) => s === 'commit').length;

  it('ends the transactions of one turn with one COMMIT, and starts a new group beyond the largest', async () => {
    await open('one-commit');
    await concurrentWrites(db, 20, () => undefined);
    expect(commits()).toBe(1);
    expect(await ids(db)).toHaveLength(40);

    log.length = 0;
    await concurrentWrites(db, MAX_GROUP_MEMBERS + 1, () => undefined);
    expect(commits()).toBe(2);
    await db.destroy();
  });

  it('commits a transaction alone when none other is waiting', async () => {
    await open('alone');
    await db.transaction().execute((trx) => trx.insertInto('items').values({ id: 'a', note: 'x' }).execute());
    await db.insertInto('items').values({ id: 'b', note: 'x' }).execute();
    expect(commits()).toBe(2);
    await db.destroy();
  });

  it('fails every transaction of a group whose COMMIT fails, and keeps none of their work', async () => {
    await open('commit-fails');
    await sql`create table parents (id integer primary key)`.execute(db);
    // Checked only at COMMIT: a violation makes the COMMIT itself fail.
    await sql`create table children (id integer primary key, parent_id integer not null references parents (id) deferrable initially deferred)`.execute(db);
    const outcomes = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('items').values({ id: 'innocent', note: 'x' }).execute()),
      db.transaction().execute((trx) => trx.insertInto('children').values({ id: 1, parent_id: 404 }).execute()),
      db.insertInto('items').values({ id: 'lone', note: 'x' }).execute(),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(await ids(db)).toEqual([]);
    // The connection goes on: the next group commits.
    await db.insertInto('items').values({ id: 'after', note: 'x' }).execute();
    expect(await ids(db)).toEqual(['after']);
    await db.destroy();
  });

  it('answers a failure caused by work of its group only once that work is committed', async () => {
    await open('conflict');
    let committedWhenRefused: string[] | undefined;
    await Promise.all([
      db.transaction().execute((trx) => trx.insertInto('items').values({ id: 'taken', note: 'first' }).execute()),
      db
        .transaction()
        .execute((trx) => trx.insertInto('items').values({ id: 'taken', note: 'second' }).execute())
        .catch(async () => {
          committedWhenRefused = await ids(db);
        }),
    ]);
    expect(committedWhenRefused).toEqual(['taken']);
    await db.destroy();
  });

  it('waits for another process’s write lock without holding up reads', async () => {
    file = path.join(dir, 'other-process.db');
    const handle = openDatabase(`sqlite:${file}`);
    db = handle.db as unknown as Kysely<Tables>;
    await createTables(db);
    // Another connection to the file stands for another process: SQLite locks the file for it alike.
    const other = new SQLite(file);
    other.exec('begin immediate');
    other.prepare(`insert into items (id, note) values ('other', 'x')`).run();
    let written = false;
    const write = db
      .insertInto('items')
      .values({ id: 'mine', note: 'x' })
      .execute()
      .then(() => (written = true));
    expect(await ids(db)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toBe(false);
    other.exec('commit');
    await write;
    expect(await ids(db)).toEqual(['mine', 'other']);
    other.close();
    await handle.destroy();
  });

  it('on an in-memory database commits each transaction alone, and reads wait for the writer', async () => {
    await open('memory', { memory: true });
    await concurrentWrites(db, 5, () => undefined);
    expect(commits()).toBe(5);

    let outside: Promise<string[]> | undefined;
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('items').values({ id: 'undone', note: 'x' }).execute();
        outside = ids(db);
        // Gives the read every chance to run before the transaction ends.
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('undo');
      })
      .catch(() => undefined);
    expect(await outside).not.toContain('undone');
    await db.destroy();
  });
});
