import { describe, expect, it } from 'vitest';
import { lockedTransaction } from '../../src/db/transactions.js';
import type { Db } from '../../src/db/database.js';
import { useTestApp } from '../helper.js';

// SQLite runs one writer at a time, so its transactions cannot deadlock; PostgreSQL's can, over row locks.
describe('lockedTransaction (postgres)', () => {
  const t = useTestApp('postgres');

  it('runs a transaction again that PostgreSQL ended to break a deadlock, so both commit', async () => {
    const at = new Date().toISOString();
    await t.db.insertInto('settings').values([{ key: 'test_row_a', value: '0', updated_at: at }, { key: 'test_row_b', value: '0', updated_at: at }]).execute();
    // Each holds its first row until the other holds its own: then each wants the other's.
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothHoldOne = new Promise<void>((resolve) => (release = resolve));
    const meet = async () => {
      arrived += 1;
      if (arrived === 2) release();
      await bothHoldOne;
    };
    const runs = { ab: 0, ba: 0 };
    const write = (trx: Db, key: string) => trx.updateTable('settings').set({ value: String(Date.now()) }).where('key', '=', key).execute();
    const crossing = (name: 'ab' | 'ba', first: string, second: string) =>
      lockedTransaction(t.db, [], async (trx) => {
        runs[name] += 1;
        await write(trx, first);
        if (runs[name] === 1) await meet();
        await write(trx, second);
      });

    await Promise.all([crossing('ab', 'test_row_a', 'test_row_b'), crossing('ba', 'test_row_b', 'test_row_a')]);
    // One of the two ran twice: PostgreSQL chose it to end the deadlock.
    expect(runs.ab + runs.ba).toBe(3);
  });
});
