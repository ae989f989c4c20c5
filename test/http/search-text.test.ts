import { describe, expect, it } from 'vitest';
import { newSite, requester } from '../bookings/setup.js';
import { insertBooking } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';

describe.each(DIALECTS)('text searched as a part of stored text (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = requester(t);

  // SQLite refuses LIKE patterns over 50,000 bytes; the lists must refuse such text first.
  const LONG = 'a'.repeat(50_001);

  it.each([
    ['/agents', 'search'],
    ['/agents', 'phone'],
    ['/services', 'search'],
    ['/locations', 'search'],
    ['/bookings', 'booking_code'],
    ['/bookings', 'search'],
    ['/bookings', 'customer_email'],
    ['/bookings', 'customer_phone'],
    ['/bookings?meta_key=k&', 'meta_value'],
  ])('%s %s: over its length is 400 naming it, never a 500', async (path, param) => {
    const site = await newSite(t.db);
    await insertBooking(t.db, site);
    const url = `${path}${path.includes('?') ? '' : '?'}${param}=`;
    const res = await call('GET', `${url}${LONG}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(Object.keys(res.json().error.details)).toEqual([param]);
    expect((await call('GET', `${url}${'a'.repeat(200)}`)).statusCode).toBe(200);
  });
});
