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

  it('finds text as stored, in upper or lower case, whatever its letters (final Σ, İ), and sorts alike on both engines', async () => {
    const names = (res: { json: () => { data: { first_name?: string; last_name?: string; name?: string }[] } }) =>
      res.json().data.map((row) => row.last_name ?? row.name ?? row.first_name);
    const greek = await call('POST', '/customers', { first_name: 'Nikos', last_name: 'ΠΑΠΑΔΟΠΟΥΛΟΣ' });
    const turkish = await call('POST', '/customers', { first_name: 'İlker', last_name: 'Yilmaz' });
    expect([greek.statusCode, turkish.statusCode]).toEqual([201, 201]);
    for (const search of ['ΠΑΠΑΔΟΠΟΥΛΟΣ', 'παπαδοπουλοσ', 'ΠΑΔΟΠ']) {
      expect(names(await call('GET', `/customers?search=${encodeURIComponent(search)}`)), search).toEqual(['ΠΑΠΑΔΟΠΟΥΛΟΣ']);
    }
    for (const search of ['İlker', 'ilker', 'İL']) {
      expect((await call('GET', `/customers?first_name=${encodeURIComponent(search)}`)).json().data.map((c: { id: number }) => c.id), search).toEqual([turkish.json().data.id]);
    }
    // A final ς is the σ that lower() makes of Σ: "Παπαδοπουλος" is found as ΠΑΠΑΔΟΠΟΥΛΟΣ and the other way round.
    const mixed = await call('POST', '/customers', { first_name: 'Eleni', last_name: 'Παπαδοπουλος' });
    expect(mixed.statusCode).toBe(201);
    for (const search of ['ΠΑΠΑΔΟΠΟΥΛΟΣ', 'ΠΟΥΛΟΣ', 'παπαδοπουλος', 'παπαδοπουλοσ']) {
      expect(names(await call('GET', `/customers?search=${encodeURIComponent(search)}`)).sort(), search).toEqual(['Παπαδοπουλος', 'ΠΑΠΑΔΟΠΟΥΛΟΣ'].sort());
    }
    expect((await call('POST', '/services', { name: 'ΜΑΣΑΖ ΣΩΜΑΤΟΣ' })).statusCode).toBe(201);
    expect(names(await call('GET', `/services?search=${encodeURIComponent('ΣΩΜΑΤΟΣ')}`))).toEqual(['ΜΑΣΑΖ ΣΩΜΑΤΟΣ']);

    // Sorted by lower case with the id after it: "İlker" and "ilker" are the same name, in id order.
    const first = await call('POST', '/agents', { first_name: 'İlker', last_name: 'One', email: `one.${dialect}@example.test` });
    const second = await call('POST', '/agents', { first_name: 'ilker', last_name: 'Two', email: `two.${dialect}@example.test` });
    const sorted = await call('GET', '/agents?order_by=first_name&search=lker');
    expect(sorted.json().data.map((a: { id: number }) => a.id)).toEqual([first.json().data.id, second.json().data.id]);
  });
});
