/**
 * npm run scale-demo [-- --db postgres|sqlite] [--instances 4] [--rounds 200] [--concurrency 50]
 *
 * Starts several API processes on one database (and one Redis), fires `concurrency` simultaneous
 * creates for the same agent and slot per round across all of them, then reports successes,
 * conflicts and the overlapping pairs an SQL query finds (the promise: 0), and whether a key
 * limited to N requests a minute got exactly N successes across the instances.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createKey } from '../src/modules/api-keys/service.js';
import { initialiseSettings } from '../src/modules/settings/service.js';
import { createTestDatabase } from '../test/databases.js';
import { BENCH_TIMEZONE, DAY_END_HOUR, DAY_START_HOUR, generateCatalog } from './generate.js';
import { overlappingPairs } from './overlaps.js';
import { startServer, stopServer, type RunningServer } from './processes.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    instances: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '50' },
    'rate-limit': { type: 'string', default: '100' },
  },
});
if (args.db !== 'sqlite' && args.db !== 'postgres') throw new Error('--db is sqlite or postgres');
const INSTANCES = Number(args.instances);
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);
const RATE_LIMIT = Number(args['rate-limit']);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROOT = '/booking-api/v1';

async function main(): Promise<void> {
  const database = await createTestDatabase(args.db as 'sqlite' | 'postgres');
  const handle = openDatabase(database.url);
  const servers: RunningServer[] = [];
  try {
    await migrateToLatest(handle);
    await initialiseSettings(handle.db, BENCH_TIMEZONE);
    const catalog = await generateCatalog(handle.db, { agents: 1, services: 1, teams: 1, customers: 10 }, () => {});
    const { key } = await createKey(handle.db, { name: 'scale-demo', perMinute: 1_000_000, perHour: 1_000_000 });
    for (let i = 0; i < INSTANCES; i++) {
      servers.push(await startServer(['dist/server.js'], { DATABASE_URL: database.url, REDIS_URL }));
    }
    process.stderr.write(`${INSTANCES} instances on ${args.db} + Redis; ${ROUNDS} rounds of ${CONCURRENCY} simultaneous creates\n`);

    const first = DateTime.now().setZone(BENCH_TIMEZONE).plus({ days: 2 }).startOf('day');
    const slotsPerDay = (DAY_END_HOUR - DAY_START_HOUR) * 2;
    const tally = { created: 0, conflicts: 0, other: 0, roundsWithOneWinner: 0 };
    const otherStatuses = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const start = first.plus({ days: Math.floor(round / slotsPerDay) }).set({ hour: DAY_START_HOUR }).plus({ minutes: (round % slotsPerDay) * 30 });
      const body = JSON.stringify({
        service_id: catalog.serviceIds[0],
        agent_id: catalog.agentIds[0],
        location_id: catalog.locationIds[0],
        customer_id: catalog.customerIds[round % catalog.customerIds.length],
        start_date: start.toFormat('yyyy-MM-dd'),
        start_time: start.toFormat('HH:mm'),
        send_confirmation: false,
      });
      const statuses = await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          fetch(`${servers[i % servers.length]!.url}${ROOT}/bookings`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': key },
            body,
          }).then((r) => r.status),
        ),
      );
      const created = statuses.filter((s) => s === 201).length;
      tally.created += created;
      tally.conflicts += statuses.filter((s) => s === 409).length;
      for (const s of statuses.filter((s) => s !== 201 && s !== 409)) otherStatuses.set(s, (otherStatuses.get(s) ?? 0) + 1);
      if (created === 1) tally.roundsWithOneWinner++;
      if ((round + 1) % 20 === 0) process.stderr.write(`  round ${round + 1}/${ROUNDS}: ${tally.created} created, ${tally.conflicts} conflicts\n`);
    }
    tally.other = [...otherStatuses.values()].reduce((a, b) => a + b, 0);
    const overlaps = await overlappingPairs(handle.db);
    const stored = await handle.db.selectFrom('bookings').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();

    // A key allowed RATE_LIMIT requests a minute, hammered through every instance at once.
    const limited = await createKey(handle.db, { name: 'limited', perMinute: RATE_LIMIT, perHour: 1_000_000 });
    const minuteLeft = 60 - new Date().getSeconds();
    if (minuteLeft < 10) await new Promise((resolve) => setTimeout(resolve, minuteLeft * 1000 + 200));
    const limitStatuses = await Promise.all(
      Array.from({ length: RATE_LIMIT * 3 }, (_, i) =>
        fetch(`${servers[i % servers.length]!.url}${ROOT}/status`, { headers: { 'x-api-key': limited.key } }).then((r) => r.status),
      ),
    );
    const limitSuccesses = limitStatuses.filter((s) => s === 200).length;

    const report = {
      dialect: args.db,
      instances: INSTANCES,
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      created: tally.created,
      conflicts: tally.conflicts,
      otherResponses: Object.fromEntries(otherStatuses),
      roundsWithExactlyOneBooking: tally.roundsWithOneWinner,
      bookingsStored: Number(stored.n),
      overlappingPairs: overlaps,
      rateLimit: { limitPerMinute: RATE_LIMIT, requests: limitStatuses.length, successes: limitSuccesses, held: limitSuccesses === RATE_LIMIT },
    };
    const lines = [
      `| ${args.db}, ${INSTANCES} instances | value |`,
      `|---|---:|`,
      `| rounds (${CONCURRENCY} simultaneous creates of one slot) | ${ROUNDS} |`,
      `| created (201) | ${tally.created} |`,
      `| conflicts (409 time_slot_unavailable) | ${tally.conflicts} |`,
      `| other answers | ${tally.other ? JSON.stringify(report.otherResponses) : 0} |`,
      `| rounds with exactly one booking | ${tally.roundsWithOneWinner} |`,
      `| overlapping pairs found by SQL | ${overlaps} |`,
      `| rate limit ${RATE_LIMIT}/min across instances: successes of ${limitStatuses.length} | ${limitSuccesses} (${report.rateLimit.held ? 'held' : 'NOT held'}) |`,
    ];
    process.stdout.write(`\n${lines.join('\n')}\n`);
    const outDir = path.join('bench', 'results');
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, `scale-${args.db}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
    process.exitCode = overlaps === 0 && tally.roundsWithOneWinner === ROUNDS && report.rateLimit.held ? 0 : 1;
  } finally {
    for (const server of servers) await stopServer(server);
    await handle.destroy();
    await database.drop();
  }
}

await main();
