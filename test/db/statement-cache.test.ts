import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withStatementCache } from '../../src/db/statement-cache.js';

// The statement cache is a SQLite matter only: PostgreSQL goes through pg, which prepares nothing here.
describe('SQLite prepared-statement cache', () => {
  it('reuses the statement of the same SQL and drops the least recently used beyond its size', () => {
    const cached = withStatementCache(new SQLite(':memory:'), 2);
    const one = cached.prepare('select 1');
    const two = cached.prepare('select 2');
    expect(cached.prepare('select 1')).toBe(one);
    cached.prepare('select 3'); // evicts "select 2", used longest ago
    expect(cached.prepare('select 1')).toBe(one);
    expect(cached.prepare('select 2')).not.toBe(two);
    cached.close();
  });

  it('a reused statement answers with the current schema and data', () => {
    const raw = new SQLite(':memory:');
    const cached = withStatementCache(raw);
    raw.exec('create table t (a integer)');
    cached.prepare('insert into t (a) values (?)').run([1]);
    expect(cached.prepare('select * from t').all([])).toEqual([{ a: 1 }]);
    raw.exec("alter table t add column b text not null default 'x'");
    cached.prepare('insert into t (a) values (?)').run([2]);
    expect(cached.prepare('select * from t').all([])).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: 'x' },
    ]);
    cached.close();
  });
});
