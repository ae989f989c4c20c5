import { describe, expect, it } from 'vitest';
import { insertBooking } from '../fixtures.js';
import { MONDAY, newSite, requester, type Site } from '../bookings/setup.js';
import { DIALECTS, useTestApp } from '../helper.js';

describe.each(DIALECTS)('strict input: fields an operation does not define (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = requester(t);
  let site: Site;
  let bookingId: number;

  it('sets up a site with a booking', async () => {
    site = await newSite(t.db);
    bookingId = await insertBooking(t.db, site);
  });

  it('refuses a misspelt body field, naming it and the field it was likely meant to be', async () => {
    const res = await call('POST', '/customers', { first_name: 'Ann', last_name: 'Lee', emial: 'ann@example.test' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', details: { emial: 'is not a field of this operation; did you mean email?' } });
    expect((await call('GET', '/customers?search=ann')).json().data).toEqual([]);
  });

  it('refuses an unknown field of an update and changes nothing', async () => {
    const res = await call('PUT', `/bookings/${bookingId}`, { start_tme: '11:00' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.details).toEqual({ start_tme: 'is not a field of this operation; did you mean start_time?' });
    expect((await call('GET', `/bookings/${bookingId}`)).json().data.start_time).toBe('10:00');
  });

  it('names every unknown field at once, a nested one by its path, and one near nothing without a guess', async () => {
    const res = await call('POST', '/coupons', { code: 'TEN', percent_off: 10, nmae: 'x' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.details).toMatchObject({ percent_off: 'is not a field of this operation', nmae: 'is not a field of this operation; did you mean name?' });
    const nested = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      location_id: site.locationId,
      start_date: MONDAY,
      start_time: '12:00',
      customer: { first_name: 'Bo', last_name: 'Ek', emal: 'bo@example.test' },
    });
    expect(nested.statusCode, nested.body).toBe(400);
    expect(nested.json().error.details).toMatchObject({ 'customer.emal': 'is not a field of this operation; did you mean email?' });
  });

  it('refuses an unknown query parameter, also on an operation that declares none', async () => {
    const res = await call('GET', '/bookings?stauts=cancelled');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.details).toEqual({ stauts: 'is not a field of this operation; did you mean status?' });
    const none = await call('GET', `/bookings/${bookingId}?expand=all`);
    expect(none.statusCode, none.body).toBe(400);
    expect(none.json().error.details).toEqual({ expand: 'is not a field of this operation' });
  });

  it('refuses a body with fields on an operation that takes none, and takes an empty one', async () => {
    const res = await call('DELETE', `/bookings/${bookingId}`, { force: true });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.details).toEqual({ force: 'is not a field of this operation (it takes no body)' });
    expect((await call('GET', `/bookings/${bookingId}`)).statusCode).toBe(200);
  });

  it("keeps the spec's own forms valid: dotted customer keys, include_meta, metadata maps", async () => {
    const created = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      location_id: site.locationId,
      start_date: MONDAY,
      start_time: '13:00',
      'customer.first_name': 'Dot',
      'customer.last_name': 'Ted',
      'customer.email': `dotted.${dialect}@example.test`,
      meta: { any_key: 'any value' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const listed = await call('GET', '/bookings?include_meta=true');
    expect(listed.statusCode, listed.body).toBe(200);
  });

  it('refuses an unknown field of a bulk element and of a payment, each in its own envelope', async () => {
    const bulk = await call('POST', '/bookings/bulk', {
      bookings: [{ service_id: site.serviceId, agent_id: site.agentId, location_id: site.locationId, start_date: MONDAY, start_time: '14:00', customer_id: site.customerId, notez: 'x' }],
    });
    expect(JSON.stringify(bulk.json()), bulk.body).toContain('did you mean notes?');
    const payment = await call('POST', '/payments', { order_id: 1, amount: 5, payment_methd: 'cash' });
    expect(payment.statusCode, payment.body).toBe(400);
    expect(payment.json()).toMatchObject({ success: false });
    expect(JSON.stringify(payment.json())).toContain('payment_methd is not a field of this operation; did you mean payment_method?');
  });

  it('says "must be one of" with the allowed values for booking enums', async () => {
    const status = await call('GET', '/bookings?status=gone');
    expect(status.statusCode, status.body).toBe(400);
    expect(status.json().error.details.status).toMatch(/^must be one of pending, confirmed, approved, cancelled/);
    const sort = await call('GET', '/bookings?sort=sideways');
    expect(sort.json().error.details.sort).toMatch(/^must be one of /);
    const update = await call('PUT', `/bookings/${bookingId}`, { status: 'gone' });
    expect(update.json().error.details.status).toMatch(/^must be one of /);
  });
});
