import { describe, expect, it, vi } from 'vitest';
import { readableCode } from '../../src/lib/random.js';
import { MONDAY, newSite, requester } from '../bookings/setup.js';
import { DIALECTS, useTestApp } from '../helper.js';

// Codes are random: to meet a taken one, the next codes made are the ones a test names.
vi.mock('../../src/lib/random.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/lib/random.js')>();
  return { ...real, readableCode: vi.fn(real.readableCode) };
});
const nextCodes = (...codes: string[]) => {
  for (const code of codes) vi.mocked(readableCode).mockReturnValueOnce(code);
};

describe.each(DIALECTS)('a generated code another row already has (%s)', (dialect) => {
  const t = useTestApp(dialect);

  it('makes the booking with new codes, for a create and a bulk', async () => {
    const call = requester(t);
    const site = await newSite(t.db);
    const booking = { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY };
    const first = await call('POST', '/bookings', { ...booking, start_time: '09:00' });
    expect(first.statusCode, first.body).toBe(201);
    const taken: string = first.json().data.booking_code;

    // Codes are made for the order, then the booking: the booking's is taken.
    nextCodes(readableCode(), taken);
    const second = await call('POST', '/bookings', { ...booking, start_time: '10:00' });
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().data.booking_code).not.toBe(taken);

    const { confirmation_code: takenByOrder } = await t.db.selectFrom('orders').select('confirmation_code').where('id', '=', first.json().data.order_id).executeTakeFirstOrThrow();
    nextCodes(takenByOrder);
    const bulk = await call('POST', '/bookings/bulk', { bookings: [{ ...booking, start_time: '11:00' }] });
    expect(bulk.statusCode, bulk.body).toBe(201);
    const rows = await t.db.selectFrom('bookings').select('booking_code').where('agent_id', '=', site.agentId).execute();
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((row) => row.booking_code)).size).toBe(3);
  });

  it('makes the customer with a new code', async () => {
    const call = requester(t);
    const first = await call('POST', '/customers', { first_name: 'Ada', last_name: 'Code', email: `ada.${dialect}@example.com` });
    expect(first.statusCode, first.body).toBe(201);
    const taken: string = first.json().data.customer_code;

    nextCodes(taken.slice('CUS-'.length));
    const second = await call('POST', '/customers', { first_name: 'Bea', last_name: 'Code', email: `bea.${dialect}@example.com` });
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().data.customer_code).not.toBe(taken);
    expect(await t.db.selectFrom('customers').select('id').where('last_name', '=', 'Code').execute()).toHaveLength(2);
  });
});
