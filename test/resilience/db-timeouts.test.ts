/**
 * Every wait on the database is bounded, per kind of work (DB_REQUEST_TIMEOUT_MS,
 * DB_BACKGROUND_TIMEOUT_MS, DB_MIGRATION_TIMEOUT_MS): a request that waits past its bound for a
 * lock, or for a server that does not answer at all, answers 503 with Retry-After and leaves
 * nothing committed; /readyz answers within a second whatever the database does.
 */
import net from 'node:net';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import type { App } from '../../src/core/app.js';
import { isDatabaseUnavailable, openDatabase, type Db, type Dialect } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { lockedTransaction } from '../../src/db/transactions.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { buildTestApp, createTestDatabase, DIALECTS, testConfig, type TestDatabase } from '../helper.js';

const ROOT = '/booking-api/v1';
const CUSTOMERS = `${ROOT}/customers`;
/** A bound on waiting for an answer at all, far above the bounds configured here and below the ones they replace. */
const ANSWERS_WITHIN_MS = 4_000;

/** The promise's outcome, or a failure if it has none within `ms` (it may still settle later). */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

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

describe.each(DIALECTS)('database timeouts: a request waiting for a lock (%s)', (dialect) => {
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
});

describe.each(DIALECTS)('database timeouts: each kind of work waits its own bound (%s)', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('a background job and a migration go on waiting for a lock after a request has given up on it', async () => {
    const handle = openDatabase(database.url, { timeouts: { requests: 200, background: 60_000, migrations: 60_000 } });
    try {
      await migrateToLatest(handle);
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

/**
 * A TCP proxy in front of PostgreSQL that can freeze as a stopped server (SIGSTOP) does: the
 * connections stay open, new ones are accepted, and nothing passes either way until the thaw,
 * when what was held goes on, a client's close included.
 */
class FreezingProxy {
  port = 0;
  /** What clients sent while the proxy was frozen. */
  readonly sentWhileFrozen: Buffer[] = [];
  private frozen = false;
  private readonly held: (() => void)[] = [];
  private readonly upstreamClosed: Promise<void>[] = [];
  private server: net.Server | undefined;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      this.upstreamClosed.push(new Promise((resolve) => upstream.once('close', () => resolve())));
      const pass = (run: () => void) => (this.frozen ? this.held.push(run) : run());
      client.on('data', (chunk: Buffer) => {
        if (this.frozen) this.sentWhileFrozen.push(chunk);
        pass(() => upstream.write(chunk));
      });
      upstream.on('data', (chunk: Buffer) => pass(() => client.write(chunk)));
      client.on('close', () => pass(() => upstream.end()));
      upstream.on('close', () => pass(() => client.destroy()));
      client.on('error', () => client.destroy());
      upstream.on('error', () => upstream.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
  }

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    for (const run of this.held.splice(0)) run();
  }

  /** Resolves once the server has closed every connection whose client closed its end. */
  async sessionsEnded(): Promise<void> {
    await Promise.all(this.upstreamClosed);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('database timeouts: a PostgreSQL server that stops answering', () => {
  let database: TestDatabase;
  let proxy: FreezingProxy;
  let proxiedUrl: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const direct = new URL(database.url);
    proxy = new FreezingProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.start();
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    proxiedUrl = proxied.toString();
  });
  afterAll(async () => {
    proxy?.thaw();
    await proxy?.stop();
    await database?.drop();
  });

  it('answers a request whose transaction it froze in 503 with Retry-After within its bound, never sends COMMIT, and nothing commits after the thaw', async () => {
    // The server stops between two statements of a transaction: its INSERT is done, not committed.
    const app = await buildTestApp(proxiedUrl, { DB_REQUEST_TIMEOUT_MS: '500' }, {
      beforeReady: (app) =>
        app.post(`${ROOT}/test-frozen-write`, { config: { permission: 'public' } }, async () => {
          await lockedTransaction(app.db, ['agent:1'], async (trx) => {
            await trx.insertInto('settings').values({ key: 'test_frozen', value: '1', updated_at: new Date().toISOString() }).execute();
            proxy.freeze();
            await trx.selectFrom('settings').select('key').execute();
          });
          return { written: true };
        }),
    });
    let closed = false;
    try {
      let answer;
      try {
        answer = await within(ANSWERS_WITHIN_MS, app.inject({ method: 'POST', url: `${ROOT}/test-frozen-write` }));
      } finally {
        proxy.thaw();
      }
      expect(answer.statusCode, answer.body).toBe(503);
      expect(answer.json().error.code).toBe('service_not_available');
      expect(answer.headers['retry-after']).toBe('2');
      expect(proxy.sentWhileFrozen.length).toBeGreaterThan(0);
      expect(Buffer.concat(proxy.sentWhileFrozen).toString('latin1')).not.toMatch(/commit/i);

      // Once PostgreSQL has read all the client sent, up to its close, the transaction is gone.
      await app.close();
      closed = true;
      await proxy.sessionsEnded();
      const direct = new pg.Client({ connectionString: database.url });
      await direct.connect();
      try {
        expect((await direct.query("select key from settings where key = 'test_frozen'")).rows).toEqual([]);
      } finally {
        await direct.end();
      }
    } finally {
      if (!closed) await app.close();
    }
  });

  it('answers /readyz 503 with Retry-After within a second, however long requests may wait', async () => {
    const app = await buildTestApp(proxiedUrl, { DB_REQUEST_TIMEOUT_MS: '60000' });
    try {
      expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
      proxy.freeze();
      let ready;
      try {
        ready = await within(ANSWERS_WITHIN_MS, app.inject({ url: '/readyz' }));
      } finally {
        proxy.thaw();
      }
      expect(ready.statusCode).toBe(503);
      expect(ready.headers['retry-after']).toBe('2');
      expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
