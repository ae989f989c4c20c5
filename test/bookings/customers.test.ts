import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { insertBookingCustomers, updateBookingCustomer } from '../../src/modules/bookings/customers.js';
import { insertCustomer } from '../fixtures.js';
import { DIALECTS, useTestApp, TEST_ACTOR } from '../helper.js';

describe.each(DIALECTS)('customers created and changed by bookings (%s)', (dialect) => {
  const t = useTestApp(dialect);

  it('inserts an active customer with a unique code and a case-insensitive email key', async () => {
    const [id, other] = await insertBookingCustomers(t.db, TEST_ACTOR, 'UTC', [
      { first_name: 'Ada', last_name: 'Lovelace', email: 'Ada@Example.test', phone: null },
      { first_name: 'B', last_name: 'C', email: 'b@example.test', phone: null },
    ]);
    const row = await t.db.selectFrom('customers').selectAll().where('id', '=', id!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ email: 'Ada@Example.test', email_lower: 'ada@example.test', status: 'active', is_guest: 0, custom_fields: '{}' });
    const codes = await t.db.selectFrom('customers').select('customer_code').where('id', 'in', [id!, other!]).execute();
    expect(new Set(codes.map((c) => c.customer_code)).size).toBe(2);
  });

  it('turns a write that the unique email index refuses into email_already_exists, never a server error', async () => {
    await insertCustomer(t.db, { email: 'race@example.test' });
    const insert = insertBookingCustomers(t.db, TEST_ACTOR, 'UTC', [{ first_name: 'R', last_name: 'Ace', email: 'RACE@example.test', phone: null }]);
    await expect(insert).rejects.toBeInstanceOf(AppError);
    await expect(insert).rejects.toMatchObject({ code: 'email_already_exists', details: { email: 'RACE@example.test' } });

    const mine = await insertCustomer(t.db, { email: 'mine@example.test' });
    const update = updateBookingCustomer(t.db, TEST_ACTOR, 'UTC', mine, { email: 'Race@example.test' });
    await expect(update).rejects.toMatchObject({ code: 'email_already_exists' });
    await updateBookingCustomer(t.db, TEST_ACTOR, 'UTC', mine, { first_name: 'Still', email: 'MINE@example.test' });
    const row = await t.db.selectFrom('customers').select(['first_name', 'email_lower']).where('id', '=', mine).executeTakeFirstOrThrow();
    expect(row).toEqual({ first_name: 'Still', email_lower: 'mine@example.test' });
  });
});
