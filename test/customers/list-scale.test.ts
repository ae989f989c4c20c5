import { CompiledQuery, sql, type KyselyPlugin, type Insertable } from 'kysely';
import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database, Db, Dialect } from '../../src/db/database.js';
import * as repository from '../../src/modules/customers/repository.js';
import { listCustomers } from '../../src/modules/customers/service.js';
import { siteOnce, type Site } from '../../src/core/site.js';
import { getSettings } from '../../src/modules/settings/index.js';
import { formatCents } from '../../src/lib/money.js';
import { BOOKINGS_PER_CUSTOMER } from '../../src/modules/customers/schemas.js';
import { orderRow } from '../../src/modules/orders/repository.js';
import { customerRow, insertAgent, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

const CUSTOMERS = 10_000;
const BOOKINGS_EACH = 3;
const AT = '2024-01-01T00:00:00.000Z';
const BASE_TABLES = ['customers', 'bookings', 'orders', 'transactions'];

/** Counts the statements a Kysely handle executes (one result each; subqueries are part of their statement). */
/** The db with a count of its statements, and a site context whose one read counts too (a prepared statement, which plugins do not see). */
function counting(db: Db): { db: Db; site: Site; count: () => number } {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: (args) => {
      statements += 1;
      return Promise.resolve(args.result);
    },
  };
  const site = siteOnce(async () => {
    statements += 1;
    return getSettings(db);
  });
  return { db: db.withPlugin(plugin), site, count: () => statements };
}

async function insertInChunks<T extends keyof Database>(db: Db, table: T, rows: Insertable<Database[T]>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/**
 * Table accesses that read a whole base table instead of going through an index.
 *
 * SQLite's planner takes a matching index whenever one exists, so its plan is read as is; a plain
 * `SCAN t` is allowed only for a query ordered by t's primary key (`byPrimaryKey`) whose rows come
 * in key order from the table's own b-tree (no temp b-tree sort), so the LIMIT stops the walk.
 * PostgreSQL's planner is cost-based: on tables of this size it may rightly find a sequential scan
 * cheaper. With sequential scans switched off for the EXPLAIN, a Seq Scan still appears exactly
 * where no index can serve the access, which is what this checks.
 */
async function fullScans(db: Db, dialect: Dialect, query: CompiledQuery, byPrimaryKey?: string): Promise<string[]> {
  if (dialect === 'sqlite') {
    const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    const details = plan.rows.map((r) => r.detail);
    const sorted = details.some((d) => d.startsWith('USE TEMP B-TREE FOR ORDER BY'));
    return details.filter((detail) =>
      BASE_TABLES.some(
        (table) =>
          new RegExp(`^SCAN ${table}$`).test(detail) && !(table === byPrimaryKey && !sorted),
      ),
    );
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const plan = await trx.executeQuery<{ 'QUERY PLAN': Json }>(CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]));
    const scans: string[] = [];
    const walk = (node: Json) => {
      if (node['Node Type'] === 'Seq Scan' && BASE_TABLES.includes(node['Relation Name'])) scans.push(`Seq Scan on ${node['Relation Name']}`);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan.rows[0]!['QUERY PLAN'][0].Plan);
    return scans;
  });
}

/** True when the plan sorts rows itself instead of reading them in order from an index. */
async function sortsRows(db: Db, dialect: Dialect, query: CompiledQuery): Promise<boolean> {
  if (dialect === 'sqlite') {
    const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    return plan.rows.some((r) => r.detail.startsWith('USE TEMP B-TREE FOR ORDER BY'));
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const plan = await trx.executeQuery<{ 'QUERY PLAN': Json }>(CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]));
    const sorts = (node: Json): boolean => /Sort$/.test(String(node['Node Type'])) || ((node.Plans ?? []) as Json[]).some(sorts);
    return sorts(plan.rows[0]!['QUERY PLAN'][0].Plan);
  });
}

describe.each(DIALECTS)('GET /customers over 10,000 customers (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const today = DateTime.utc().startOf('day');

  beforeAll(async () => {
    const refs = { agent_id: await insertAgent(t.db), service_id: await insertService(t.db), location_id: await insertLocation(t.db) };
    const customers = Array.from({ length: CUSTOMERS }, (_, i) => {
      const at = DateTime.fromISO(AT, { zone: 'utc' }).plus({ minutes: i }).toISO()!;
      return customerRow({
        customer_code: `SCALE${i}`,
        first_name: 'Scale',
        last_name: `Customer${i}`,
        email: `scale${i}@example.test`,
        status: i % 10 === 0 ? 'inactive' : 'active',
        created_at: at,
        updated_at: at,
      });
    });
    await insertInChunks(t.db, 'customers', customers);
    const ids = (await t.db.selectFrom('customers').select('id').orderBy('id').execute()).map((r) => r.id);

    // As the service makes them: every booking has its order; the non-cancelled ones are paid.
    const statuses = ['approved', 'completed', 'cancelled'] as const;
    const slots = ids.flatMap((customer_id, i) => Array.from({ length: BOOKINGS_EACH }, (_, j) => ({ customer_id, i, j })));
    await insertInChunks(
      t.db,
      'orders',
      slots.map(({ customer_id, i, j }) => ({
        ...orderRow({ confirmationCode: `SO${i}-${j}`, customerId: customer_id, status: 'open', subtotalCents: 5000, totalCents: 5000, couponId: null, couponCode: null, couponDiscountCents: 0, paymentStatus: 'not_paid', at: AT }),
        payment_status: j === 2 ? ('not_paid' as const) : ('fully_paid' as const),
      })),
    );
    const orderIds = new Map((await t.db.selectFrom('orders').select(['id', 'confirmation_code']).execute()).map((o) => [o.confirmation_code, o.id]));
    await insertInChunks(
      t.db,
      'bookings',
      slots.map(({ customer_id, i, j }) => {
        const date = today.plus({ days: (i % 60) - 30 + j * 7 }).toISODate();
        return {
          booking_code: `SB${i}-${j}`,
          status: statuses[j]!,
          payment_status: 'not_paid' as const,
          ...refs,
          customer_id,
          order_id: orderIds.get(`SO${i}-${j}`)!,
          start_date: date,
          start_time: '09:00',
          end_date: date,
          end_time: '10:00',
          timezone: 'UTC',
          start_at: `${date}T09:00:00.000Z`,
          end_at: `${date}T10:00:00.000Z`,
          duration: 60,
          price_cents: 5000,
          notes: null,
          customer_comment: null,
          scheduled_at: AT,
          created_at: AT,
          updated_at: AT,
        };
      }),
    );
    await insertInChunks(
      t.db,
      'transactions',
      slots
        .filter(({ j }) => j !== 2)
        .map(({ customer_id, i, j }) => ({
          order_id: orderIds.get(`SO${i}-${j}`)!,
          booking_id: null,
          invoice_id: null,
          customer_id,
          processor: 'stripe',
          payment_method: 'card',
          payment_portion: 'full',
          kind: 'capture',
          amount_cents: 5000 + j * 25,
          status: i % 7 === 0 && j === 1 ? ('failed' as const) : ('succeeded' as const),
          token: null,
          notes: null,
          receipt_number: null,
          created_at: AT,
          updated_at: AT,
        })),
    );
    // Planner statistics, as a live database keeps them.
    await sql`analyze`.execute(t.db);
  });

  it('answers a page of 100 with stats and bookings from a fixed number of queries', async () => {
    const small = counting(t.db);
    await listCustomers(small.db, small.site, { page: 1, per_page: 5, include: 'stats,bookings' });
    const large = counting(t.db);
    const list = await listCustomers(large.db, large.site, { page: 3, per_page: 100, include: 'stats,bookings' });
    expect(list.data).toHaveLength(100);
    expect(list.page.total).toBe(CUSTOMERS);
    // timezone, count, page ids, page rows, booking stats, money, bookings: the same for 5 customers as for 100.
    expect(large.count()).toBe(7);
    expect(small.count()).toBe(large.count());
  });

  it('answers the HTTP list with stats equal to the bookings and payments of each customer', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/booking-api/v1/customers?per_page=100&page=2&include=stats,bookings',
      headers: { 'x-api-key': await t.key() },
    });
    expect(res.statusCode).toBe(200);
    const body: Json = res.json();
    expect(body.meta).toEqual({ current_page: 2, per_page: 100, total: CUSTOMERS, total_pages: 100, has_next_page: true, has_previous_page: true });
    expect(body.data).toHaveLength(100);
    const todayText = today.toISODate();
    for (const customer of body.data.slice(0, 10)) {
      const bookings = await t.db.selectFrom('bookings').selectAll().where('customer_id', '=', customer.id).execute();
      const kept = bookings.filter((b) => b.status !== 'cancelled').map((b) => b.start_date).sort();
      const spent = await t.db
        .selectFrom('transactions')
        .innerJoin('orders', 'orders.id', 'transactions.order_id')
        .select((eb) => eb.fn.sum<number>('transactions.amount_cents').as('cents'))
        .where('orders.customer_id', '=', customer.id)
        .where('transactions.status', '=', 'succeeded')
        .executeTakeFirstOrThrow();
      expect(customer.stats).toEqual({
        total_bookings: BOOKINGS_EACH,
        completed_bookings: 1,
        cancelled_bookings: 1,
        no_show_bookings: 0,
        total_spent: formatCents(Number(spent.cents ?? 0)),
        last_booking_date: kept.filter((d) => d < todayText).at(-1) ?? null,
        next_booking_date: kept.find((d) => d >= todayText) ?? null,
      });
      expect(customer.bookings).toHaveLength(BOOKINGS_EACH);
    }
  });

  it('reads the page, its stats and its bookings through indexes, never a full table scan', async () => {
    const page = repository.pageQuery(t.db, {}, { column: 'created_at', direction: 'desc' }, 100, 200);
    const ids = (await page.execute()).map((c) => c.id);
    expect(ids).toHaveLength(100);
    const queries = {
      page: page.compile(),
      pageById: repository.pageQuery(t.db, {}, { column: 'id', direction: 'asc' }, 100, 200).compile(),
      bookingStats: repository.bookingStatsQuery(t.db, ids, today.toISODate()).compile(),
      totalSpent: repository.totalSpentQuery(t.db, ids).compile(),
      bookings: repository.recentBookingsQuery(t.db, ids, BOOKINGS_PER_CUSTOMER).compile(),
    };
    for (const [name, query] of Object.entries(queries)) {
      expect(await fullScans(t.db, dialect, query, name === 'pageById' ? 'customers' : undefined), name).toEqual([]);
    }
  });

  it('reads a deep page of the default order from the index in order, sorting nothing', async () => {
    for (const direction of ['desc', 'asc'] as const) {
      const page = repository.pageQuery(t.db, {}, { column: 'created_at', direction }, 20, 9_000).compile();
      expect(await sortsRows(t.db, dialect, page), direction).toBe(false);
    }
  });
});
