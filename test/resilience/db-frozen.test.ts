/**
 * A PostgreSQL server that stops answering (stopped with SIGSTOP, cut off by the network, its disk
 * stuck) cannot enforce its own statement_timeout: the client's deadline answers the request 503
 * within its bound, sends no COMMIT after it, and /readyz answers within a second.
 */
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockedTransaction } from '../../src/db/transactions.js';
import { buildTestApp, createTestDatabase, type TestDatabase } from '../helper.js';
import { ANSWERS_WITHIN_MS, within } from './waits.js';

const ROOT = '/booking-api/v1';

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

  it('answers requests that wait for a connection while it is frozen in 503 within their bound, the wait included', async () => {
    const app = await buildTestApp(proxiedUrl, { DB_REQUEST_TIMEOUT_MS: '500' }, {
      beforeReady: (app) =>
        app.get(`${ROOT}/test-frozen-read`, { config: { permission: 'public' } }, async () => {
          await app.db.selectFrom('settings').select('key').execute();
          return { read: true };
        }),
    });
    try {
      proxy.freeze();
      let answers;
      try {
        // More requests than the pool has connections: the rest wait for one, then for a new one to be made.
        const requests = Array.from({ length: 30 }, () => app.inject({ url: `${ROOT}/test-frozen-read` }));
        answers = await within(ANSWERS_WITHIN_MS, Promise.all(requests));
      } finally {
        proxy.thaw();
      }
      expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 503));
      expect((await app.inject({ url: `${ROOT}/test-frozen-read` })).statusCode).toBe(200);
    } finally {
      await app.close();
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
