import { beforeEach, describe, expect, it } from 'vitest';
import { connectAgent, insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { caller, resetCatalog } from '../catalog/support.js';

describe.each(DIALECTS)('locations (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = caller(t);
  beforeEach(() => resetCatalog(t.db));

  const names = (body: { data: { name: string }[] }) => body.data.map((l) => l.name);

  describe('GET /locations', () => {
    it('pages 10 by default with page, per_page, total, total_pages, has_next_page, has_previous_page', async () => {
      for (let i = 1; i <= 12; i++) await insertLocation(t.db, { name: `L${String(i).padStart(2, '0')}` });
      const first = await call('GET', '/locations');
      expect(first.status).toBe(200);
      expect(first.body.success).toBe(true);
      expect(first.body.data).toHaveLength(10);
      expect(first.body.pagination).toEqual({ page: 1, per_page: 10, total: 12, total_pages: 2, has_next_page: true, has_previous_page: false });
      const second = await call('GET', '/locations?page=2');
      expect(names(second.body)).toEqual(['L11', 'L12']);
      expect(second.body.pagination).toEqual({ page: 2, per_page: 10, total: 12, total_pages: 2, has_next_page: false, has_previous_page: true });
      const middle = await call('GET', '/locations?page=2&per_page=5');
      expect(middle.body.pagination).toMatchObject({ total_pages: 3, has_next_page: true, has_previous_page: true });
      expect((await call('GET', '/locations?per_page=100')).body.data).toHaveLength(12);
    });

    it('refuses per_page over 100 and other bad parameters with 400 invalid_request naming them', async () => {
      for (const [query, field] of [
        ['per_page=101', 'per_page'],
        ['per_page=0', 'per_page'],
        ['page=0', 'page'],
        ['status=closed', 'status'],
      ]) {
        const res = await call('GET', `/locations?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(Object.keys(res.body.error.details), query).toContain(field);
      }
    });

    it('filters by search on name or address and by status; sorts by order_number then id', async () => {
      await insertLocation(t.db, { name: 'North', full_address: '1 Elm Street', order_number: 2 });
      await insertLocation(t.db, { name: 'South Elmwood', full_address: '9 Oak Road', order_number: 1, status: 'inactive' });
      await insertLocation(t.db, { name: 'East', full_address: '3 Pine Lane', order_number: 1 });
      const cases: [string, string[]][] = [
        ['', ['South Elmwood', 'East', 'North']],
        ['search=elm', ['South Elmwood', 'North']],
        ['search=PINE', ['East']],
        ['search=100%25', []],
        ['status=active', ['East', 'North']],
        ['status=inactive', ['South Elmwood']],
        ['search=elm&status=active', ['North']],
      ];
      for (const [query, expected] of cases) {
        const res = await call('GET', `/locations?${query}`);
        expect(names(res.body), query).toEqual(expected);
        expect(res.body.pagination.total, query).toBe(expected.length);
      }
    });
  });

  describe('GET /locations/{id}', () => {
    it('answers the location; 404 location_not_found; 400 for a malformed id', async () => {
      const id = await insertLocation(t.db, { name: 'Main', full_address: '1 High St', created_at: '2026-02-01T09:08:07.000Z', updated_at: '2026-02-01T09:08:07.000Z' });
      const res = await call('GET', `/locations/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          id,
          name: 'Main',
          full_address: '1 High St',
          status: 'active',
          category_id: null,
          order_number: 0,
          selection_image_id: 0,
          created_at: '2026-02-01 09:08:07',
          updated_at: '2026-02-01 09:08:07',
        },
      });
      expect((await call('GET', `/locations/${id + 100}`)).body.error.code).toBe('location_not_found');
      expect((await call('GET', '/locations/x')).status).toBe(400);
    });
  });

  describe('POST, PUT and DELETE /locations', () => {
    it('creates with defaults and updates only the fields sent', async () => {
      const cat = (await call('POST', '/location-categories', { name: 'Studios' })).body.data.id;
      const created = await call('POST', '/locations', { name: ' Main ' });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ name: 'Main', full_address: '', status: 'active', category_id: null, order_number: 0, selection_image_id: 0 });
      const id = created.body.data.id;
      const updated = await call('PUT', `/locations/${id}`, { full_address: '5 Side St', status: 'inactive', category_id: cat, order_number: 3 });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({ name: 'Main', full_address: '5 Side St', status: 'inactive', category_id: cat, order_number: 3 });
      const cleared = await call('PUT', `/locations/${id}`, { category_id: null });
      expect(cleared.body.data.category_id).toBeNull();
    });

    it('refuses body fields the schema does not name, columns included, and changes nothing', async () => {
      const id = (await call('POST', '/locations', { name: 'Main' })).body.data.id;
      const updated = await call('PUT', `/locations/${id}`, { zzz: 1, id: id + 100, deleted_at: '2020-01-01', created_at: 'then', order_number: 4 });
      expect(updated.status).toBe(400);
      expect(Object.keys(updated.body.error.details).sort()).toEqual(['created_at', 'deleted_at', 'id', 'zzz']);
      expect((await call('GET', `/locations/${id}`)).body.data).toMatchObject({ id, order_number: 0 });
      expect((await call('GET', '/locations')).body.pagination.total).toBe(1);
    });

    it('answers 400 for shape errors and unknown categories, 422 for field rules, 404 for unknown ids', async () => {
      const missing = await call('POST', '/locations', { full_address: 'x' });
      expect(missing.status).toBe(400);
      expect(missing.body.error.details).toHaveProperty('name');
      const status = await call('POST', '/locations', { name: 'X', status: 'open' });
      expect(status.status).toBe(400);
      expect(status.body.error.details).toHaveProperty('status');
      const category = await call('POST', '/locations', { name: 'X', category_id: 77777 });
      expect(category.status).toBe(400);
      expect(category.body.error.details).toHaveProperty('category_id');
      const rules = await call('POST', '/locations', { name: '', full_address: 'y'.repeat(501) });
      expect(rules.status).toBe(422);
      expect(Object.keys(rules.body.error.details).sort()).toEqual(['full_address', 'name']);
      expect(await t.db.selectFrom('locations').selectAll().execute()).toEqual([]);
      expect((await call('PUT', '/locations/31337', { name: 'X' })).body.error.code).toBe('location_not_found');
      expect((await call('DELETE', '/locations/31337')).status).toBe(404);
    });

    it('deletes a location without bookings; 409 while upcoming bookings need it; retires it for cancelled ones', async () => {
      const free = await insertLocation(t.db);
      const agent = await insertAgent(t.db);
      await connectAgent(t.db, agent, { locationIds: [free] });
      const customer = await insertCustomer(t.db, { preferred_location_id: free });
      const res = await call('DELETE', `/locations/${free}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ id: free, deleted: true });
      expect(await t.db.selectFrom('agent_locations').selectAll().execute()).toEqual([]);
      const pref = await t.db.selectFrom('customers').select('preferred_location_id').where('id', '=', customer).executeTakeFirstOrThrow();
      expect(pref.preferred_location_id).toBeNull();

      const busy = await insertLocation(t.db);
      await insertBooking(t.db, { serviceId: await insertService(t.db), agentId: agent, locationId: busy, customerId: customer });
      const refused = await call('DELETE', `/locations/${busy}`);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'location_has_bookings', details: { upcoming_bookings: 1 } });

      await t.db.updateTable('bookings').set({ status: 'cancelled' }).where('location_id', '=', busy).execute();
      const retired = await call('DELETE', `/locations/${busy}`);
      expect(retired.status).toBe(200);
      expect((await call('GET', `/locations/${busy}`)).status).toBe(404);
      expect((await call('GET', '/locations')).body.data).toEqual([]);
      const row = await t.db.selectFrom('locations').select(['status', 'deleted_at']).where('id', '=', busy).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'inactive', deleted_at: expect.any(String) });
    });

    it('needs locations:write to change and locations:read to read', async () => {
      const reader = await t.key({ permissions: ['locations:read'] });
      expect((await call('GET', '/locations', undefined, reader)).status).toBe(200);
      expect((await call('POST', '/locations', { name: 'X' }, reader)).status).toBe(403);
      const other = await t.key({ permissions: ['agents:read'] });
      expect((await call('GET', '/locations', undefined, other)).status).toBe(403);
    });
  });
});
