/**
 * SIGTERM to the real server (`node --import tsx src/server.ts`, SQLite) while a client trickles
 * a request body far slower than any timeout allows: the client is refused with 503 in the
 * contract's envelope, and the process exits 0 within the grace period, saying so in its log.
 * The request timeout is set far beyond the test, so only the shutdown itself can end the client.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { createTestDatabase, type TestDatabase } from '../helper.js';

const SERVER = path.join(import.meta.dirname, '..', '..', 'src', 'server.ts');
const SHUTDOWN_GRACE_MS = 8000;

interface LogLine {
  msg: string;
  [field: string]: unknown;
}

describe('shutdown with a slow client open', () => {
  let database: TestDatabase;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const handle = openDatabase(database.url);
    try {
      await migrateToLatest(handle);
      key = (await createKey(handle.db, { name: 'shutdown' })).key;
    } finally {
      await handle.destroy();
    }
  });
  afterAll(async () => {
    await database.drop();
  });

  it('refuses the slow client in the envelope and exits 0 within the grace period, saying so', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        PORT: '0',
        LOG_LEVEL: 'info',
        REQUEST_TIMEOUT_MS: '600000',
        HEADERS_TIMEOUT_MS: '600000',
        SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      let stdout = '';
      child.stderr.resume();
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
          if (match?.[1]) resolve(Number(match[1]));
        });
        void exited.then(() => reject(new Error('the server exited before listening')));
      });

      const socket = connect(port, '127.0.0.1');
      let received = '';
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('error', () => {});
      // The server's 100 Continue says it has the request; the body then comes a byte at a time.
      const headersIn = new Promise<void>((resolve) =>
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) resolve();
        }),
      );
      socket.write(
        `POST /booking-api/v1/customers HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n` +
          'Content-Length: 1000\r\nExpect: 100-continue\r\n\r\n',
      );
      await headersIn;
      socket.write('{"first_name": ');
      const trickle = setInterval(() => socket.writable && socket.write(' '), 200);

      child.kill('SIGTERM');
      const [code] = await exited;
      clearInterval(trickle);
      await closed;

      expect(code).toBe(0);
      const answer = received.slice('HTTP/1.1 100 Continue\r\n\r\n'.length);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1.1 503 /);
      expect(head).toMatch(/\r\nRetry-After: 2\r\n/i);
      expect(JSON.parse(body)).toEqual({ status: 'error', error: { code: 'service_not_available', message: 'The server is shutting down; send the request again' } });

      const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as LogLine);
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'closing: 0 requests in flight may finish, 1 still arriving refused' }));
      const last = lines.at(-1);
      expect(last).toMatchObject({ msg: 'shut down within the grace period', shutdownGraceMs: SHUTDOWN_GRACE_MS });
      expect(last?.ms).toBeLessThan(SHUTDOWN_GRACE_MS);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
