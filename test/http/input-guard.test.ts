import { describe, expect, it } from 'vitest';
import { API, MONDAY, newSite, requester, type Site } from '../bookings/setup.js';
import { MAX_NESTING } from '../../src/http/input-guard.js';
import { DIALECTS, useTestApp } from '../helper.js';

const mondayAtTen = (site: Site) => ({
  service_id: site.serviceId,
  agent_id: site.agentId,
  location_id: site.locationId,
  customer_id: site.customerId,
  start_date: MONDAY,
  start_time: '10:00',
});

describe.each(DIALECTS)('input no column can store (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = requester(t);

  it('refuses Infinity in a number query parameter, which Ajv would coerce from text and then let past maximum', async () => {
    for (const url of ['/bookings?price_min=Infinity', '/services?price_max=1e400', '/bookings?price_max=-Infinity']) {
      const res = await call('GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code, url).toBe('invalid_request');
      expect(Object.values(res.json().error.details), url).toEqual(['must be number']);
    }
  });

  it('takes integers in a path or query only as digits: a malformed id is 400, not another record', async () => {
    const site = await newSite(t.db);
    expect((await call('GET', `/agents/0${site.agentId}`)).statusCode).toBe(200);
    for (const id of ['0x1', '1e0', '+1', '%201', '1.0', 'Infinity', '1%00']) {
      const res = await call('GET', `/agents/${id}`);
      expect(res.statusCode, id).toBe(400);
      expect(res.json().error, id).toMatchObject({ code: 'invalid_request', details: { id: 'must be integer' } });
    }
    for (const url of ['/bookings?page=Infinity', '/agents?per_page=1e1', '/orders?customer_id=0x1', '/bookings?agent_id=%2B1']) {
      const res = await call('GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(Object.values(res.json().error.details), url).toEqual(['must be integer']);
    }
    const list = await call('GET', '/customers?page=1.0');
    expect(list.statusCode).toBe(400);
    expect(list.json().error).toMatchObject({ code: 'invalid_parameters', details: { page: 'must be integer' } });
    expect((await call('GET', `/bookings?agent_id=${site.agentId}&page=01`)).statusCode).toBe(200);
    // Numbers too, in decimal digits.
    for (const price of ['1e1', '%2B10', '0x10', '%2010', 'Infinity']) {
      const res = await call('GET', `/services?price_min=${price}`);
      expect(res.statusCode, price).toBe(400);
      expect(Object.keys(res.json().error.details), price).toEqual(['price_min']);
    }
    expect((await call('GET', '/services?price_min=10.50&price_max=20')).statusCode).toBe(200);
  });

  it('refuses the NUL character in a query, a path and a nested body field, naming each field', async () => {
    const query = await call('GET', `/agents?search=${encodeURIComponent('a\u0000b')}`);
    expect(query.statusCode).toBe(400);
    expect(query.json().error.details).toEqual({ search: 'must not contain the NUL character' });

    const path = await call('GET', `/coupons/${encodeURIComponent('X\u0000')}`);
    expect(path.statusCode).toBe(400);
    expect(path.json().error.details).toEqual({ code: 'must not contain the NUL character' });

    const site = await newSite(t.db);
    const element = { service_id: site.serviceId, agent_id: site.agentId, location_id: site.locationId, start_date: MONDAY, start_time: '10:00' };
    const body = await call('POST', '/bookings/bulk', {
      bookings: [
        { ...element, customer_id: site.customerId },
        { ...element, start_time: '11:00', customer: { first_name: 'N\u0000', last_name: 'Ul', email: 'nul@example.com' } },
      ],
    });
    expect(body.statusCode).toBe(422);
    expect(body.json().error).toMatchObject({ code: 'validation_failed', details: { 'bookings.1.customer.first_name': 'must not contain the NUL character' } });
    // Refused before any work: the first element was not booked either.
    const list = await call('GET', `/bookings?agent_id=${site.agentId}`);
    expect(list.json().data).toEqual([]);
  });

  it('payments refuse such text in style 2 as an invalid field (400), naming it', async () => {
    const bad = await call('POST', '/payments', { order_id: 1, amount: 1, notes: 'a\u0000b', token: 'x\ud800' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      success: false,
      error: 'Invalid fields: notes must not contain the NUL character; token must be valid Unicode text (a lone surrogate is not)',
    });
  });

  it('refuses the NUL character in an object key, as in a value', async () => {
    const site = await newSite(t.db);
    const res = await call('POST', '/bookings', { ...mondayAtTen(site), meta: { 'a\u0000b': 'v' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { meta: 'has a key that must not contain the NUL character' } });
    expect((await call('GET', `/bookings?agent_id=${site.agentId}`)).json().data).toEqual([]);
  });

  it(`refuses bodies nested deeper than ${MAX_NESTING} levels in each route's error style, however deep`, async () => {
    const site = await newSite(t.db);
    const key = await t.key();
    const send = (method: 'POST' | 'PUT', url: string, payload: string) =>
      t.app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload });
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

    const customer = await send('PUT', `/customers/${site.customerId}`, `{"custom_fields":${nested(20_000)}}`);
    // A customer update answers a broken field rule as 400 customer_update_failed (contract §5, style 3).
    expect(customer.statusCode).toBe(400);
    expect(customer.json()).toMatchObject({ code: 'customer_update_failed', data: { status: 400 } });
    const nul = await send('PUT', `/customers/${site.customerId}`, JSON.stringify({ city: 'x', first_name: 'a\u0000b' }));
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toMatchObject({ code: 'customer_update_failed', data: { status: 400, details: { first_name: expect.stringContaining('NUL') } } });
    const bulk = await send('POST', '/bookings/bulk', `{"bookings":[{"notes":${nested(20_000)}}]}`);
    expect(bulk.statusCode).toBe(422);
    expect(bulk.json().error.details).toEqual({ [`bookings.0.notes${'.a'.repeat(MAX_NESTING - 3)}`]: `must not nest deeper than ${MAX_NESTING} levels` });
    // Payments answer their own validation errors; an array is not a payment.
    const payment = await send('POST', '/payments', `${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    expect(payment.statusCode).toBe(400);
    // Just within the bound is no guard's business: the route's own rules answer.
    const shallow = await send('PUT', `/customers/${site.customerId}`, `{"custom_fields":${nested(MAX_NESTING - 1)}}`);
    expect(shallow.statusCode).toBe(400);
    expect(shallow.json()).toMatchObject({ code: 'customer_update_failed', data: { details: { 'custom_fields.a': expect.stringMatching(/^must be a string/) } } });
  });

  it('refuses text with a lone surrogate, which neither engine stores as sent', async () => {
    const res = await call('POST', '/coupons', { code: 'HALF\ud800', name: 'Half a character', discount_value: 5 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { code: 'must be valid Unicode text (a lone surrogate is not)' } });
    // A character outside the basic plane (a surrogate pair) is text like any other.
    const pair = await call('POST', '/coupons', { code: 'SMILE', name: 'Smile \u{1F600}', discount_value: 5 });
    expect(pair.statusCode).toBe(201);
    expect(pair.json().data.name).toBe('Smile \u{1F600}');
  });

  it('refuses ids beyond the 32-bit columns in the schema, on every module that takes them', async () => {
    const site = await newSite(t.db);
    const tooLarge = 2_147_483_648;
    const cases: [string, string, object | undefined, string][] = [
      ['POST', '/bookings', { service_id: site.serviceId, agent_id: tooLarge, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId }, 'agent_id'],
      ['PUT', `/agents/${site.agentId}`, { location_ids: [tooLarge] }, 'location_ids.0'],
      ['POST', '/services', { name: 'Big', order_number: tooLarge }, 'order_number'],
      ['GET', `/services?category_id=${tooLarge}`, undefined, 'category_id'],
      ['GET', `/availability?service_id=${site.serviceId}&date=${MONDAY}&agent_id=${tooLarge}`, undefined, 'agent_id'],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await call(method as 'GET', url, payload);
      expect(res.statusCode, url).toBe(400);
      expect(Object.keys(res.json().error.details), url).toContain(field);
    }
  });

  it('refuses a booking price whose cents no column can hold', async () => {
    const site = await newSite(t.db);
    const created = await call('POST', '/bookings', mondayAtTen(site));
    const res = await call('PUT', `/bookings/${created.json().data.id}`, { price: 21_474_837 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details).toEqual({ price: 'must be at most 10000000' });
  });
});
