import { sql, type RawBuilder } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { openDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { prepareRowsQuery, prepareQuery, RUNS_BEFORE_NAMING } from '../../src/db/prepared.js';
import { lockedTransaction } from '../../src/db/transactions.js';
import { DIALECTS, useTestApp } from '../helper.js';

const AT = '2026-01-01T00:00:00.000Z';

function auditRows(db: Db, minStatus: number, method: string) {
  return db
    .selectFrom('audit_log')
    .select(['id', 'method', 'path', 'status'])
    .where('status', '>=', minStatus)
    .where('method', '=', method)
    .where('path', '!=', '/excluded')
    .orderBy('id');
}
const preparedAuditRows = prepareQuery(auditRows);

interface Entry {
  path: string;
  status: number;
  keyId: number | null;
  durationMs: number;
}
const ENTRY_FIELDS = { path: true, status: true, keyId: true, durationMs: true } as const;

function insertEntriesQuery(db: Db, rows: Entry[]) {
  return db
    .insertInto('audit_log')
    .values(rows.map((row) => ({ at: AT, key_id: row.keyId, method: 'POST', path: row.path, status: row.status, ip: '::1', duration_ms: row.durationMs })))
    .returning(['id', 'at', 'key_id', 'method', 'path', 'status', 'ip', 'duration_ms']);
}

/** A prepared insert of entries, and the number of rows of each build of it. */
function preparedEntries(maxRows: number) {
  const builds: number[] = [];
  const prepared = prepareRowsQuery(ENTRY_FIELDS, maxRows, (db: Db, rows: Entry[]) => {
    builds.push(rows.length);
    return insertEntriesQuery(db, rows);
  });
  return { prepared, builds };
}

const entries = (count: number, path = '/e'): Entry[] =>
  Array.from({ length: count }, (_, i) => ({ path: `${path}${i}`, status: 200 + i, keyId: i % 2 === 0 ? null : i, durationMs: i + 0.5 }));

const insertEntry = prepareQuery((db: Db, path: string, status: number) =>
  db.insertInto('audit_log').values({ at: AT, key_id: null, method: 'PUT', path, status, ip: '::1', duration_ms: 1 }).returning(['id', 'path']),
);

describe.each(DIALECTS)('prepared queries (%s)', (dialect) => {
  const t = useTestApp(dialect);

  async function seed(): Promise<void> {
    await t.db.deleteFrom('audit_log').execute();
    await t.db
      .insertInto('audit_log')
      .values(
        [
          ['GET', '/a', 200],
          ['GET', '/b', 404],
          ['POST', '/c', 201],
          ['GET', '/excluded', 500],
          ['GET', "'; drop table audit_log; --", 503],
        ].map(([method, path, status]) => ({ at: AT, key_id: null, method: String(method), path: String(path), status: Number(status), ip: '::1', duration_ms: 1 })),
      )
      .execute();
  }

  it('returns the rows of the built query, run after run with new arguments', async () => {
    await seed();
    for (const [minStatus, method] of [
      [200, 'GET'],
      [400, 'GET'],
      [200, 'POST'],
      [600, 'GET'],
      [0, "' or 1=1 --"],
    ] as const) {
      const expected = await auditRows(t.db, minStatus, method).execute();
      expect(await preparedAuditRows.execute(t.db, minStatus, method)).toEqual(expected);
      expect(await preparedAuditRows.executeTakeFirst(t.db, minStatus, method)).toEqual(expected[0]);
    }
  });

  it("keeps the query's constants and binds every argument as a parameter", async () => {
    await seed();
    // "/excluded" is a constant of the query; a value that reads as SQL stays a value.
    expect((await preparedAuditRows.execute(t.db, 0, 'GET')).map((r) => r.path)).toEqual(['/a', '/b', "'; drop table audit_log; --"]);
    expect(await preparedAuditRows.execute(t.db, 0, "GET' or '1'='1")).toEqual([]);
    expect(await t.db.selectFrom('audit_log').select('id').execute()).toHaveLength(5);
  });

  it('runs inside a transaction, seeing its writes and undone with it', async () => {
    await seed();
    const rollback = new Error('rollback');
    await expect(
      t.db.transaction().execute(async (trx) => {
        const inserted = await insertEntry.executeTakeFirst(trx, '/in-trx', 299);
        expect(inserted?.path).toBe('/in-trx');
        expect((await preparedAuditRows.execute(trx, 299, 'PUT')).map((r) => r.id)).toEqual([inserted?.id]);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(await preparedAuditRows.execute(t.db, 299, 'PUT')).toEqual([]);

    const committed = await lockedTransaction(t.db, ['test:prepared'], (trx) => insertEntry.executeTakeFirst(trx, '/locked', 298));
    expect((await preparedAuditRows.execute(t.db, 298, 'PUT')).map((r) => r.id)).toEqual([committed?.id]);
  });

  it('reads outside a transaction without Kysely\'s executor on SQLite, through it on PostgreSQL', async () => {
    await seed();
    const executor = vi.spyOn(t.db, 'executeQuery');
    try {
      expect((await preparedAuditRows.execute(t.db, 400, 'GET')).map((r) => r.path)).toEqual(['/b', "'; drop table audit_log; --"]);
      expect(executor).toHaveBeenCalledTimes(dialect === 'sqlite' ? 0 : 1);
      // A write is never run directly: it takes the write lock and commits in its group.
      await insertEntry.executeTakeFirst(t.db, '/direct', 297);
      expect(executor).toHaveBeenCalledTimes(dialect === 'sqlite' ? 1 : 2);
    } finally {
      executor.mockRestore();
    }
    expect((await preparedAuditRows.execute(t.db, 297, 'PUT')).map((r) => r.path)).toEqual(['/direct']);
  });

  it('refuses a builder that does not bind an argument or turns it into text', async () => {
    const branching = prepareQuery((db: Db, method: string) =>
      db.selectFrom('audit_log').select('id').where('method', '=', typeof method === 'string' ? method : 'GET'),
    );
    await expect(branching.execute(t.db, 'GET')).rejects.toThrow(/argument 0 is not a bound parameter/);
    const textual = prepareQuery((db: Db, path: string) => db.selectFrom('audit_log').select('id').where('path', '=', `/x${path}`));
    await expect(textual.execute(t.db, 'y')).rejects.toThrow(/argument 0 was turned into text/);
    const defaulted = prepareQuery((db: Db, path: string = '/a') => db.selectFrom('audit_log').select('id').where('path', '=', path));
    await expect(defaulted.execute(t.db, '/b')).rejects.toThrow(/1 arguments for 0; declare each as a plain parameter/);
  });
});

describe.each(DIALECTS)('prepared multi-row inserts (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const withoutIds = <R extends { id: number }>(rows: R[]) => rows.map(({ id: _id, ...rest }) => rest);

  it('inserts the rows a plain Kysely insert does, with values that read as SQL kept as values, returned in the same order', async () => {
    const { prepared } = preparedEntries(4);
    const rows: Entry[] = [
      { path: "'; drop table audit_log; --", status: 500, keyId: null, durationMs: 0.25 },
      { path: '/b', status: 0, keyId: 7, durationMs: 2 },
      { path: "x' || 'y", status: -1, keyId: 0, durationMs: 1e-3 },
    ];
    const plain = await insertEntriesQuery(t.db, rows).execute();
    const inserted = await prepared.execute(t.db, rows);
    expect(withoutIds(inserted)).toEqual(withoutIds(plain));
    const ids = inserted.map((row) => row.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const stored = await t.db.selectFrom('audit_log').selectAll().where('id', 'in', ids).orderBy('id').execute();
    expect(stored).toEqual(inserted);
    expect(await prepared.execute(t.db, [])).toEqual([]);
  });

  it('builds and compiles once per number of rows up to maxRows, longer lists on each run', async () => {
    const { prepared, builds } = preparedEntries(3);
    for (const count of [2, 3, 2, 1, 3, 1]) {
      expect((await prepared.execute(t.db, entries(count, `/n${count}-`))).map((row) => row.path)).toEqual(entries(count, `/n${count}-`).map((e) => e.path));
    }
    expect(builds).toEqual([2, 3, 1]);
    // A transaction shares its database's templates.
    await t.db.transaction().execute((trx) => prepared.execute(trx, entries(2)));
    expect(builds).toEqual([2, 3, 1]);
    expect(await prepared.execute(t.db, entries(5))).toHaveLength(5);
    expect(await prepared.execute(t.db, entries(5))).toHaveLength(5);
    expect(builds).toEqual([2, 3, 1, 5, 5]);
  });

  it('runs inside a transaction, seeing its writes and undone with it', async () => {
    const { prepared } = preparedEntries(4);
    const rollback = new Error('rollback');
    await expect(
      t.db.transaction().execute(async (trx) => {
        const inserted = await prepared.execute(trx, entries(2, '/rolled-back-'));
        expect(await trx.selectFrom('audit_log').select('id').where('path', 'like', '/rolled-back-%').orderBy('id').execute()).toEqual(
          inserted.map(({ id }) => ({ id })),
        );
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(await t.db.selectFrom('audit_log').select('id').where('path', 'like', '/rolled-back-%').execute()).toEqual([]);

    const committed = await lockedTransaction(t.db, ['test:prepared-rows'], (trx) => prepared.execute(trx, entries(3, '/locked-')));
    expect(await t.db.selectFrom('audit_log').select('id').where('path', 'like', '/locked-%').orderBy('id').execute()).toEqual(committed.map(({ id }) => ({ id })));
  });

  it('refuses a builder that inlines a value, turns it into text or leaves it out', async () => {
    const build = (row: (entry: Entry) => { path: string | RawBuilder<string>; status: number }) =>
      prepareRowsQuery(ENTRY_FIELDS, 4, (db: Db, rows: Entry[]) =>
        db.insertInto('audit_log').values(rows.map((entry) => ({ at: AT, key_id: entry.keyId, method: 'POST', ip: '::1', duration_ms: entry.durationMs, ...row(entry) }))),
      );
    const inlined = build((entry) => ({ path: sql.lit(entry.path), status: entry.status }));
    await expect(inlined.execute(t.db, entries(2))).rejects.toThrow(/row 0 field path was turned into text/);
    const textual = build((entry) => ({ path: `/x${entry.path}`, status: entry.status }));
    await expect(textual.execute(t.db, entries(2))).rejects.toThrow(/row 0 field path was turned into text/);
    const onlyFirst = prepareRowsQuery(ENTRY_FIELDS, 4, (db: Db, rows: Entry[]) => insertEntriesQuery(db, rows.slice(0, 1)));
    await expect(onlyFirst.execute(t.db, entries(2))).rejects.toThrow(/row 1 field path is not a bound parameter/);
    const constant = build((entry) => ({ path: entry.path, status: 200 }));
    await expect(constant.execute(t.db, entries(2))).rejects.toThrow(/row 0 field status is not a bound parameter/);
    // A row's fields are all named, or the type checker refuses.
    // @ts-expect-error durationMs is not among the fields
    expect(() => prepareRowsQuery({ path: true, status: true, keyId: true }, 4, insertEntriesQuery)).not.toThrow();
  });

  it('refuses a statement whose parameters for maxRows rows would exceed the engines’ limit, on its first compile', async () => {
    // Seven parameters a row: 4681 rows take 32767.
    const { prepared: tooMany, builds } = preparedEntries(4681);
    await expect(tooMany.execute(t.db, entries(2))).rejects.toThrow(/4681 rows would take up to 32767 parameters, over the limit of 32766/);
    expect(builds).toEqual([2]);
    const { prepared: fits } = preparedEntries(4680);
    expect(await fits.execute(t.db, entries(2))).toHaveLength(2);
  });
});

describe('prepared queries on an in-memory SQLite database', () => {
  it('read without a reading connection of their own, seeing every committed write', async () => {
    const handle = openDatabase('sqlite::memory:');
    try {
      await migrateToLatest(handle);
      const inserted = await handle.db.transaction().execute((trx) => insertEntry.executeTakeFirst(trx, '/memory', 296));
      expect(await preparedAuditRows.execute(handle.db, 296, 'PUT')).toEqual([{ id: inserted?.id, method: 'PUT', path: '/memory', status: 296 }]);
    } finally {
      await handle.destroy();
    }
  });
});

describe('prepared queries on the PostgreSQL server', () => {
  const t = useTestApp('postgres');

  it('run as named statements, prepared once per connection; other queries stay unnamed', async () => {
    const preparedSql = auditRows(t.db, 0, '').compile().sql;
    // A shape run nowhere else: the files of one worker share the process, and with it the names given to reads run often.
    const otherSql = t.db.selectFrom('settings').select('value').where('key', '=', 'timezone').where('value', 'like', '%/%').compile().sql;
    const statements = await t.db.transaction().execute(async (trx) => {
      await preparedAuditRows.execute(trx, 200, 'GET');
      await preparedAuditRows.execute(trx, 400, 'POST');
      await trx.selectFrom('settings').select('value').where('key', '=', 'timezone').where('value', 'like', '%/%').execute();
      const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
      return rows;
    });
    expect(statements.filter((s) => s.statement === preparedSql)).toEqual([{ name: expect.stringMatching(/^prepared_\d+$/) as string, statement: preparedSql }]);
    expect(statements.filter((s) => s.statement === otherSql)).toEqual([]);
  });

  it('name a read of any other shape once it has run often, never a write', async () => {
    const read = (db: Db) => db.selectFrom('settings').select(['key', 'value']).where('key', '=', 'currency').where('updated_at', 'is not', null);
    const write = (db: Db) => db.updateTable('settings').set({ value: 'EUR' }).where('key', '=', 'currency').where('value', '=', 'EUR');
    const namesOf = async (db: Db, statement: string) =>
      (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db)).rows.filter((s) => s.statement === statement).map((s) => s.name);
    const [readSql, writeSql] = [read(t.db).compile().sql, write(t.db).compile().sql];
    await t.db.transaction().execute(async (trx) => {
      for (let run = 1; run < RUNS_BEFORE_NAMING; run++) {
        await read(trx).execute();
        await write(trx).execute();
      }
      expect(await namesOf(trx, readSql)).toEqual([]);
      const before = await read(trx).execute();
      expect(await namesOf(trx, readSql)).toEqual([expect.stringMatching(/^prepared_\d+$/)]);
      expect(await read(trx).execute()).toEqual(before);
      await write(trx).execute();
      expect(await namesOf(trx, writeSql)).toEqual([]);
    });
  });

  it('run multi-row inserts as a named statement per number of rows up to maxRows, longer ones unnamed', async () => {
    const { prepared } = preparedEntries(3);
    const sqlOf = (count: number) => insertEntriesQuery(t.db, entries(count)).compile().sql;
    const statements = await t.db.transaction().execute(async (trx) => {
      for (const count of [2, 3, 2, 4]) await prepared.execute(trx, entries(count));
      const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
      return rows;
    });
    const named = (count: number) => statements.filter((s) => s.statement === sqlOf(count)).map((s) => s.name);
    expect(named(2)).toEqual([expect.stringMatching(/^prepared_\d+$/)]);
    expect(named(3)).toEqual([expect.stringMatching(/^prepared_\d+$/)]);
    expect(named(2)).not.toEqual(named(3));
    expect(named(4)).toEqual([]);
  });
});
