import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { acceptsSent, withSentTypes } from '../../src/http/sent-types.js';
import { API, MONDAY, newSite, requester } from '../bookings/setup.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

describe('acceptsSent', () => {
  it('lets text become any scalar, and keeps numbers, null and booleans as sent', () => {
    expect(acceptsSent(['integer'], '12')).toBe(true);
    expect(acceptsSent(['boolean'], 'true')).toBe(true);
    expect(acceptsSent(['string'], 45)).toBe(false);
    expect(acceptsSent(['string', 'number'], 45)).toBe(true);
    expect(acceptsSent(['number'], null)).toBe(false);
    expect(acceptsSent(['string'], null)).toBe(false);
    expect(acceptsSent(['integer'], true)).toBe(false);
    expect(acceptsSent(['string'], false)).toBe(false);
    expect(acceptsSent(['boolean'], 1)).toBe(false);
    expect(acceptsSent(['null'], '')).toBe(false);
    expect(acceptsSent(['null'], 0)).toBe(false);
    expect(acceptsSent(['string', 'null'], null)).toBe(true);
    expect(acceptsSent(['integer'], { a: 1 })).toBe(true);
  });

  it('lets only decimal text become a number, and no infinite number through', () => {
    for (const text of ['12', '-3', '007']) expect(acceptsSent(['integer'], text)).toBe(true);
    for (const text of ['45.50', '-0.5', '3']) expect(acceptsSent(['number'], text)).toBe(true);
    for (const text of ['', ' ', '\t\n', ' 1 ', '+1', '0x1F', '1e5', '1.0', 'Infinity', '1_000']) expect(acceptsSent(['integer'], text), text).toBe(false);
    for (const text of ['', ' ', '0x10', '1e1', '+1', '.5', '5.', 'NaN']) expect(acceptsSent(['number'], text), text).toBe(false);
    expect(acceptsSent(['integer', 'string'], ' ')).toBe(true);
    expect(acceptsSent(['string'], Infinity)).toBe(false);
    expect(acceptsSent(['number'], -Infinity)).toBe(false);
  });
});

describe('withSentTypes', () => {
  it('guards each typed scalar, keeps defaults where Ajv applies them, and leaves the original alone', () => {
    const schema = Type.Object({ a: Type.Optional(Type.Boolean({ default: false })), b: Type.Union([Type.Integer(), Type.Null()]) });
    const before = JSON.stringify(schema);
    const guarded: Json = withSentTypes(schema);
    expect(JSON.stringify(schema)).toBe(before);
    expect(guarded.properties.a).toEqual({ default: false, if: { sentAs: ['boolean'] }, then: { type: 'boolean' }, else: { sentAs: ['boolean'] } });
    expect(guarded.properties.b.anyOf[1]).toEqual({ if: { sentAs: ['null'] }, then: { type: 'null' }, else: { sentAs: ['null'] } });
  });
});

describe.each(DIALECTS)('body fields keep the JSON type they were sent as (%s)', (dialect) => {
  const t = useTestApp(dialect);

  it('refuses null and booleans for ids and numbers (400), and still takes ids as digit strings', async () => {
    const call = requester(t);
    const site = await newSite(t.db);
    const booking = { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY };
    const refused = await call('POST', '/bookings', { ...booking, start_time: '09:00', service_id: true, agent_id: false, duration: null });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({
      code: 'invalid_request',
      details: { service_id: 'must be integer', agent_id: expect.stringMatching(/^must be/), duration: 'must be integer' },
    });
    expect((await call('POST', '/bookings', { ...booking, start_time: '09:00', send_confirmation: 1 })).json().error.details).toEqual({ send_confirmation: 'must be boolean' });
    expect(await t.db.selectFrom('bookings').select('id').where('agent_id', '=', site.agentId).execute()).toEqual([]);

    const created = await call('POST', '/bookings', { ...booking, start_time: '10:00', service_id: String(site.serviceId), duration: '30', send_confirmation: 'false' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data).toMatchObject({ service: { id: site.serviceId }, duration: 30 });
  });

  it('checks each bulk element as POST /bookings checks its body: no true, fraction or null read as an id, a length or text', async () => {
    const call = requester(t);
    const site = await newSite(t.db);
    const element = { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY };
    const res = await call('POST', '/bookings/bulk', {
      bookings: [
        { ...element, start_time: '09:00', service_id: true, agent_id: 1.9, location_id: true, customer_id: 1.7, duration: true },
        { ...element, start_time: '10:00', notes: true },
        { ...element, start_time: '11:00', notes: null },
        { ...element, start_time: '12:00', duration: '1e1' },
        { ...element, start_time: '13:00', service_id: String(site.serviceId), duration: '30' },
      ],
    });
    expect(res.statusCode, res.body).toBe(207);
    const { success, errors } = res.json().results;
    expect(errors.map((e: { index: number }) => e.index)).toEqual([0, 1, 2, 3]);
    expect(errors.every((e: Json) => e.code === 'invalid_request')).toBe(true);
    expect(errors[0].error).toMatch(/^Invalid booking: service_id, agent_id, customer_id, location_id, duration/);
    expect(errors[1].error).toMatch(/^Invalid booking: notes/);
    expect(errors[0].booking_data).toMatchObject({ service_id: true, agent_id: 1.9 });
    expect(success.map((s: { index: number }) => s.index)).toEqual([4]);
    const rows = await t.db.selectFrom('bookings').select(['start_time', 'duration', 'notes']).where('agent_id', '=', site.agentId).execute();
    expect(rows).toEqual([{ start_time: '13:00', duration: 30, notes: null }]);
  });

  it('refuses a number where the field is text (400), in a body, a nested object and meta', async () => {
    const call = requester(t);
    const site = await newSite(t.db);
    const location = await call('POST', '/locations', { name: 5 });
    expect(location.statusCode).toBe(400);
    expect(location.json().error).toMatchObject({ code: 'invalid_request', details: { name: expect.stringMatching(/^must be string/) } });
    const customer = await call('POST', '/customers', { first_name: 12345, last_name: 'Doe', email: 'numbers@example.com' });
    expect(customer.statusCode).toBe(400);
    expect(customer.json().error.details).toHaveProperty('first_name');
    const booking = { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '09:00' };
    const nested = await call('POST', '/bookings', { ...booking, customer: { first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com', phone: 3012345 } });
    expect(nested.statusCode).toBe(400);
    const created = await call('POST', '/bookings', { ...booking, customer_id: site.customerId, meta: { room: '5' } });
    expect(created.statusCode, created.body).toBe(201);
    const id: number = created.json().data.id;
    const meta = await call('PUT', `/bookings/${id}`, { meta: { room: 5 } });
    expect(meta.statusCode).toBe(400);
    const read = await call('GET', `/bookings?include_meta=true&agent_id=${site.agentId}`);
    expect(read.json().data[0].meta).toEqual({ room: '5' });
    expect(await t.db.selectFrom('locations').select('id').where('name', '=', '5').execute()).toEqual([]);
  });

  it('takes numbers sent as text only when written in decimal digits', async () => {
    const call = requester(t);
    const site = await newSite(t.db);
    const booking = { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time: '09:00' };
    const refused = await call('POST', '/bookings', { ...booking, service_id: '0x1', location_id: ' ', customer_id: '+1', duration: '1e2' });
    expect(refused.statusCode).toBe(400);
    expect(Object.keys(refused.json().error.details).sort()).toEqual(['customer_id', 'duration', 'location_id', 'service_id']);
    const coupon = await call('POST', '/coupons', { code: 'WS1', name: 'ws', discount_value: '0x10', usage_limit: ' ' });
    expect(coupon.statusCode).toBe(400);
    expect(Object.keys(coupon.json().error.details).sort()).toEqual(['discount_value', 'usage_limit']);
    expect((await call('PUT', '/settings', { min_lead_minutes: '\t\n' })).statusCode).toBe(400);
    expect((await call('PUT', '/settings', { min_lead_minutes: '15' })).json().data).toMatchObject({ min_lead_minutes: 15 });
    const created = await call('POST', '/bookings', { ...booking, service_id: String(site.serviceId), duration: '45', price: '12.50' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data).toMatchObject({ duration: 45, price: '12.50' });
  });

  it('refuses a number too large to be finite (1e999), for a text field and for a number', async () => {
    const call = requester(t);
    const key = await t.key();
    const raw = (url: string, body: string) =>
      t.app.inject({ method: 'POST', url: `${API}${url}`, headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: body });
    const agent = await raw('/agents', '{"first_name":1e999,"last_name":"Agent","email":"inf@example.com"}');
    expect(agent.statusCode).toBe(400);
    expect(agent.json().error.details).toHaveProperty('first_name');
    const service = await raw('/services', '{"name":"Inf","price_min":1e999}');
    expect(service.statusCode).toBe(400);
    expect(service.json().error.details).toHaveProperty('price_min');
    expect((await call('GET', '/agents?search=Infinity')).json().data).toEqual([]);
  });

  it('a service price sent as null or true is refused, not stored as 0.00 or 1.00', async () => {
    const call = requester(t);
    const created = await call('POST', '/services', { name: 'Cut', price_min: '35', charge_amount: 40 });
    expect(created.statusCode).toBe(201);
    const id: number = created.json().data.id;
    const refused = await call('PUT', `/services/${id}`, { price_min: null, charge_amount: true, order_number: null });
    expect(refused.statusCode).toBe(400);
    expect(Object.keys(refused.json().error.details).sort()).toEqual(['charge_amount', 'order_number', 'price_min']);
    expect((await call('POST', '/services', { name: 'Coerce', price_min: true })).statusCode).toBe(400);
    expect((await call('GET', `/services/${id}`)).json().data).toMatchObject({ price_min: '35.00', charge_amount: '40.00', order_number: 0 });
  });

  it("an agent's custom price or duration sent as null clears it; false is refused", async () => {
    const call = requester(t);
    const site = await newSite(t.db);
    const connect = (link: object) => call('PUT', `/agents/${site.agentId}`, { services: [{ service_id: site.serviceId, ...link }] });
    expect((await connect({ custom_price: 10, custom_duration: 20 })).json().data.services[0]).toMatchObject({ custom_price: '10.00', custom_duration: 20 });
    const cleared = await connect({ custom_price: null, custom_duration: null });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data.services[0]).toMatchObject({ is_custom_price: false, custom_price: null, is_custom_duration: false, custom_duration: null });
    expect((await connect({ custom_price: false })).statusCode).toBe(400);

    const booked = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time: '09:00' });
    expect(booked.json().data.price).toBe('45.00');
  });

  it('booking metadata: "" is a value like any other; only null removes a key', async () => {
    const call = requester(t);
    const site = await newSite(t.db);
    const created = await call('POST', '/bookings', {
      service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time: '09:00', meta: { channel: 'web', ref: '' },
    });
    const id: number = created.json().data.id;
    const updated = await call('PUT', `/bookings/${id}`, { meta: { channel: '', ref: null } });
    expect(updated.statusCode, updated.body).toBe(200);
    const read = await t.app.inject({ method: 'GET', url: `${API}/bookings?include_meta=true`, headers: { 'x-api-key': await t.key() } });
    expect(read.json().data.find((b: Json) => b.id === id).meta).toEqual({ channel: '' });
  });
});
