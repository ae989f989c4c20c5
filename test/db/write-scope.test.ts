import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { lockedTransaction } from '../../src/db/transactions.js';
import { runInWriteScope, type WriteScope } from '../../src/db/write-scope.js';
import { DIALECTS, useTestApp } from '../helper.js';

const SRC = path.join(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : file.endsWith('.ts') ? [file] : [];
  });
}

describe.each(DIALECTS)('write scopes (%s)', (dialect) => {
  const t = useTestApp(dialect);
  let n = 0;

  const row = (name: string) => ({ key: `${name}:${++n}`, value: name, updated_at: new Date().toISOString() });
  const rows = async (name: string) =>
    (await t.db.selectFrom('settings').select('key').where('value', '=', name).execute()).length;

  /** A scope whose statement writes a `mark` row beside the work, or fails when told to. */
  function markingScope(mark: string, fail = false): WriteScope & { calls: number } {
    const scope = {
      calls: 0,
      beforeCommit: async (run: Parameters<NonNullable<WriteScope['beforeCommit']>>[0]) => {
        scope.calls++;
        await run(t.db.insertInto('settings').values(row(mark)).compile());
        if (fail) throw new Error('refused');
      },
    };
    return scope;
  }

  const WRITES: [string, (db: Db, name: string) => Promise<unknown>][] = [
    ['db.transaction()', (db, name) => db.transaction().execute(async (trx) => {
      await trx.insertInto('settings').values(row(name)).execute();
      await trx.insertInto('settings').values(row(name)).execute();
    })],
    ['lockedTransaction', (db, name) => lockedTransaction(db, ['test'], (trx) => trx.insertInto('settings').values(row(name)).execute())],
    ['a statement outside any transaction', (db, name) => db.insertInto('settings').values(row(name)).execute()],
    ['a statement on a held connection', (db, name) => db.connection().execute((c) => c.insertInto('settings').values(row(name)).execute())],
  ];

  it.each(WRITES)('%s commits the scope statement with the work, once', async (_, write) => {
    const name = `work-${n}`;
    const scope = markingScope(`${name}-mark`);
    await runInWriteScope(scope, () => write(t.db, name));
    expect(scope.calls).toBe(1);
    expect(await rows(`${name}-mark`)).toBe(1);
    expect(await rows(name)).toBeGreaterThan(0);
  });

  it.each(WRITES)('%s is rolled back when the scope statement fails', async (_, write) => {
    const name = `refused-${n}`;
    const scope = markingScope(`${name}-mark`, true);
    await expect(runInWriteScope(scope, () => write(t.db, name))).rejects.toThrow('refused');
    expect(scope.calls).toBe(1);
    expect(await rows(`${name}-mark`)).toBe(0);
    expect(await rows(name)).toBe(0);
    // The connection is usable (and out of any transaction) afterwards.
    await t.db.insertInto('settings').values(row(name)).execute();
    expect(await rows(name)).toBe(1);
  });

  it.each(WRITES)('%s runs nothing more outside a scope, or once the scope is closed', async (_, write) => {
    const scope = markingScope('closed-mark');
    scope.beforeCommit = undefined;
    await write(t.db, 'unscoped');
    await runInWriteScope(scope, () => write(t.db, 'closed'));
    expect(scope.calls).toBe(0);
    expect(await rows('unscoped')).toBeGreaterThan(0);
    expect(await rows('closed')).toBeGreaterThan(0);
    expect(await rows('closed-mark')).toBe(0);
  });

  it('reads, in a transaction or not, run nothing more', async () => {
    const scope = markingScope('read-mark');
    await runInWriteScope(scope, async () => {
      await t.db.selectFrom('settings').selectAll().execute();
      await sql`select 1`.execute(t.db);
      await t.db.transaction().execute((trx) => trx.selectFrom('settings').selectAll().execute());
      await lockedTransaction(t.db, ['test'], (trx) => trx.selectFrom('settings').selectAll().execute());
    });
    expect(scope.calls).toBe(0);
  });

  it('follows each scope through concurrent work, and none into work outside it', async () => {
    const scopes = Array.from({ length: 12 }, (_, i) => markingScope(`concurrent-${i}-mark`));
    await Promise.all([
      ...scopes.map((scope, i) => runInWriteScope(scope, () => WRITES[i % WRITES.length]?.[1](t.db, `concurrent-${i}`))),
      ...Array.from({ length: 12 }, (_, i) => WRITES[i % WRITES.length]?.[1](t.db, 'concurrent-unscoped')),
    ]);
    for (const [i, scope] of scopes.entries()) {
      expect(scope.calls).toBe(1);
      expect(await rows(`concurrent-${i}-mark`)).toBe(1);
    }
  });
});

describe('every database write goes through the write scopes', () => {
  const files = sourceFiles(SRC).map((file) => ({ file: path.relative(SRC, file), text: fs.readFileSync(file, 'utf8') }));

  it('no source begins, commits or rolls back a transaction by hand: Kysely transactions reach the scoped driver', () => {
    const offenders = files.filter(({ text }) => /sql`\s*(begin|start transaction|commit|end|rollback|savepoint|release)\b/i.test(text));
    expect(offenders.map((f) => f.file)).toEqual([]);
  });

  it('the one Kysely instance per database is built in openDatabase, over the scoped dialects', () => {
    const builders = files.filter(({ text }) => /new Kysely\b/.test(text)).map((f) => f.file);
    expect(builders).toEqual([path.join('db', 'database.ts')]);
    const database = files.find((f) => f.file === path.join('db', 'database.ts'))?.text ?? '';
    expect(database.match(/new Kysely<Database>\(\{\s*dialect: withWriteScopes\(/g)).toHaveLength(2);
  });
});
