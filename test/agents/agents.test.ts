import { beforeEach, describe, expect, it } from 'vitest';
import { connectAgent, insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { caller, resetCatalog } from '../catalog/support.js';

describe.each(DIALECTS)('agents (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = caller(t);
  beforeEach(() => resetCatalog(t.db));

  const names = (body: { data: { first_name: string }[] }) => body.data.map((a) => a.first_name);

  describe('GET /agents', () => {
    it('pages 10 by default with page, per_page, total, total_pages, sorted by first name', async () => {
      for (let i = 12; i >= 1; i--) await insertAgent(t.db, { first_name: `N${String(i).padStart(2, '0')}` });
      const first = await call('GET', '/agents');
      expect(first.status).toBe(200);
      expect(first.body.success).toBe(true);
      expect(first.body.pagination).toEqual({ page: 1, per_page: 10, total: 12, total_pages: 2 });
      expect(names(first.body)).toEqual(['N01', 'N02', 'N03', 'N04', 'N05', 'N06', 'N07', 'N08', 'N09', 'N10']);
      const second = await call('GET', '/agents?page=2');
      expect(second.body.pagination).toEqual({ page: 2, per_page: 10, total: 12, total_pages: 2 });
      expect(names(second.body)).toEqual(['N11', 'N12']);
      const all = await call('GET', '/agents?per_page=100');
      expect(all.body.data).toHaveLength(12);
      expect(all.body.pagination.per_page).toBe(100);
    });

    it('refuses per_page over 100, below 1, page below 1 and unknown enum or sort values, naming the parameter', async () => {
      for (const [query, field] of [
        ['per_page=101', 'per_page'],
        ['per_page=0', 'per_page'],
        ['page=0', 'page'],
        ['status=retired', 'status'],
        ['order_by=age', 'order_by'],
        ['order=sideways', 'order'],
        ['include=bookings', 'include'],
        ['created_after=2026-02-30', 'created_after'],
        ['location_id=abc', 'location_id'],
      ]) {
        const res = await call('GET', `/agents?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(Object.keys(res.body.error.details), query).toContain(field);
      }
    });

    it('renders every field, features as a JSON string and times in the site timezone', async () => {
      await t.db.updateTable('settings').set({ value: 'Europe/Berlin' }).where('key', '=', 'timezone').execute();
      try {
        await insertAgent(t.db, {
          first_name: 'Ann',
          last_name: 'Lee',
          email: 'ann@example.com',
          phone: '+49 30 1',
          bio: 'Bio',
          features: '[{"label":"Lang","value":"EN"}]',
          created_at: '2026-06-30T22:30:00.000Z',
          updated_at: '2026-07-01T08:00:00.000Z',
        });
        const res = await call('GET', '/agents');
        expect(res.body.data[0]).toEqual({
          id: expect.any(Number),
          first_name: 'Ann',
          last_name: 'Lee',
          display_name: 'Ann Lee',
          email: 'ann@example.com',
          phone: '+49 30 1',
          bio: 'Bio',
          features: '[{"label":"Lang","value":"EN"}]',
          status: 'active',
          created_at: '2026-07-01 00:30:00',
          updated_at: '2026-07-01 10:00:00',
        });
      } finally {
        await t.db.updateTable('settings').set({ value: 'UTC' }).where('key', '=', 'timezone').execute();
      }
    });

    it('filters by status, search, email, phone, location, service and creation dates', async () => {
      const loc = await insertLocation(t.db);
      const svc = await insertService(t.db);
      const ann = await insertAgent(t.db, { first_name: 'Ann', last_name: 'Smith', email: 'ann@shop.test', phone: '+1 555 0100', created_at: '2026-03-01T10:00:00.000Z' });
      const bob = await insertAgent(t.db, { first_name: 'Bob', last_name: 'Annerl', email: 'bob@shop.test', phone: '+1 555 0200', status: 'disabled', created_at: '2026-03-02T10:00:00.000Z' });
      await insertAgent(t.db, { first_name: 'Cy', last_name: 'Cole', email: 'cy@other.test', created_at: '2026-03-03T10:00:00.000Z' });
      await connectAgent(t.db, ann, { locationIds: [loc] });
      await connectAgent(t.db, bob, { serviceIds: [svc] });
      const cases: [string, string[]][] = [
        ['status=active', ['Ann', 'Cy']],
        ['status=disabled', ['Bob']],
        ['search=ANN', ['Ann', 'Bob']],
        ['search=shop.test', ['Ann', 'Bob']],
        ['search=%25', []],
        ['search=ann%20smith', ['Ann']],
        ['search=%20Cole%20', ['Cy']],
        ['email=ANN@shop.test', ['Ann']],
        ['email=ann@shop', []],
        ['phone=0200', ['Bob']],
        [`location_id=${loc}`, ['Ann']],
        [`service_id=${svc}`, ['Bob']],
        ['created_after=2026-03-02', ['Bob', 'Cy']],
        ['created_before=2026-03-02', ['Ann', 'Bob']],
        ['created_after=2026-03-02&created_before=2026-03-02', ['Bob']],
      ];
      for (const [query, expected] of cases) {
        const res = await call('GET', `/agents?${query}`);
        expect(res.status, query).toBe(200);
        expect(names(res.body), query).toEqual(expected);
        expect(res.body.pagination.total, query).toBe(expected.length);
      }
    });

    it('reads created_after and created_before as whole days in the site timezone', async () => {
      // 20:00 UTC on 1 March is 09:00 on 2 March in Auckland (UTC+13 then).
      await insertAgent(t.db, { first_name: 'Late', created_at: '2026-03-01T20:00:00.000Z' });
      expect(names((await call('GET', '/agents?created_after=2026-03-02')).body)).toEqual([]);
      expect(names((await call('GET', '/agents?created_before=2026-03-01')).body)).toEqual(['Late']);
      await t.db.updateTable('settings').set({ value: 'Pacific/Auckland' }).where('key', '=', 'timezone').execute();
      try {
        expect(names((await call('GET', '/agents?created_after=2026-03-02')).body)).toEqual(['Late']);
        expect(names((await call('GET', '/agents?created_before=2026-03-01')).body)).toEqual([]);
        expect((await call('GET', '/agents')).body.data[0].created_at).toBe('2026-03-02 09:00:00');
      } finally {
        await t.db.updateTable('settings').set({ value: 'UTC' }).where('key', '=', 'timezone').execute();
      }
    });

    it('sorts by each order_by in both directions', async () => {
      await insertAgent(t.db, { first_name: 'b', last_name: 'Z', email: 'c@x.test', status: 'disabled', created_at: '2026-01-02T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
      await insertAgent(t.db, { first_name: 'C', last_name: 'y', email: 'a@x.test', status: 'active', created_at: '2026-01-03T00:00:00.000Z', updated_at: '2026-01-03T00:00:00.000Z' });
      await insertAgent(t.db, { first_name: 'a', last_name: 'X', email: 'B@x.test', status: 'active', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z' });
      const cases: [string, string[]][] = [
        ['', ['a', 'b', 'C']],
        ['order=desc', ['C', 'b', 'a']],
        ['order_by=id', ['b', 'C', 'a']],
        ['order_by=id&order=DESC', ['a', 'C', 'b']],
        ['order_by=last_name', ['a', 'C', 'b']],
        ['order_by=email', ['C', 'a', 'b']],
        ['order_by=created_at', ['a', 'b', 'C']],
        ['order_by=updated_at&order=desc', ['C', 'a', 'b']],
        ['order_by=status', ['C', 'a', 'b']],
      ];
      for (const [query, expected] of cases) {
        const res = await call('GET', `/agents?${query}`);
        expect(names(res.body), query).toEqual(expected);
      }
    });

    it('include=services shows each connected service with is_custom_* from the connection', async () => {
      const agent = await insertAgent(t.db);
      const plain = await insertService(t.db, { name: 'Plain' });
      const custom = await insertService(t.db, { name: 'Custom' });
      await t.db.insertInto('agent_services').values({ agent_id: agent, service_id: plain, custom_price_cents: null, custom_duration: null, custom_hours: null }).execute();
      await t.db
        .insertInto('agent_services')
        .values({ agent_id: agent, service_id: custom, custom_price_cents: 4250, custom_duration: 45, custom_hours: null })
        .execute();
      const without = await call('GET', '/agents');
      expect(without.body.data[0]).not.toHaveProperty('services');
      const res = await call('GET', '/agents?include=services');
      expect(res.body.data[0].services).toEqual([
        { id: plain, name: 'Plain', is_custom_hours: false, is_custom_price: false, is_custom_duration: false, custom_price: null, custom_duration: null, custom_hours: null, buffer_before: null, buffer_after: null },
        { id: custom, name: 'Custom', is_custom_hours: false, is_custom_price: true, is_custom_duration: true, custom_price: '42.50', custom_duration: 45, custom_hours: null, buffer_before: null, buffer_after: null },
      ]);
      const both = await call('GET', '/agents?include=services,locations');
      expect(both.body.data[0].locations).toEqual([]);
    });
  });

  describe('GET /agents/{id}', () => {
    it('answers the agent in envelope B, 404 agent_not_found for an unknown id, 400 for a malformed one', async () => {
      const id = await insertAgent(t.db, { first_name: 'Solo' });
      const res = await call('GET', `/agents/${id}?include=services`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: { id, first_name: 'Solo', services: [] } });
      const missing = await call('GET', `/agents/${id + 1000}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('agent_not_found');
      const malformed = await call('GET', '/agents/abc');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.details).toHaveProperty('id');
    });
  });

  describe('POST /agents', () => {
    it('creates an agent with connections, custom values and features given as an array', async () => {
      const svc = await insertService(t.db, { name: 'Cut' });
      const other = await insertService(t.db, { name: 'Dye' });
      const loc = await insertLocation(t.db, { name: 'Main' });
      const res = await call('POST', '/agents', {
        first_name: ' Ann ',
        last_name: 'Lee',
        email: 'ann@example.com',
        features: [{ label: 'Languages', value: 'EN, DE' }],
        service_ids: [other],
        location_ids: [loc, loc],
        services: [{ service_id: svc, custom_price: '39.5', custom_duration: 40, custom_hours: { monday: [{ start: '09:00', end: '12:00' }] } }],
      });
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.message).toEqual(expect.any(String));
      const agent = res.body.data;
      expect(agent).toMatchObject({ first_name: 'Ann', display_name: 'Ann Lee', status: 'active', phone: null, bio: null });
      expect(JSON.parse(agent.features)).toEqual([{ label: 'Languages', value: 'EN, DE' }]);
      expect(agent.locations).toEqual([{ id: loc, name: 'Main' }]);
      const cut = agent.services.find((s: { id: number }) => s.id === svc);
      expect(cut).toMatchObject({ is_custom_price: true, is_custom_duration: true, is_custom_hours: true, custom_price: '39.50', custom_duration: 40 });
      expect(cut.custom_hours).toEqual({ monday: [{ start: '09:00', end: '12:00' }], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] });
      expect(agent.services.find((s: { id: number }) => s.id === other)).toMatchObject({ is_custom_price: false, is_custom_hours: false });
      const stored = await t.db.selectFrom('agent_services').selectAll().where('agent_id', '=', agent.id).where('service_id', '=', svc).executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ custom_price_cents: 3950, custom_duration: 40 });
    });

    it('accepts features as a JSON-encoded string and returns that string', async () => {
      const features = '[{"label":"Years","value":"12"}]';
      const res = await call('POST', '/agents', { first_name: 'A', last_name: 'B', email: 'a@b.test', features });
      expect(res.status).toBe(201);
      expect(res.body.data.features).toBe(features);
      expect(res.body.data.display_name).toBe('A B');
    });

    it('answers 400 invalid_request for missing or wrong-typed fields and unknown references', async () => {
      const missing = await call('POST', '/agents', { first_name: 'A' });
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe('invalid_request');
      expect(Object.keys(missing.body.error.details).sort()).toEqual(['email', 'last_name']);
      const status = await call('POST', '/agents', { first_name: 'A', last_name: 'B', email: 'a@b.test', status: 'retired' });
      expect(status.status).toBe(400);
      expect(status.body.error.details).toHaveProperty('status');
      const unknown = await call('POST', '/agents', { first_name: 'A', last_name: 'B', email: 'a@b.test', service_ids: [9999], location_ids: [8888], services: [{ service_id: 7777 }] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.details).toEqual({
        service_ids: expect.stringContaining('9999'),
        services: expect.stringContaining('7777'),
        location_ids: expect.stringContaining('8888'),
      });
      expect(await t.db.selectFrom('agents').selectAll().execute()).toEqual([]);
    });

    it('answers 422 validation_failed with details per field for broken field rules', async () => {
      const svc = await insertService(t.db);
      const res = await call('POST', '/agents', {
        first_name: '  ',
        last_name: 'x'.repeat(101),
        email: 'not-an-email',
        phone: 'call me',
        features: '{"label":"not a list"}',
        services: [
          { service_id: svc, custom_price: -1, custom_duration: 0, custom_hours: { monday: [{ start: '9:00', end: '12:00' }], someday: [] } },
          { service_id: svc },
        ],
      });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(Object.keys(res.body.error.details).sort()).toEqual(
        [
          'first_name',
          'last_name',
          'email',
          'phone',
          'features',
          'services.0.custom_price',
          'services.0.custom_duration',
          'services.0.custom_hours.monday.0.start',
          'services.0.custom_hours.someday',
          'services.1.service_id',
        ].sort(),
      );
      expect(await t.db.selectFrom('agents').selectAll().execute()).toEqual([]);
    });

    it('needs agents:write', async () => {
      const key = await t.key({ permissions: ['agents:read'] });
      const res = await call('POST', '/agents', { first_name: 'A', last_name: 'B', email: 'a@b.test' }, key);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect((await call('GET', '/agents', undefined, key)).status).toBe(200);
    });
  });

  describe('PUT /agents/{id}', () => {
    it('changes only the fields sent; plain service ids keep stored custom values; location_ids replace the set', async () => {
      const a = await insertService(t.db, { name: 'A' });
      const b = await insertService(t.db, { name: 'B' });
      const l1 = await insertLocation(t.db);
      const l2 = await insertLocation(t.db);
      const created = await call('POST', '/agents', {
        first_name: 'Ann',
        last_name: 'Lee',
        email: 'ann@example.com',
        phone: '123 456',
        location_ids: [l1],
        services: [{ service_id: a, custom_price: 10 }, { service_id: b, custom_duration: 20 }],
      });
      const id = created.body.data.id;
      const res = await call('PUT', `/agents/${id}`, { last_name: 'Long', phone: null, status: 'disabled', service_ids: [a], location_ids: [l2] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ first_name: 'Ann', last_name: 'Long', phone: null, status: 'disabled', email: 'ann@example.com' });
      expect(res.body.data.services).toEqual([expect.objectContaining({ id: a, is_custom_price: true, custom_price: '10.00' })]);
      expect(res.body.data.locations).toEqual([expect.objectContaining({ id: l2 })]);

      const cleared = await call('PUT', `/agents/${id}`, { services: [{ service_id: a }] });
      expect(cleared.body.data.services).toEqual([expect.objectContaining({ id: a, is_custom_price: false })]);
      const untouched = await call('PUT', `/agents/${id}`, { bio: 'Hello' });
      expect(untouched.body.data).not.toHaveProperty('services');
      const read = await call('GET', `/agents/${id}?include=services,locations`);
      expect(read.body.data).toMatchObject({ bio: 'Hello', services: [{ id: a }], locations: [{ id: l2 }] });
    });

    it('answers 404 for an unknown agent and 422 for broken rules', async () => {
      const missing = await call('PUT', '/agents/999999', { first_name: 'X' });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('agent_not_found');
      const id = await insertAgent(t.db);
      const bad = await call('PUT', `/agents/${id}`, { email: 'nope', first_name: '' });
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.error.details).sort()).toEqual(['email', 'first_name']);
    });
  });

  describe('DELETE /agents/{id}', () => {
    it('deletes an agent without bookings, with its connections, and clears customers preferring it', async () => {
      const id = await insertAgent(t.db);
      const svc = await insertService(t.db);
      await connectAgent(t.db, id, { serviceIds: [svc] });
      const customer = await insertCustomer(t.db, { preferred_agent_id: id });
      const res = await call('DELETE', `/agents/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: { id, deleted: true } });
      expect(await t.db.selectFrom('agent_services').selectAll().execute()).toEqual([]);
      const pref = await t.db.selectFrom('customers').select('preferred_agent_id').where('id', '=', customer).executeTakeFirstOrThrow();
      expect(pref.preferred_agent_id).toBeNull();
      expect((await call('DELETE', `/agents/${id}`)).status).toBe(404);
    });

    it('answers 409 agent_has_bookings while an upcoming booking that is not cancelled needs it', async () => {
      const refs = { serviceId: await insertService(t.db), locationId: await insertLocation(t.db), customerId: await insertCustomer(t.db) };
      const id = await insertAgent(t.db);
      await insertBooking(t.db, { ...refs, agentId: id });
      const res = await call('DELETE', `/agents/${id}`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'agent_has_bookings', details: { upcoming_bookings: 1 } });
      expect((await call('GET', `/agents/${id}`)).status).toBe(200);
    });

    it('keeps an agent that only past or cancelled bookings refer to as their history, gone from the API', async () => {
      const svc = await insertService(t.db);
      const loc = await insertLocation(t.db);
      const refs = { serviceId: svc, locationId: loc, customerId: await insertCustomer(t.db) };
      const past = await insertAgent(t.db, { first_name: 'Past' });
      const cancelled = await insertAgent(t.db, { first_name: 'Cancelled' });
      await insertAgent(t.db, { first_name: 'Stays' });
      await connectAgent(t.db, past, { serviceIds: [svc], locationIds: [loc] });
      const old = { start_date: '2020-01-06', end_date: '2020-01-06', start_at: '2020-01-06T10:00:00.000Z', end_at: '2020-01-06T11:00:00.000Z' };
      await insertBooking(t.db, { ...refs, agentId: past }, old);
      await insertBooking(t.db, { ...refs, agentId: cancelled }, { status: 'cancelled' });

      for (const id of [past, cancelled]) {
        const res = await call('DELETE', `/agents/${id}`);
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual({ id, deleted: true });
        expect((await call('GET', `/agents/${id}`)).status).toBe(404);
        expect((await call('GET', `/agents/${id}/schedule`)).status).toBe(404);
        expect((await call('PUT', `/agents/${id}`, { bio: 'x' })).status).toBe(404);
        expect((await call('DELETE', `/agents/${id}`)).status).toBe(404);
      }
      expect(names((await call('GET', '/agents')).body)).toEqual(['Stays']);
      const kept = await t.db.selectFrom('agents').select(['status', 'deleted_at']).where('id', '=', past).executeTakeFirstOrThrow();
      expect(kept.status).toBe('disabled');
      expect(kept.deleted_at).not.toBeNull();
      expect(await t.db.selectFrom('agent_services').selectAll().execute()).toEqual([]);
      expect(await t.db.selectFrom('agent_locations').selectAll().execute()).toEqual([]);
      expect(await t.db.selectFrom('bookings').select('id').where('agent_id', '=', past).execute()).toHaveLength(1);
      const unknown = await call('POST', '/services', { name: 'X', agent_ids: [past] });
      expect(unknown.status).toBe(400);
    });
  });
});
