/**
 * One of several processes that race to write bookings on one database (concurrency.test.ts).
 * It builds the whole service on DATABASE_URL and says "ready"; then, for every line of JSON
 * requests on stdin, it sends all of them at once and prints their statuses and error codes as
 * one JSON line. It ends when stdin closes.
 */
import readline from 'node:readline';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

const app = await buildApp(loadConfig({ DATABASE_URL: process.env.DATABASE_URL, MANAGE_LINK_SECRET: process.env.MANAGE_LINK_SECRET, NODE_ENV: 'test', LOG_LEVEL: 'silent' }), { logger: false });
await app.ready();
process.stdout.write('ready\n');

for await (const line of readline.createInterface({ input: process.stdin })) {
  const { apiKey, requests } = JSON.parse(line) as { apiKey: string; requests: { method: 'POST' | 'PUT' | 'DELETE'; url: string; payload?: object }[] };
  const outcomes = await Promise.all(
    requests.map(async ({ method, url, payload }) => {
      const res = await app.inject({ method, url: `/booking-api/v1${url}`, headers: { 'x-api-key': apiKey }, ...(payload ? { payload } : {}) });
      return { status: res.statusCode, code: res.json<{ error?: { code?: string } }>().error?.code };
    }),
  );
  process.stdout.write(`${JSON.stringify(outcomes)}\n`);
}
await app.close();
