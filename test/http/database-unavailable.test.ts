import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/core/app.js';
import { isDatabaseUnavailable } from '../../src/db/database.js';
import { POSTGRES_ADMIN_URL } from '../databases.js';
import { buildTestApp, createTestDatabase, type TestDatabase } from '../helper.js';

/** A TCP proxy in front of PostgreSQL that the test can cut and restore, like a database outage. */
class Outage {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async up(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
  }

  async down(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('PostgreSQL outage', () => {
  let database: TestDatabase;
  let outage: Outage;
  let app: App;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const direct = new URL(database.url);
    outage = new Outage({ host: direct.hostname, port: Number(direct.port || 5432) });
    await outage.up();
    const proxied = new URL(database.url);
    proxied.port = String(outage.port);
    app = await buildTestApp(proxied.toString());
    const { createKey } = await import('../../src/modules/api-keys/service.js');
    key = (await createKey(app.db, { name: 'outage' })).key;
  });
  afterAll(async () => {
    await app.close();
    await outage.down();
    await database.drop();
  });

  it('answers 503 service_not_available while the database is away and recovers by itself', async () => {
    const status = () => app.inject({ url: '/booking-api/v1/status', headers: { 'x-api-key': key } });
    expect((await status()).statusCode).toBe(200);

    await outage.down();
    const during = await status();
    expect(during.statusCode).toBe(503);
    expect(during.json()).toEqual({ status: 'error', error: { code: 'service_not_available', message: expect.any(String) } });
    expect(during.headers['retry-after']).toBe('2');
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['retry-after']).toBe('2');
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);

    await outage.up();
    expect((await status()).statusCode).toBe(200);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});

describe('PostgreSQL refusing connections to the database', () => {
  let database: TestDatabase;
  let app: App;
  let key: string;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    app = await buildTestApp(database.url);
    const { createKey } = await import('../../src/modules/api-keys/service.js');
    key = (await createKey(app.db, { name: 'refused' })).key;
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it('answers 503 service_not_available, in each error style, while the database takes no connections', async () => {
    const name = new URL(database.url).pathname.slice(1);
    const get = (url: string) => app.inject({ url: `/booking-api/v1${url}`, headers: { 'x-api-key': key } });
    expect((await get('/status')).statusCode).toBe(200);

    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    try {
      await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
      for (let attempt = 0; attempt < 3; attempt++) {
        const during = await get('/status');
        expect(during.statusCode, during.body).toBe(503);
        expect(during.json().error.code).toBe('service_not_available');
        expect(during.headers['retry-after']).toBe('2');
      }
      const payments = await get('/payments');
      expect(payments.statusCode, payments.body).toBe(503);
      expect(payments.json()).toMatchObject({ success: false });
    } finally {
      await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    }
    expect((await get('/status')).statusCode).toBe(200);
  });

  it('still counts a query fault of the same SQLSTATE (55000) as a fault, not as the database away', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('CREATE TEMPORARY SEQUENCE never_used');
      const fault: unknown = await client.query("SELECT currval('never_used')").catch((error: unknown) => error);
      expect(fault).toMatchObject({ code: '55000' });
      expect(isDatabaseUnavailable(fault)).toBe(false);
    } finally {
      await client.end();
    }
  });
});
