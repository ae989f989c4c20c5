/**
 * node --import tsx bench/wal-pages.ts [--bookings 100000] [--bulks 50]
 *
 * What a booking write costs SQLite, counted rather than timed: loads the bench's data set into a
 * fresh SQLite database, then sends bulks of 50 creates (the bench's POST /bookings/bulk bodies)
 * through the service in-process and counts, after each, the pages its COMMIT wrote to the
 * write-ahead log. Each such page is a 4 KB copy at the commit and again at the checkpoint; the
 * count does not depend on how busy the machine is. Prints the mean pages per bulk.
 */
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { DateTime } from 'luxon';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createKey } from '../src/modules/api-keys/service.js';
import { initialiseSettings } from '../src/modules/settings/service.js';
import { buildTestApp } from '../test/helper.js';
import { createTestDatabase } from '../test/databases.js';
import { BENCH_TIMEZONE, freeSlots, generateCatalog, insertBookings, planBookings, progressBar } from './generate.js';

const { values: args } = parseArgs({
  options: {
    bookings: { type: 'string', default: '100000' },
    bulks: { type: 'string', default: '50' },
  },
});
const FIRST_DAY = DateTime.now().setZone(BENCH_TIMEZONE).plus({ days: 1 }).toFormat('yyyy-MM-dd');
// The first bulks compile statements and warm caches; their pages are not counted.
const UNCOUNTED = 5;

const database = await createTestDatabase('sqlite');
try {
  const handle = openDatabase(database.url);
  await migrateToLatest(handle);
  await initialiseSettings(handle.db, BENCH_TIMEZONE);
  const progress = progressBar();
  const catalog = await generateCatalog(handle.db, { agents: 20, services: 20, teams: 2, customers: 20_000 }, progress);
  const plan = planBookings(catalog, { count: Number(args.bookings), days: 365, seed: 1 });
  await insertBookings(handle.db, catalog, plan, { firstDay: FIRST_DAY, seed: 2 }, progress);
  const { key } = await createKey(handle.db, { name: 'wal-pages', perMinute: 1_000_000, perHour: 1_000_000 });
  await handle.destroy();

  const app = await buildTestApp(database.url);
  // A connection of its own reads the log's length after each bulk, then empties the log.
  const observer = new SQLite(database.url.slice('sqlite:'.length));
  const logPages = () => (observer.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
  observer.pragma('wal_checkpoint(TRUNCATE)');
  const nextSlot = freeSlots(catalog, FIRST_DAY);
  const counted: number[] = [];
  for (let i = 0; i < UNCOUNTED + Number(args.bulks); i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/booking-api/v1/bookings/bulk',
      headers: { 'x-api-key': key },
      payload: { bookings: Array.from({ length: 50 }, nextSlot) },
    });
    if (res.statusCode !== 201) throw new Error(`bulk answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    if (i >= UNCOUNTED) counted.push(logPages());
    observer.pragma('wal_checkpoint(TRUNCATE)');
  }
  observer.close();
  await app.close();
  const mean = counted.reduce((a, b) => a + b, 0) / counted.length;
  process.stdout.write(`\nwrite-ahead log pages per bulk of 50 (mean of ${counted.length}): ${mean.toFixed(1)}\n`);
} finally {
  await database.drop();
}
