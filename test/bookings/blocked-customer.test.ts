import { describe, expect, it } from 'vitest';
import { insertCustomer } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { MONDAY, newSite, requester, TUESDAY } from './setup.js';

describe.each(DIALECTS)('who may be booked (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = requester(t);

  const expectBlocked = (res: { statusCode: number; body: string; json(): Json }) => {
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().error.code).toBe('validation_failed');
    expect(res.json().error.details.customer_id).toMatch(/is blocked/);
  };

  it('refuses a blocked customer on POST, bulk and PUT naming them, with 422 naming customer_id; inactive and pending ones are booked', async () => {
    const site = await newSite(t.db);
    const [blocked, inactive, pending] = [
      await insertCustomer(t.db, { status: 'blocked' }),
      await insertCustomer(t.db, { status: 'inactive' }),
      await insertCustomer(t.db, { status: 'pending' }),
    ];
    const body = (customer_id: number, start_time: string) => ({ service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time, customer_id });

    expectBlocked(await call('POST', '/bookings', body(blocked, '09:00')));
    const [ofInactive, ofPending] = [await call('POST', '/bookings', body(inactive, '09:00')), await call('POST', '/bookings', body(pending, '10:00'))];
    expect([ofInactive.statusCode, ofPending.statusCode]).toEqual([201, 201]);

    const bulk = await call('POST', '/bookings/bulk', { bookings: [body(blocked, '11:00'), body(inactive, '12:00')] });
    expect(bulk.statusCode, bulk.body).toBe(207);
    expect(bulk.json().results.success).toMatchObject([{ index: 1 }]);
    expect(bulk.json().results.errors).toMatchObject([{ index: 0, code: 'validation_failed', error: expect.stringMatching(/customer_id: customer \d+ is blocked/) }]);

    const id = ofInactive.json().data.id as number;
    expectBlocked(await call('PUT', `/bookings/${id}`, { customer_id: blocked }));
    expect((await call('GET', `/bookings/${id}`)).json().data.customer.id).toBe(inactive);
    expect(await t.db.selectFrom('bookings').select('id').where('customer_id', '=', blocked).execute()).toEqual([]);
  });

  it("refuses to move or bring back a blocked customer's booking; it can still be edited and cancelled", async () => {
    const site = await newSite(t.db);
    const created = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '09:00', customer_id: site.customerId });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as number;
    const blocking = await call('PUT', `/customers/${site.customerId}`, { status: 'blocked' });
    expect(blocking.statusCode, blocking.body).toBe(200);

    expectBlocked(await call('PUT', `/bookings/${id}`, { start_date: TUESDAY, start_time: '09:00' }));
    expect((await call('PUT', `/bookings/${id}`, { notes: 'called to say sorry' })).statusCode).toBe(200);
    expect((await call('PUT', `/bookings/${id}`, { status: 'cancelled' })).statusCode).toBe(200);
    expectBlocked(await call('PUT', `/bookings/${id}`, { status: 'approved' }));
    expect((await call('GET', `/bookings/${id}`)).json().data).toMatchObject({ start_date: MONDAY, start_time: '09:00', status: 'cancelled', notes: 'called to say sorry' });
  });
});
