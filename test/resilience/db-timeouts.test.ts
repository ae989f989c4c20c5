/**
 * Every wait on the database is bounded, per kind of work (DB_REQUEST_TIMEOUT_MS,
 * DB_BACKGROUND_TIMEOUT_MS, DB_MIGRATION_TIMEOUT_MS): a request that waits past its bound for a
 * lock, or for a server that does not answer at all, answers 503 with Retry-After and leaves
 * nothing committed (a server that stops answering: db-frozen.test.ts).
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import type { App } from '../../src/core/app.js';
import { isDatabaseUnavailable, openDatabase, type Db, type Dialect } from '../../src/db/database.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { buildTestApp, createTestDatabase, DIALECTS, testConfig, type TestDatabase } from '../helper.js';
import { ANSWERS_WITHIN_MS, within } from './waits.js';

const CUSTOMERS = '/booking-api/v1/customers';
/** Another connection holding a lock that every write of the test's table needs, until released. */
interface HeldLock {
  release(): Promise<void>;
}

async function holdWriteLock(dialect: Dialect, url: string, table: string): Promise<HeldLock> {
  if (dialect === 'sqlite') {
    const other = new SQLite(url.slice('sqlite:'.length));
    other.exec('begin immediate');
    return {
      release: async () => {
        other.exec('rollback');
        other.close();
      },
    };
  }
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  await other.query('begin');
  await other.query(`lock table ${table} in exclusive mode`);
  return {
    release: async () => {
      await other.query('rollback');
      await other.end();
    },
  };
}

describe('database timeouts: configuration', () => {
  it('reads each kind of work its own bound, with defaults, and refuses a bound that is no positive whole number of milliseconds', () => {
    expect(testConfig('sqlite:x.db').databaseTimeouts).toEqual({ requests: 5_000, background: 10_000, migrations: 600_000 });
    expect(testConfig('sqlite:x.db', { DB_REQUEST_TIMEOUT_MS: '250', DB_BACKGROUND_TIMEOUT_MS: '7000', DB_MIGRATION_TIMEOUT_MS: '90000' }).databaseTimeouts).toEqual({
      requests: 250,
      background: 7_000,
      migrations: 90_000,
    });
    const refused: [string, string][] = [
      ['DB_REQUEST_TIMEOUT_MS', '0'],
      ['DB_BACKGROUND_TIMEOUT_MS', '1.5'],
      ['DB_MIGRATION_TIMEOUT_MS', '3000000000'],
    ];
    for (const [name, value] of refused) {
      expect(() => testConfig('sqlite:x.db', { [name]: value })).toThrow(ConfigError);
      expect(() => testConfig('sqlite:x.db', { [name]: value })).toThrow(new RegExp(`^${name}: `));
    }
  });
});

describe.each(DIALECTS)('database timeouts: waiting for a lock (%s)', (dialect) => {
  let database: TestDatabase;
  let app: App;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    app = await buildTestApp(database.url, { DB_REQUEST_TIMEOUT_MS: '300' });
    key = (await createKey(app.db, { name: 'timeouts' })).key;
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  const create = (email: string) =>
    app.inject({ method: 'POST', url: CUSTOMERS, headers: { 'x-api-key': key }, payload: { first_name: 'Ada', last_name: 'Lovelace', email } });

  it('answers 503 with Retry-After once the lock outlasts DB_REQUEST_TIMEOUT_MS, and commits nothing', async () => {
    const email = `locked.${dialect}@example.test`;
    const lock = await holdWriteLock(dialect, database.url, 'customers');
    let answer;
    try {
      answer = await within(ANSWERS_WITHIN_MS, create(email));
    } finally {
      await lock.release();
    }
    expect(answer.statusCode, answer.body).toBe(503);
    expect(answer.json().error.code).toBe('service_not_available');
    expect(answer.headers['retry-after']).toBe('2');

    expect(await app.db.selectFrom('customers').select('id').where('email', '=', email).execute()).toEqual([]);
    // The lock gone, the same request goes through.
    expect((await create(email)).statusCode).toBe(201);
  });

  it('a background job and a migration go on waiting for a lock after a request has given up on it', async () => {
    const handle = openDatabase(database.url, { timeouts: { requests: 200, background: 60_000, migrations: 60_000 } });
    try {
      const write = (db: Db, key: string) => db.insertInto('settings').values({ key, value: '1', updated_at: new Date().toISOString() }).execute();
      for (const [kind, db] of [
        ['background', handle.backgroundDb],
        ['migration', handle.migrationDb],
      ] as const) {
        const lock = await holdWriteLock(dialect, database.url, 'settings');
        let patientSettled = false;
        const patient = write(db, `test_${kind}`).finally(() => {
          patientSettled = true;
        });
        try {
          const refused: unknown = await within(ANSWERS_WITHIN_MS, write(handle.db, `test_request_${kind}`).then(() => 'written', (error: unknown) => error));
          expect(isDatabaseUnavailable(refused), String(refused)).toBe(true);
          expect(patientSettled).toBe(false);
        } finally {
          await lock.release();
        }
        await patient;
        const keys = await handle.db.selectFrom('settings').select('key').where('key', 'like', 'test_%').execute();
        expect(keys.map((row) => row.key)).toContain(`test_${kind}`);
        expect(keys.map((row) => row.key)).not.toContain(`test_request_${kind}`);
      }
    } finally {
      await handle.destroy();
    }
  });
});
