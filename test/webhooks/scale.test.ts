/**
 * Scale-out on PostgreSQL: four instances (apps with their own connection pools and job runners)
 * on one database take 1,000 concurrent booking changes, while their runners deliver and a
 * reader walks GET /events across all four. The receiver gets every event once; the reader sees
 * every event exactly once and misses none, though ids are handed out before commit order is known.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/core/app.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { addAgent, API, newSite } from '../bookings/setup.js';
import { buildTestApp, useTestApp } from '../helper.js';
import { feedSettled } from '../events/settle.js';
import { startReceiver, type Receiver } from './receiver.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
const AGENTS = 10;
const CREATES = 200;
const UPDATES = 800;
const IN_FLIGHT = 64;

describe('four instances on one PostgreSQL database', () => {
  const t = useTestApp('postgres', ENV);
  const instances: App[] = [];
  let receiver: Receiver;
  let key: string;

  beforeAll(async () => {
    instances.push(t.app);
    for (let i = 1; i < 4; i++) instances.push(await buildTestApp(t.databaseUrl, ENV));
    receiver = await startReceiver();
    key = (await createKey(t.db, { name: 'scale', perMinute: 1_000_000, perHour: 1_000_000 })).key;
  });
  afterAll(async () => {
    await Promise.all(instances.slice(1).map((app) => app.close()));
    await receiver.close();
  });

  const call = (i: number, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    instances[i % 4]!.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });

  /** Runs `count` requests with IN_FLIGHT at a time, spread over the instances. */
  async function concurrently(count: number, request: (i: number) => Promise<{ statusCode: number; body: string }>): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < count; i = next++) {
          const res = await request(i);
          expect(res.statusCode, res.body).toBeLessThan(300);
        }
      }),
    );
  }

  it('delivers every event once, and a reader walking the feed across instances sees each exactly once', async () => {
    const site = await newSite(t.db);
    const agents = [site.agentId];
    for (let i = 1; i < AGENTS; i++) agents.push(await addAgent(t.db, site));
    expect((await call(0, 'POST', '/webhooks', { url: receiver.url })).statusCode).toBe(201);

    let writing = true;
    // Every instance's runner works the whole time, on its own timer as in production: dispatching
    // and delivering compete across them.
    for (const app of instances) app.jobs.start(20);
    const seen: number[] = [];
    let after: number | undefined;
    let turn = 0;
    /** One page of the feed from the reader's cursor, from the next instance in turn; whether more followed. */
    const readPage = async (): Promise<boolean> => {
      const res = await call(turn++, 'GET', `/events?limit=200${after === undefined ? '' : `&after=${after}`}`);
      const page = res.json<{ data: { id: number }[]; has_more: boolean; next_after: number | null }>();
      seen.push(...page.data.map((e) => e.id));
      after = page.next_after ?? undefined;
      return page.has_more;
    };
    const reader = (async () => {
      while (writing) await readPage();
    })();

    const bookings: number[] = [];
    await concurrently(CREATES, async (i) => {
      const res = await call(i, 'POST', '/bookings', {
        service_id: site.serviceId,
        agent_id: agents[i % AGENTS],
        // Each agent's own slots: Monday 7 to Friday 11 January 2030, from 09:00.
        start_date: `2030-01-${String(7 + (Math.floor(i / AGENTS) % 5)).padStart(2, '0')}`,
        start_time: `${String(9 + Math.floor(i / (AGENTS * 5))).padStart(2, '0')}:00`,
        customer_id: site.customerId,
        send_confirmation: false,
      });
      if (res.statusCode === 201) bookings.push(res.json<{ data: { id: number } }>().data.id);
      return res;
    });
    await concurrently(UPDATES, (i) => call(i, 'PUT', `/bookings/${bookings[i % CREATES]}`, { notes: `change ${i}` }));
    writing = false;
    await reader;
    await Promise.all(instances.map((app) => app.jobs.stop()));
    // What the last rounds left: every instance once more, once the feed shows every event (other
    // test files' transactions on the server may hold the last ones back); the reader reads to its end.
    await feedSettled(t.db);
    for (const app of instances) await app.jobs.runOnce();
    while (await readPage());

    const events = (await t.db.selectFrom('events').select('id').execute()).map((e) => e.id);
    expect(events).toHaveLength(CREATES + UPDATES);
    expect(seen).toHaveLength(events.length);
    expect(new Set(seen)).toEqual(new Set(events));
    const delivered = receiver.received.map((r) => Number(r.headers['webhook-id']!.slice('evt_'.length)));
    expect(delivered).toHaveLength(events.length);
    expect(new Set(delivered)).toEqual(new Set(events));
  }, 120_000);
});
