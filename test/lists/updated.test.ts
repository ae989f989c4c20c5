import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { requester } from '../bookings/setup.js';
import { insertOrder } from '../customers/orders.js';

type Table = 'bookings' | 'customers' | 'orders';

interface Endpoint {
  path: string;
  table: Table;
  /** The list's code for a bad query parameter (the customer list answers invalid_parameters). */
  code: string;
  /** The list's sort and direction parameters, as it names them. */
  sort: string;
  make(db: Db): Promise<number>;
}

const ENDPOINTS: Endpoint[] = [
  {
    path: '/bookings',
    table: 'bookings',
    code: 'invalid_request',
    sort: 'sort=updated_at&order=',
    make: async (db) => {
      const refs = { serviceId: await insertService(db), agentId: await insertAgent(db), locationId: await insertLocation(db), customerId: await insertCustomer(db) };
      return insertBooking(db, refs);
    },
  },
  {
    path: '/customers',
    table: 'customers',
    code: 'invalid_parameters',
    sort: 'order_by=updated_at&order_direction=',
    make: (db) => insertCustomer(db),
  },
  {
    path: '/orders',
    table: 'orders',
    code: 'invalid_request',
    sort: 'sort=updated_at&order=',
    make: async (db) => insertOrder(db, await insertCustomer(db)),
  },
];

/** Later than any record the clock stamps while the tests run. */
const UPDATED = { a: '2030-01-07T09:00:00.000Z', b: '2030-01-07T10:00:00.000Z', c: '2030-01-07T10:00:00.000Z', d: '2030-01-07T11:00:00.000Z' } as const;
type Name = keyof typeof UPDATED;

describe.each(DIALECTS)('updated_after, updated_before and sort by updated_at (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = requester(t);

  describe.each(ENDPOINTS)('GET $path', (endpoint) => {
    // b and c tie on updated_at: id (b's is lower) breaks the tie.
    const ids: Record<Name, number> = { a: 0, b: 0, c: 0, d: 0 };
    const names = new Map<number, Name>();

    beforeAll(async () => {
      for (const name of ['a', 'b', 'c', 'd'] as const) {
        ids[name] = await endpoint.make(t.db);
        names.set(ids[name], name);
        await t.db.updateTable(endpoint.table).set({ updated_at: UPDATED[name] }).where('id', '=', ids[name]).execute();
      }
    });

    /** The records of this test listed for the query, in the list's order; records of other tests are left out. */
    async function listed(query: string): Promise<Name[]> {
      const res = await call('GET', `${endpoint.path}?per_page=100&${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data as Json[]).flatMap((row: Json) => names.get(row.id) ?? []);
    }

    it('updated_after keeps only records updated after the instant (exclusive)', async () => {
      expect((await listed('updated_after=2030-01-07T09:00:00Z')).sort()).toEqual(['b', 'c', 'd']);
      expect(await listed('updated_after=2030-01-07T10:00:00.000Z')).toEqual(['d']);
    });

    it('updated_before keeps only records updated before the instant (exclusive)', async () => {
      expect(await listed('updated_before=2030-01-07T10:00:00Z')).toEqual(['a']);
      expect((await listed('updated_before=2030-01-07T11:00:00Z')).sort()).toEqual(['a', 'b', 'c']);
    });

    it('updated_after and updated_before together keep the records between them', async () => {
      expect((await listed('updated_after=2030-01-07T09:00:00Z&updated_before=2030-01-07T11:00:00Z')).sort()).toEqual(['b', 'c']);
    });

    it('an instant with an offset is the same instant in UTC', async () => {
      // 10:30+01:00 is 09:30Z and 11:00+01:00 is 10:00Z; compared as text, both would keep b and c wrongly.
      expect((await listed(`updated_after=${encodeURIComponent('2030-01-07T10:30:00+01:00')}`)).sort()).toEqual(['b', 'c', 'd']);
      expect(await listed(`updated_before=${encodeURIComponent('2030-01-07T11:00:00.000+01:00')}`)).toEqual(['a']);
    });

    it.each(['updated_after', 'updated_before'])('a bad %s is 400 naming it', async (field) => {
      for (const value of ['yesterday', '2030-13-01T00:00:00Z', '2030-01-07T10:00:00', '2030-02-30T10:00:00Z']) {
        const res = await call('GET', `${endpoint.path}?${field}=${value}`);
        expect(res.statusCode, value).toBe(400);
        expect(res.json().error.code).toBe(endpoint.code);
        expect(Object.keys(res.json().error.details), value).toEqual([field]);
      }
    });

    it('updated_after not before updated_before is 400 naming updated_before', async () => {
      const res = await call('GET', `${endpoint.path}?updated_after=2030-01-07T10:00:00Z&updated_before=2030-01-07T10:00:00Z`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: endpoint.code, details: { updated_before: 'must be after updated_after' } });
    });

    it('sorts by updated_at ascending and descending, ties by id', async () => {
      const since = 'updated_after=2030-01-01T00:00:00Z';
      expect(await listed(`${since}&${endpoint.sort}asc`)).toEqual(['a', 'b', 'c', 'd']);
      expect(await listed(`${since}&${endpoint.sort}desc`)).toEqual(['d', 'c', 'b', 'a']);
    });
  });
});
