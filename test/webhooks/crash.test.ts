/**
 * A server SIGKILLed while it delivers: its claimed deliveries lapse and another process takes
 * them over, the rest are due as they were; every event reaches the endpoint. The real server
 * (`node --import tsx src/server.ts`) on a SQLite file, a real receiver on this machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey } from '../../src/modules/api-keys/service.js';
import { WebhookSecrets } from '../../src/modules/webhooks/index.js';
import { loadManageLinkSecret } from '../../src/modules/manage-links/index.js';
import { API, MONDAY, newSite, TUESDAY } from '../bookings/setup.js';
import { buildTestApp, createTestDatabase, type TestDatabase } from '../helper.js';

const SERVER = path.join(import.meta.dirname, '..', '..', 'src', 'server.ts');
const SECRET = 'crash-test-secret-of-at-least-forty-three-characters';
const BOOKINGS = 15;

function startServer(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', JOB_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '100', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', MANAGE_LINK_SECRET: SECRET, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.resume();
  return child;
}

describe('webhook deliveries through a crash', () => {
  let database: TestDatabase;
  const received: { id: string; body: string; headers: Record<string, string> }[] = [];
  let onRequest: (() => void) | undefined;
  let receiver: http.Server;
  let url: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    receiver = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const hook = onRequest;
        onRequest = undefined;
        if (hook) {
          // The first delivery is never answered: its sender dies holding it.
          hook();
          return;
        }
        received.push({ id: String(request.headers['webhook-id']), body: Buffer.concat(chunks).toString(), headers: request.headers as Record<string, string> });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await database.drop();
  });

  it('SIGKILL with deliveries pending and one in flight: after a restart every event is delivered, none lost', async () => {
    // Bookings made (and their events written) by an app on the same file, before any server runs.
    const app = await buildTestApp(database.url, { MANAGE_LINK_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    let secret: string;
    try {
      const key = await createKey(app.db, { name: 'crash' });
      const headers = { 'x-api-key': key.key };
      const endpoint = await app.inject({ method: 'POST', url: `${API}/webhooks`, headers, payload: { url } });
      expect(endpoint.statusCode).toBe(201);
      secret = endpoint.json<{ data: { secret: string } }>().data.secret;
      const site = await newSite(app.db);
      for (let i = 0; i < BOOKINGS; i++) {
        const res = await app.inject({
          method: 'POST',
          url: `${API}/bookings`,
          headers,
          payload: { service_id: site.serviceId, agent_id: site.agentId, start_date: i < 8 ? MONDAY : TUESDAY, start_time: `${String(9 + (i % 8)).padStart(2, '0')}:00`, customer_id: site.customerId, send_confirmation: false },
        });
        expect(res.statusCode, res.body).toBe(201);
      }
    } finally {
      await app.close();
    }
    expect(secret).toEqual(new WebhookSecrets(loadManageLinkSecret({ value: SECRET })).secret(1, 1));

    const first = startServer({ DATABASE_URL: database.url });
    const killed = once(first, 'exit');
    onRequest = () => first.kill('SIGKILL');
    const [, signal] = (await killed) as [number | null, NodeJS.Signals | null];
    expect(signal).toBe('SIGKILL');

    const second = startServer({ DATABASE_URL: database.url });
    try {
      await vi.waitFor(() => expect(new Set(received.map((r) => r.id)).size).toBe(BOOKINGS), { timeout: 30_000, interval: 100 });
    } finally {
      second.kill('SIGTERM');
      await once(second, 'exit');
    }
    const verifier = new Webhook(secret);
    for (const request of received) expect(() => verifier.verify(request.body, request.headers)).not.toThrow();
    const types = received.map((r) => (JSON.parse(r.body) as { type: string }).type);
    expect(new Set(types)).toEqual(new Set(['booking.created']));
    // At least once: what the dead process had in flight (a batch of ten, sent at once) may come
    // again, under the same webhook-id.
    expect(received.length - BOOKINGS).toBeLessThanOrEqual(10);
  }, 60_000);
});
