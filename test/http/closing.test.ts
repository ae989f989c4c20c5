/**
 * Closing a listening app with clients in every state: a request in flight finishes; one still
 * arriving is refused with 503 in the contract's envelope at once; an idle kept-alive connection
 * is closed; a request sent behind the one in flight is refused in the envelope too; and the
 * close completes. Nothing here waits on a timeout: the request timeout is far longer than the test.
 */
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/core/app.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { buildTestApp, createTestDatabase, type TestDatabase } from '../helper.js';
import { open } from './raw-socket.js';


/** The answers in what a connection received, each as its head and body. */
function answers(text: string): { head: string; body: string }[] {
  return text
    .split(/(?=HTTP\/1\.1 )/)
    .map((answer) => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      return { head, body };
    });
}

const SHUTTING_DOWN = { status: 'error', error: { code: 'service_not_available', message: 'The server is shutting down; send the request again' } };

describe('closing with clients connected', () => {
  let database: TestDatabase;
  let app: App;
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered: () => void = () => {};
  const slowEntered = new Promise<void>((resolve) => (entered = resolve));

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildTestApp(database.url, { REQUEST_TIMEOUT_MS: '600000', HEADERS_TIMEOUT_MS: '600000' }, {
      beforeReady: (instance) => {
        instance.get('/test-slow', { schema: { hide: true } }, async () => {
          entered();
          await released;
          return { finished: true };
        });
      },
    });
  });
  afterAll(async () => {
    await database.drop();
  });

  it('finishes the request in flight, refuses the rest in the envelope, and closes', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;

    const inFlight = open(port);
    inFlight.socket.write('GET /test-slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await slowEntered;

    const { key } = await createKey(app.db, { name: 'closing' });
    const arriving = open(port);
    const arrivingSeen = once(app.server, 'request') as Promise<[IncomingMessage]>;
    arriving.socket.write(
      `POST /booking-api/v1/customers HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"first`,
    );
    await arrivingSeen;

    const idle = open(port);
    idle.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(idle.socket, 'data');

    const closed = app.close();

    const refused = answers(await arriving.closed);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.head).toMatch(/^HTTP\/1.1 503 /);
    expect(refused[0]?.head).toMatch(/\r\nRetry-After: 2\r\n/i);
    expect(JSON.parse(refused[0]?.body ?? '')).toEqual(SHUTTING_DOWN);

    expect(answers(await idle.closed)).toHaveLength(1);

    // Sent while the first is still being answered: refused, not run.
    const behindSeen = once(app.server, 'request');
    inFlight.socket.write('GET /booking-api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n');
    await behindSeen;
    release();

    const [first, second, ...rest] = answers(await inFlight.closed);
    expect(first?.head).toMatch(/^HTTP\/1.1 200 /);
    expect(JSON.parse(first?.body ?? '')).toEqual({ finished: true });
    expect(second?.head).toMatch(/^HTTP\/1.1 503 /);
    expect(second?.head).toMatch(/\r\nretry-after: 2\r\n/i);
    expect(JSON.parse(second?.body ?? '')).toEqual(SHUTTING_DOWN);
    expect(rest).toEqual([]);
    await closed;
  });
});
