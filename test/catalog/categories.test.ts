import { beforeEach, describe, expect, it } from 'vitest';
import { insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { caller, resetCatalog } from './support.js';

describe.each(DIALECTS)('service and location categories (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = caller(t);
  beforeEach(() => resetCatalog(t.db));

  for (const [path, table, member] of [
    ['/service-categories', 'service_categories', 'services'],
    ['/location-categories', 'location_categories', 'locations'],
  ] as const) {
    it(`${path}: create, list by name with pagination, rename, delete keeping members`, async () => {
      const b = await call('POST', path, { name: 'Beta' });
      expect(b.status).toBe(201);
      expect(b.body.data).toMatchObject({ name: 'Beta' });
      await call('POST', path, { name: 'Alpha' });
      const list = await call('GET', `${path}?per_page=1`);
      expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['Alpha']);
      expect(list.body.pagination).toEqual({ page: 1, per_page: 1, total: 2, total_pages: 2 });
      expect((await call('GET', `${path}?per_page=101`)).status).toBe(400);

      const id = b.body.data.id;
      const renamed = await call('PUT', `${path}/${id}`, { name: 'Gamma' });
      expect(renamed.body.data).toMatchObject({ id, name: 'Gamma' });
      expect((await call('PUT', `${path}/${id}`, { name: '' })).status).toBe(422);
      expect((await call('POST', path, {})).status).toBe(400);

      const memberId = member === 'services' ? await insertService(t.db, { category_id: id }) : await insertLocation(t.db, { category_id: id });
      const deleted = await call('DELETE', `${path}/${id}`);
      expect(deleted.body).toMatchObject({ success: true, data: { id, deleted: true } });
      const row = await t.db.selectFrom(member).select('category_id').where('id', '=', memberId).executeTakeFirstOrThrow();
      expect(row.category_id).toBeNull();
      expect(await t.db.selectFrom(table).select('id').where('id', '=', id).execute()).toEqual([]);
      const gone = await call('PUT', `${path}/${id}`, { name: 'X' });
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe('category_not_found');
      expect((await call('DELETE', `${path}/${id}`)).status).toBe(404);
    });
  }
});
