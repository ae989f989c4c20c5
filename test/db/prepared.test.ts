import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { prepareQuery } from '../../src/db/prepared.js';
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

    const committed = await lockedTransaction({ db: t.db, dialect }, ['test:prepared'], (trx) => insertEntry.executeTakeFirst(trx, '/locked', 298));
    expect((await preparedAuditRows.execute(t.db, 298, 'PUT')).map((r) => r.id)).toEqual([committed?.id]);
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

describe('prepared queries on the PostgreSQL server', () => {
  const t = useTestApp('postgres');

  it('run as named statements, prepared once per connection; other queries stay unnamed', async () => {
    const preparedSql = auditRows(t.db, 0, '').compile().sql;
    const otherSql = t.db.selectFrom('settings').select('value').where('key', '=', 'timezone').compile().sql;
    const statements = await t.db.transaction().execute(async (trx) => {
      await preparedAuditRows.execute(trx, 200, 'GET');
      await preparedAuditRows.execute(trx, 400, 'POST');
      await trx.selectFrom('settings').select('value').where('key', '=', 'timezone').execute();
      const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
      return rows;
    });
    expect(statements.filter((s) => s.statement === preparedSql)).toEqual([{ name: expect.stringMatching(/^prepared_\d+$/) as string, statement: preparedSql }]);
    expect(statements.filter((s) => s.statement === otherSql)).toEqual([]);
  });
});
