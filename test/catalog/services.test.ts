import { beforeEach, describe, expect, it } from 'vitest';
import { connectAgent, insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { caller, resetCatalog } from './support.js';

describe.each(DIALECTS)('services (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = caller(t);
  beforeEach(() => resetCatalog(t.db));

  const names = (body: { data: { name: string }[] }) => body.data.map((s) => s.name);
  const category = async (name: string) =>
    (await t.db.insertInto('service_categories').values({ name, created_at: 'x', updated_at: 'x' }).returning('id').executeTakeFirstOrThrow()).id;

  describe('GET /services', () => {
    it('pages 10 by default with current_page, per_page, total_items, total_pages, sorted by id', async () => {
      for (let i = 1; i <= 11; i++) await insertService(t.db, { name: `S${String(i).padStart(2, '0')}` });
      const first = await call('GET', '/services');
      expect(first.status).toBe(200);
      expect(first.body.pagination).toEqual({ current_page: 1, per_page: 10, total_items: 11, total_pages: 2 });
      expect(names(first.body)).toEqual(['S01', 'S02', 'S03', 'S04', 'S05', 'S06', 'S07', 'S08', 'S09', 'S10']);
      const second = await call('GET', '/services?page=2&per_page=10');
      expect(names(second.body)).toEqual(['S11']);
      expect(second.body.pagination.current_page).toBe(2);
      const beyond = await call('GET', '/services?page=5');
      expect(beyond.body.data).toEqual([]);
      expect(beyond.body.pagination).toEqual({ current_page: 5, per_page: 10, total_items: 11, total_pages: 2 });
      expect((await call('GET', '/services?per_page=100')).body.data).toHaveLength(11);
    });

    it('refuses bad parameters with 400 invalid_request naming them', async () => {
      for (const [query, field] of [
        ['per_page=101', 'per_page'],
        ['per_page=0', 'per_page'],
        ['page=-1', 'page'],
        ['status=gone', 'status'],
        ['visibility=secret', 'visibility'],
        ['order_by=popularity', 'order_by'],
        ['order=up', 'order'],
        ['include=category,prices', 'include'],
        ['price_min=-1', 'price_min'],
        ['duration_max=abc', 'duration_max'],
        ['updated_before=yesterday', 'updated_before'],
      ]) {
        const res = await call('GET', `/services?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(Object.keys(res.body.error.details), query).toContain(field);
      }
    });

    it('renders money as strings with two decimals and every spec field', async () => {
      const cat = await category('Hair');
      await insertService(t.db, {
        name: 'Cut',
        short_description: 'Short',
        description: 'Long',
        duration: 45,
        price_min_cents: 4500,
        price_max_cents: 6005,
        charge_amount_cents: 4000,
        deposit_amount_cents: 1000,
        capacity_min: 1,
        capacity_max: 3,
        order_number: 2,
        selection_image_id: 7,
        visibility: 'hidden',
        category_id: cat,
        created_at: '2026-05-01T12:00:00.000Z',
        updated_at: '2026-05-02T12:00:00.000Z',
      });
      const res = await call('GET', '/services');
      expect(res.body.data[0]).toEqual({
        id: expect.any(Number),
        name: 'Cut',
        short_description: 'Short',
        description: 'Long',
        duration: 45,
        price_min: '45.00',
        price_max: '60.05',
        charge_amount: '40.00',
        deposit_amount: '10.00',
        capacity_min: 1,
        capacity_max: 3,
        buffer_before: 0,
        buffer_after: 0,
        min_notice_minutes: null,
        max_advance_days: null,
        order_number: 2,
        selection_image_id: 7,
        status: 'active',
        visibility: 'hidden',
        category_id: cat,
        created_at: '2026-05-01 12:00:00',
        updated_at: '2026-05-02 12:00:00',
      });
    });

    it('filters by search, name, status, category, visibility, price, duration and dates', async () => {
      const hair = await category('Hair');
      await insertService(t.db, { name: 'Haircut', short_description: 'Quick trim', price_min_cents: 3000, duration: 30, category_id: hair, created_at: '2026-04-01T08:00:00.000Z', updated_at: '2026-04-10T08:00:00.000Z' });
      await insertService(t.db, { name: 'Colour', description: 'Full HAIR colour', price_min_cents: 8000, duration: 90, category_id: hair, status: 'disabled', created_at: '2026-04-02T08:00:00.000Z', updated_at: '2026-04-02T08:00:00.000Z' });
      await insertService(t.db, { name: 'Massage', price_min_cents: 7000, duration: 60, visibility: 'hidden', created_at: '2026-04-03T08:00:00.000Z', updated_at: '2026-04-05T08:00:00.000Z' });
      const cases: [string, string[]][] = [
        ['search=hair', ['Haircut', 'Colour']],
        ['search=TRIM', ['Haircut']],
        ['search=_', []],
        ['name=Massage', ['Massage']],
        ['name=massage', []],
        ['status=disabled', ['Colour']],
        ['status=active', ['Haircut', 'Massage']],
        [`category_id=${hair}`, ['Haircut', 'Colour']],
        ['visibility=hidden', ['Massage']],
        ['visibility=visible', ['Haircut', 'Colour']],
        ['price_min=70', ['Colour', 'Massage']],
        ['price_max=70.00', ['Haircut', 'Massage']],
        ['price_min=30&price_max=30', ['Haircut']],
        ['duration_min=60', ['Colour', 'Massage']],
        ['duration_max=60', ['Haircut', 'Massage']],
        ['created_after=2026-04-02', ['Colour', 'Massage']],
        ['created_before=2026-04-02', ['Haircut', 'Colour']],
        ['updated_after=2026-04-05', ['Haircut', 'Massage']],
        ['updated_before=2026-04-05', ['Colour', 'Massage']],
      ];
      for (const [query, expected] of cases) {
        const res = await call('GET', `/services?${query}`);
        expect(res.status, query).toBe(200);
        expect(names(res.body), query).toEqual(expected);
        expect(res.body.pagination.total_items, query).toBe(expected.length);
      }
    });

    it('filters by agent and by location, where a location counts only through an active agent', async () => {
      const [a, b, c] = [await insertService(t.db, { name: 'A' }), await insertService(t.db, { name: 'B' }), await insertService(t.db, { name: 'C' })];
      const loc = await insertLocation(t.db);
      const active = await insertAgent(t.db);
      const disabled = await insertAgent(t.db, { status: 'disabled' });
      await connectAgent(t.db, active, { serviceIds: [a], locationIds: [loc] });
      await connectAgent(t.db, disabled, { serviceIds: [b], locationIds: [loc] });
      await connectAgent(t.db, await insertAgent(t.db), { serviceIds: [c] });
      expect(names((await call('GET', `/services?location_id=${loc}`)).body)).toEqual(['A']);
      expect(names((await call('GET', `/services?agent_id=${disabled}`)).body)).toEqual(['B']);
      expect(names((await call('GET', `/services?agent_id=${active}&location_id=${loc}`)).body)).toEqual(['A']);
    });

    it('sorts by each order_by, ASC or DESC in either case', async () => {
      await insertService(t.db, { name: 'beta', price_min_cents: 2000, duration: 30, created_at: '2026-01-03T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
      await insertService(t.db, { name: 'Alpha', price_min_cents: 3000, duration: 20, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-03T00:00:00.000Z' });
      await insertService(t.db, { name: 'Gamma', price_min_cents: 1000, duration: 40, created_at: '2026-01-02T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z' });
      const cases: [string, string[]][] = [
        ['', ['beta', 'Alpha', 'Gamma']],
        ['order=DESC', ['Gamma', 'Alpha', 'beta']],
        ['order_by=name', ['Alpha', 'beta', 'Gamma']],
        ['order_by=name&order=desc', ['Gamma', 'beta', 'Alpha']],
        ['order_by=price', ['Gamma', 'beta', 'Alpha']],
        ['order_by=duration&order=DESC', ['Gamma', 'beta', 'Alpha']],
        ['order_by=created_date', ['Alpha', 'Gamma', 'beta']],
        ['order_by=updated_date&order=ASC', ['beta', 'Gamma', 'Alpha']],
      ];
      for (const [query, expected] of cases) expect(names((await call('GET', `/services?${query}`)).body), query).toEqual(expected);
    });

    it('include=category, agents and locations add those objects; without include they are absent', async () => {
      const cat = await category('Wellness');
      const svc = await insertService(t.db, { name: 'Massage', category_id: cat });
      const bare = await insertService(t.db, { name: 'Bare' });
      const loc = await insertLocation(t.db, { name: 'Spa', full_address: '1 Spa Road' });
      const hidden = await insertLocation(t.db, { name: 'Only disabled' });
      const agent = await insertAgent(t.db, { first_name: 'Jo', last_name: 'Wu' });
      const off = await insertAgent(t.db, { first_name: 'Off', last_name: 'Duty', status: 'disabled' });
      await connectAgent(t.db, agent, { serviceIds: [svc], locationIds: [loc] });
      await connectAgent(t.db, off, { serviceIds: [svc], locationIds: [hidden] });

      const plain = await call('GET', '/services');
      for (const field of ['category', 'agents', 'locations']) expect(plain.body.data[0]).not.toHaveProperty(field);
      const res = await call('GET', '/services?include=category,agents,locations');
      const [massage, other] = res.body.data;
      expect(massage.category).toEqual({ id: cat, name: 'Wellness' });
      expect(massage.agents).toEqual([
        { id: agent, first_name: 'Jo', last_name: 'Wu' },
        { id: off, first_name: 'Off', last_name: 'Duty' },
      ]);
      expect(massage.locations).toEqual([{ id: loc, name: 'Spa', full_address: '1 Spa Road' }]);
      expect(other).toMatchObject({ id: bare, category: null, agents: [], locations: [] });
      const one = await call('GET', '/services?include=category');
      expect(one.body.data[0]).toHaveProperty('category');
      expect(one.body.data[0]).not.toHaveProperty('agents');
    });
  });

  describe('GET /services/{id}', () => {
    it('answers the service, with include; 404 service_not_found; 400 for a malformed id', async () => {
      const id = await insertService(t.db, { name: 'One' });
      const res = await call('GET', `/services/${id}?include=agents`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: { id, name: 'One', agents: [] } });
      const missing = await call('GET', `/services/${id + 999}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('service_not_found');
      expect((await call('GET', '/services/1.5')).status).toBe(400);
    });
  });

  describe('POST /services', () => {
    it('needs only a name and applies the spec defaults', async () => {
      const res = await call('POST', '/services', { name: 'Consultation' });
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.message).toEqual(expect.any(String));
      expect(res.body.data).toMatchObject({
        name: 'Consultation',
        short_description: '',
        description: '',
        duration: 60,
        price_min: '0.00',
        price_max: '0.00',
        charge_amount: '0.00',
        deposit_amount: '0.00',
        capacity_min: 1,
        capacity_max: 1,
        order_number: 0,
        selection_image_id: 0,
        status: 'active',
        visibility: 'visible',
        category_id: null,
      });
      expect(res.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it('stores every given field, amounts as numbers or decimal strings, and connects agent_ids', async () => {
      const cat = await category('Hair');
      const agent = await insertAgent(t.db);
      const res = await call('POST', '/services', {
        name: 'Colour',
        duration: 90,
        price_min: 85,
        price_max: '120.5',
        charge_amount: 85.0,
        deposit_amount: '20',
        capacity_min: 1,
        capacity_max: 2,
        status: 'disabled',
        visibility: 'hidden',
        category_id: cat,
        agent_ids: [agent],
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ price_min: '85.00', price_max: '120.50', charge_amount: '85.00', deposit_amount: '20.00', capacity_max: 2, category_id: cat, agents: [{ id: agent }] });
      const row = await t.db.selectFrom('services').selectAll().where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ price_min_cents: 8500, price_max_cents: 12050, duration: 90, status: 'disabled', visibility: 'hidden' });
    });

    it('answers 400 for a missing name, wrong types, unknown enums and unknown references', async () => {
      const cases: [unknown, string][] = [
        [{}, 'name'],
        [{ name: 'X', duration: 'long' }, 'duration'],
        [{ name: 'X', status: 'paused' }, 'status'],
        [{ name: 'X', visibility: 'private' }, 'visibility'],
        [{ name: 'X', category_id: 999999 }, 'category_id'],
        [{ name: 'X', agent_ids: [999999] }, 'agent_ids'],
      ];
      for (const [body, field] of cases) {
        const res = await call('POST', '/services', body);
        expect(res.status, field).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(res.body.error.details, field).toHaveProperty(field);
      }
      expect(await t.db.selectFrom('services').selectAll().execute()).toEqual([]);
    });

    it('answers 422 validation_failed naming each broken field rule', async () => {
      const res = await call('POST', '/services', { name: ' ', duration: 0, price_min: -5, deposit_amount: 'lots', capacity_min: 3, capacity_max: 2 });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(Object.keys(res.body.error.details).sort()).toEqual(['capacity_max', 'deposit_amount', 'duration', 'name', 'price_min']);
    });

    it('refuses a price_max below price_min; 0, the default, sets no maximum', async () => {
      const below = await call('POST', '/services', { name: 'Range', price_min: 100, price_max: 50 });
      expect(below.status).toBe(422);
      expect(below.body.error.details).toEqual({ price_max: 'must be 0 (no maximum) or at least price_min (100.00)' });
      const open = await call('POST', '/services', { name: 'Range', price_min: 100 });
      expect(open.status).toBe(201);
      const id: number = open.body.data.id;
      expect((await call('PUT', `/services/${id}`, { price_max: 150 })).status).toBe(200);
      const raised = await call('PUT', `/services/${id}`, { price_min: 200 });
      expect(raised.status).toBe(422);
      expect(raised.body.error.details).toHaveProperty('price_max');
      expect((await call('PUT', `/services/${id}`, { price_min: 200, price_max: 0 })).body.data).toMatchObject({ price_min: '200.00', price_max: '0.00' });
    });
  });

  describe('PUT /services/{id}', () => {
    it('changes only the fields sent and replaces the agents, keeping custom values of those kept', async () => {
      const a1 = await insertAgent(t.db);
      const a2 = await insertAgent(t.db);
      const a3 = await insertAgent(t.db);
      const id = await insertService(t.db, { name: 'Old', duration: 30, capacity_max: 2 });
      await t.db.insertInto('agent_services').values({ agent_id: a1, service_id: id, custom_price_cents: 999, custom_duration: null, custom_hours: null }).execute();
      await connectAgent(t.db, a2, { serviceIds: [id] });
      const res = await call('PUT', `/services/${id}`, { name: 'New', price_min: '12.34', agent_ids: [a1, a3] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ name: 'New', duration: 30, price_min: '12.34', capacity_max: 2 });
      expect(res.body.data.agents.map((a: { id: number }) => a.id)).toEqual([a1, a3]);
      const kept = await t.db.selectFrom('agent_services').select('custom_price_cents').where('agent_id', '=', a1).where('service_id', '=', id).executeTakeFirstOrThrow();
      expect(kept.custom_price_cents).toBe(999);
      const bad = await call('PUT', `/services/${id}`, { capacity_min: 3 });
      expect(bad.status).toBe(422);
      expect(bad.body.error.details).toHaveProperty('capacity_max');
      const none = await call('PUT', `/services/${id}`, { agent_ids: [] });
      expect(none.body.data.agents).toEqual([]);
    });

    it('answers 404 for an unknown service', async () => {
      const res = await call('PUT', '/services/424242', { name: 'X' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('service_not_found');
    });
  });

  describe('DELETE /services/{id}', () => {
    it('deletes a service without bookings; 404 afterwards', async () => {
      const id = await insertService(t.db);
      await connectAgent(t.db, await insertAgent(t.db), { serviceIds: [id] });
      const res = await call('DELETE', `/services/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: { id, deleted: true } });
      expect((await call('GET', `/services/${id}`)).status).toBe(404);
      expect((await call('DELETE', `/services/${id}`)).body.error.code).toBe('service_not_found');
    });

    it('answers 409 service_has_bookings while an upcoming booking uses it; retires one only past bookings use', async () => {
      const refs = { agentId: await insertAgent(t.db), locationId: await insertLocation(t.db), customerId: await insertCustomer(t.db) };
      const busy = await insertService(t.db);
      await insertBooking(t.db, { ...refs, serviceId: busy });
      const res = await call('DELETE', `/services/${busy}`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'service_has_bookings', details: { upcoming_bookings: 1 } });
      expect((await call('GET', `/services/${busy}`)).status).toBe(200);

      const used = await insertService(t.db, { name: 'Used' });
      await connectAgent(t.db, refs.agentId, { serviceIds: [used] });
      await insertBooking(t.db, { ...refs, serviceId: used }, { start_at: '2021-03-01T10:00:00.000Z', end_at: '2021-03-01T11:00:00.000Z' });
      const retired = await call('DELETE', `/services/${used}`);
      expect(retired.status).toBe(200);
      expect((await call('GET', `/services/${used}`)).status).toBe(404);
      expect(names((await call('GET', '/services')).body)).not.toContain('Used');
      const row = await t.db.selectFrom('services').select(['status', 'deleted_at']).where('id', '=', used).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'disabled', deleted_at: expect.any(String) });
      expect(await t.db.selectFrom('agent_services').selectAll().where('service_id', '=', used).execute()).toEqual([]);
      const again = await call('PUT', `/agents/${refs.agentId}`, { service_ids: [used] });
      expect(again.status).toBe(400);
    });

    it('needs services:write', async () => {
      const id = await insertService(t.db);
      const res = await call('DELETE', `/services/${id}`, undefined, await t.key({ permissions: ['services:read'] }));
      expect(res.status).toBe(403);
    });
  });
});
