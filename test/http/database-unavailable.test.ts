import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
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
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);

    await outage.up();
    expect((await status()).statusCode).toBe(200);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});
