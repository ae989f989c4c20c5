/**
 * npm run bench [-- --db postgres] [--duration 10] [--warmup 2] [--bookings 100000] [--cpu-prof] [--only <name part>]
 *
 * Loads a generated data set into a fresh database, starts the real service (dist/server.js) and a
 * bare Fastify route on this machine, drives both with autocannon and prints, per scenario,
 * requests/s, p50/p99 latency and the ratio to the bare route; writes bench/results/*.json and an
 * SVG chart. Nothing here asserts: the targets are printed as met or not.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createKey } from '../src/modules/api-keys/service.js';
import { initialiseSettings } from '../src/modules/settings/service.js';
import { createTestDatabase } from '../test/databases.js';
import { renderChart } from './chart.js';
import { startReceiver, startServer, stopServer } from './processes.js';
import {
  BENCH_TIMEZONE,
  freeSlots,
  generateCatalog,
  insertBookings,
  planBookings,
  progressBar,
  windowFirst,
  type Catalog,
} from './generate.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    // Seconds each scenario runs unmeasured first: the JIT's first compiles and the statements a
    // scenario prepares on first use belong to a service's first second, not to its steady state.
    warmup: { type: 'string', default: '2' },
    bookings: { type: 'string', default: '100000' },
    // Writes a V8 CPU profile of the service to bench/results/profiles/ when it stops.
    'cpu-prof': { type: 'boolean', default: false },
    // Only the scenarios whose name contains this text (and the bare route), e.g. --only availability
    only: { type: 'string' },
  },
});
if (args.db !== 'sqlite' && args.db !== 'postgres') throw new Error('--db is sqlite or postgres');
const DIALECT = args.db;
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const TOTAL_BOOKINGS = Number(args.bookings);
const FIRST_DAY = DateTime.now().setZone(BENCH_TIMEZONE).plus({ days: 1 }).toFormat('yyyy-MM-dd');
const ROOT = '/booking-api/v1';

interface Measured {
  name: string;
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  ratioToBare?: number;
}

async function measure(
  name: string,
  url: string,
  connections: number,
  request: () => { method?: 'GET' | 'POST'; path: string; body?: string },
  key?: string,
): Promise<Measured> {
  if (args.only !== undefined && !name.includes(args.only) && !name.startsWith('bare')) {
    return { name, connections, requestsPerSecond: NaN, p50: NaN, p99: NaN, non2xx: 0, errors: 0 };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) };
  const first = request();
  const result = await autocannon({
    url,
    connections,
    duration: DURATION,
    ...(WARMUP > 0 ? { warmup: { connections, duration: WARMUP } } : {}),
    requests: [
      {
        method: first.method ?? 'GET',
        path: first.path,
        headers,
        setupRequest: (req) => {
          const next = request();
          return { ...req, method: next.method ?? 'GET', path: next.path, body: next.body, headers };
        },
      },
    ],
  });
  const measured: Measured = {
    name,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
  process.stderr.write(`  ${name}: ${measured.requestsPerSecond} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms${measured.non2xx ? `, ${measured.non2xx} non-2xx` : ''}\n`);
  return measured;
}

function pick<T>(items: readonly T[], i: number): T {
  return items[i % items.length]!;
}

async function main(): Promise<void> {
  const started = Date.now();
  process.stderr.write(`bench on ${DIALECT}: ${TOTAL_BOOKINGS} bookings, ${DURATION}s per scenario\n`);
  const database = await createTestDatabase(DIALECT);
  const handle = openDatabase(database.url);
  const processes: ChildProcess[] = [];
  try {
    await migrateToLatest(handle);
    await initialiseSettings(handle.db, BENCH_TIMEZONE);
    const progress = progressBar();
    const generationStarted = Date.now();
    // Two teams of 10 agents, each offering its own 10 services: `any` chooses among 10 agents.
    const catalog: Catalog = await generateCatalog(handle.db, { agents: 20, services: 20, teams: 2, customers: 20_000 }, progress);
    // A first tenth of the bookings, measured alone, then the rest in the slots between them.
    // First every booking of the first 30 days plus a shuffled share of the rest, a tenth in all;
    // then the other nine tenths, all outside those 30 days.
    const plan = windowFirst(planBookings(catalog, { count: TOTAL_BOOKINGS, days: 365, seed: 1 }), 30);
    const firstLayer = Math.round(TOTAL_BOOKINGS / 10);
    await insertBookings(handle.db, catalog, plan.slice(0, firstLayer), { firstDay: FIRST_DAY, seed: 2 }, progress);
    const { key } = await createKey(handle.db, { name: 'bench', perMinute: 1_000_000, perHour: 1_000_000 });

    const bare = await startServer(['--import', 'tsx', 'bench/bare-server.ts'], {});
    processes.push(bare.child);
    const profileArgs = args['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', path.join('bench', 'results', 'profiles')] : [];
    const server = await startServer([...profileArgs, 'dist/server.js'], { DATABASE_URL: database.url, NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    processes.push(server.child);

    // A service of the first team, and that team's first agent.
    const firstTeam = catalog.teams[0]!;
    const serviceId = firstTeam.serviceIds[0]!;
    const availabilityFor = (agent: string | number) => () => {
      const from = DateTime.fromISO(FIRST_DAY).plus({ days: Math.floor(Math.random() * 300) });
      return {
        path: `${ROOT}/availability?service_id=${serviceId}&agent_id=${agent}&date_from=${from.toFormat('yyyy-MM-dd')}&date_to=${from.plus({ days: 29 }).toFormat('yyyy-MM-dd')}`,
      };
    };
    // The same 30 days (the first of the year) before and after the other 90% are loaded outside them.
    const firstWindow = () => ({
      path: `${ROOT}/availability?service_id=${serviceId}&agent_id=any&date_from=${FIRST_DAY}&date_to=${DateTime.fromISO(FIRST_DAY).plus({ days: 29 }).toFormat('yyyy-MM-dd')}`,
    });
    process.stderr.write(`availability with ${firstLayer} bookings in the table:\n`);
    const availabilitySmall = await measure('GET /availability first 30 days, any agent', server.url, 10, firstWindow, key);

    await insertBookings(handle.db, catalog, plan.slice(firstLayer), { firstDay: FIRST_DAY, seed: 3 }, progress);
    // As a running database would have them: planner statistics for the freshly loaded tables and,
    // on PostgreSQL, the visibility map autovacuum keeps (without it no index-only scan is chosen).
    await (DIALECT === 'postgres' ? sql`vacuum analyze` : sql`analyze`).execute(handle.db);
    const generationSeconds = (Date.now() - generationStarted) / 1000;
    const bookingIds = (await handle.db.selectFrom('bookings').select('id').execute()).map((r) => r.id);

    process.stderr.write(`scenarios with ${bookingIds.length} bookings:\n`);
    const results: Measured[] = [];
    const bareResult = await measure('bare Fastify route', bare.url, 10, () => ({ path: '/' }));
    results.push(bareResult);
    results.push(await measure('GET /bookings/{id}', server.url, 10, () => ({ path: `${ROOT}/bookings/${pick(bookingIds, Math.floor(Math.random() * bookingIds.length))}` }), key));
    results.push(
      await measure('GET /bookings filtered, deep page', server.url, 10, () => {
        const agent = pick(catalog.agentIds, Math.floor(Math.random() * 20));
        return { path: `${ROOT}/bookings?agent_id=${agent}&status=pending&sort=start_date&order=asc&per_page=20&page=${50 + Math.floor(Math.random() * 20)}` };
      }, key),
    );
    const availabilitySameWindow = await measure('GET /availability first 30 days, any agent', server.url, 10, firstWindow, key);
    results.push(await measure('GET /availability 30 days, one agent', server.url, 10, availabilityFor(firstTeam.agentIds[0]!), key));
    const availabilityLarge = await measure('GET /availability 30 days, any agent', server.url, 10, availabilityFor('any'), key);
    results.push(availabilityLarge);
    results.push(
      await measure('GET /customers?include=stats', server.url, 10, () => ({ path: `${ROOT}/customers?include=stats&per_page=20&page=${1 + Math.floor(Math.random() * 1000)}` }), key),
    );

    const nextSlot = freeSlots(catalog, FIRST_DAY);
    results.push(
      await measure('POST /bookings', server.url, 50, () => ({ method: 'POST', path: `${ROOT}/bookings`, body: JSON.stringify({ ...nextSlot(), send_confirmation: false }) }), key),
    );
    // The same writes with one endpoint subscribed to every event: each booking's event is turned
    // into a delivery and sent to a receiver on this machine while the writes go on.
    const receiver = await startReceiver();
    const now = new Date().toISOString();
    await handle.db
      .insertInto('webhook_endpoints')
      .values({ url: receiver.url, description: 'bench', event_types: null, status: 'enabled', disabled_reason: null, secret_version: 1, previous_secret_version: null, previous_secret_expires_at: null, failing_since: null, created_at: now, updated_at: now })
      .execute();
    results.push(
      await measure('POST /bookings, one webhook endpoint', server.url, 50, () => ({ method: 'POST', path: `${ROOT}/bookings`, body: JSON.stringify({ ...nextSlot(), send_confirmation: false }) }), key),
    );
    await handle.db.deleteFrom('webhook_endpoints').execute();
    await receiver.close();
    process.stderr.write(`webhook receiver: ${receiver.received()} deliveries received\n`);
    results.push(
      await measure('POST /bookings/bulk (50)', server.url, 10, () => ({
        method: 'POST',
        path: `${ROOT}/bookings/bulk`,
        body: JSON.stringify({ bookings: Array.from({ length: 50 }, nextSlot) }),
      }), key),
    );

    for (const r of results) r.ratioToBare = Math.round((r.requestsPerSecond / bareResult.requestsPerSecond) * 1000) / 1000;
    const byName = (name: string) => results.find((r) => r.name === name)!;
    const targets = [
      { target: 'availability 30 days, any of the agents, p99 < 25 ms', met: availabilityLarge.p99 < 25 },
      { target: `POST /bookings ≥ 1,500/s with p99 < 50 ms at 50 connections${DIALECT === 'sqlite' ? '' : ' (target set for SQLite)'}`, met: byName('POST /bookings').requestsPerSecond >= 1500 && byName('POST /bookings').p99 < 50 },
      { target: 'bulk of 50 p99 < 100 ms', met: byName('POST /bookings/bulk (50)').p99 < 100 },
      {
        target: 'every list p99 < 25 ms',
        met: [byName('GET /bookings filtered, deep page'), byName('GET /customers?include=stats')].every((r) => r.p99 < 25),
      },
    ];

    const lines = [
      `| scenario | conns | req/s | p50 ms | p99 ms | vs bare | non-2xx |`,
      `|---|---:|---:|---:|---:|---:|---:|`,
      ...results.map((r) => `| ${r.name} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.ratioToBare} | ${r.non2xx} |`),
      '',
      `| availability, any agent, the same 30 days | bookings in the table | p50 ms | p99 ms |`,
      `|---|---:|---:|---:|`,
      `| before the other 90% were loaded (outside these days) | ${firstLayer} | ${availabilitySmall.p50} | ${availabilitySmall.p99} |`,
      `| after | ${bookingIds.length} | ${availabilitySameWindow.p50} | ${availabilitySameWindow.p99} |`,
      '',
      ...targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.target}: ${t.met ? 'met' : 'NOT met'}`),
      '',
      `data generation: ${generationSeconds.toFixed(1)} s; whole run: ${((Date.now() - started) / 1000).toFixed(0)} s`,
    ];
    process.stdout.write(`\n${lines.join('\n')}\n`);

    const outDir = path.join('bench', 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const report = { dialect: DIALECT, bookings: bookingIds.length, durationSeconds: DURATION, generationSeconds, results, availability: { sameWindowBefore: availabilitySmall, sameWindowAfter: availabilitySameWindow, randomWindows: availabilityLarge }, targets };
    fs.writeFileSync(path.join(outDir, `${DIALECT}-${stamp}.json`), JSON.stringify(report, null, 2));
    fs.writeFileSync(path.join(outDir, `${DIALECT}-${stamp}.svg`), renderChart(`Booking service on ${DIALECT}, ${bookingIds.length} bookings`, results));
    process.stderr.write(`results: ${outDir}/${DIALECT}-${stamp}.{json,svg}\n`);
  } finally {
    // Waits for the exits: the service writes its CPU profile (--cpu-prof) as it stops.
    await Promise.all(processes.map((child) => stopServer({ child, url: '' })));
    await handle.destroy();
    await database.drop();
  }
}

await main();
