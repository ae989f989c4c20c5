import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type DatabaseHandle, type Db, type Dialect } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { withStatementCache } from '../../src/db/statement-cache.js';
import type { BookingRequest } from '../../src/modules/bookings/request.js';
import { createBooking, createBulk } from '../../src/modules/bookings/service.js';
import { ManageLinks } from '../../src/modules/manage-links/index.js';
import { initialiseSettings, setSettings } from '../../src/modules/settings/service.js';
import { MAX_ADVANCE_DAYS } from '../../src/core/limits.js';
import { createTestDatabase, type TestDatabase } from '../databases.js';
import { DIALECTS, TEST_ACTOR } from '../helper.js';
import { addAgent, newSite, type Site } from './setup.js';

/** A second connection to the test database that logs the SQL of every statement it runs. */
function loggedDatabase(dialect: Dialect, url: string, statements: string[]): Db {
  const log = (event: { query: { sql: string } }) => {
    // Lock statements are one per agent and email a request involves, whatever this module does.
    if (!event.query.sql.includes('pg_advisory_xact_lock')) statements.push(event.query.sql);
  };
  if (dialect === 'sqlite') {
    const database = new SQLite(url.slice('sqlite:'.length));
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }), log });
  }
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }), log });
}

/**
 * Statements per create are the cost a create adds under its locks (on SQLite, under the one
 * write lock): each written kind of row is one statement for a whole request, and the reads of
 * a bulk request's elements are shared, so a bulk costs as many statements as a single create.
 */
describe.each(DIALECTS)('statements of booking creates (%s)', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let logged: Db;
  const statements: string[] = [];
  let site: Site;
  let second: number;
  let day = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    handle = openDatabase(database.url);
    await migrateToLatest(handle);
    await initialiseSettings(handle.db, 'Europe/Berlin');
    // Its bookings lie years ahead, past the default booking window.
    await setSettings(handle.db, { max_advance_days: MAX_ADVANCE_DAYS });
    site = await newSite(handle.db);
    second = await addAgent(handle.db, site);
    logged = loggedDatabase(dialect, database.url, statements);
  });
  afterAll(async () => {
    await logged?.destroy();
    await handle?.destroy();
    await database?.drop();
  });

  /** A free hour on a weekday of its own. */
  const request = (values: Partial<BookingRequest> = {}): BookingRequest => {
    const date = new Date(Date.UTC(2030, 0, 7 + 7 * Math.floor(day / 5) + (day % 5)));
    day++;
    return {
      serviceId: site.serviceId,
      agent: site.agentId,
      locationId: site.locationId,
      startDate: date.toISOString().slice(0, 10),
      startTime: '10:00',
      customer: { id: site.customerId },
      status: 'pending',
      attendees: 1,
      notes: null,
      meta: {},
      ...values,
    };
  };

  const links = new ManageLinks('http://localhost', Buffer.alloc(32));

  const counted = async (run: (db: Db) => Promise<unknown>): Promise<string[]> => {
    statements.length = 0;
    await run(logged);
    return [...statements];
  };

  it('a create reads settings, its records (the agent’s longest booking with them) and the busy bookings once, and writes order, booking, busy-time version, item, invoice, event and the agent\'s notice', async () => {
    const sql = await counted((h) => createBooking(h, TEST_ACTOR, links, request(), false));
    const work = sql.filter((s) => !/^(begin|commit)/i.test(s));
    expect(work).toHaveLength(10);
    expect(work.filter((s) => /^insert into "outbox"/i.test(s))).toHaveLength(1);
    expect(work.filter((s) => /^insert into "agent_busy_versions"/i.test(s))).toHaveLength(1);
    // The booking is inserted with its order's id, not pointed at the order afterwards.
    expect(work.filter((s) => /^update "bookings"/i.test(s))).toEqual([]);
  });

  it('a new customer adds two statements (its row and its event), metadata one, agent any two; the confirmation goes in the agent notice\'s statement', async () => {
    const plain = await counted((h) => createBooking(h, TEST_ACTOR, links, request(), false));
    const full = await counted((h) =>
      createBooking(
        h,
        TEST_ACTOR,
        links,
        request({ agent: 'any', customer: { new: { first_name: 'N', last_name: 'C', email: `n${day}@example.test`, phone: null } }, meta: { a: '1', b: '2' } }),
        true,
      ),
    );
    // `any` reads the agents connected to the service twice: for the locks to take before the
    // transaction, and with what the checks need inside it.
    expect(full.length - plain.length).toBe(2 + 1 + 2);
  });

  it('a bulk request costs the same statements for 2 elements as for 30', async () => {
    const elements = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        request({
          agent: i % 3 === 2 ? 'any' : i % 2 === 0 ? site.agentId : second,
          customer: i % 4 === 3 ? { new: { first_name: 'B', last_name: 'K', email: `bulk${day}.${i}@example.test`, phone: null } } : { id: site.customerId },
          meta: i % 2 === 0 ? { n: String(i) } : {},
        }),
      );
    const small = await counted((h) => createBulk(h, TEST_ACTOR, links, elements(4), true));
    const large = await counted((h) => createBulk(h, TEST_ACTOR, links, elements(30), true));
    expect(large).toHaveLength(small.length);
  });
});
