import { describe, expect, it } from 'vitest';
import { API, MONDAY, newSite, type Site } from '../bookings/setup.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

const ROUNDS = 12;

interface Answer {
  status: number;
  body: Json;
}

/**
 * A write that makes a record refer to another, raced against the other's delete: whichever
 * commits first, the second answers as if it had come after (a 4xx naming what is missing or in
 * use), never a 500 from the database's foreign key.
 */
describe.each(DIALECTS)('writes racing the delete of what they refer to (%s)', (dialect) => {
  const t = useTestApp(dialect);
  let key: string | undefined;
  let serial = 0;
  const unique = () => `${dialect}${++serial}`;

  async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object): Promise<Answer> {
    key ??= await t.key({ perMinute: 100_000, perHour: 100_000 });
    const res = await t.app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json() };
  }
  const idOf = (answer: Answer): number => {
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    return answer.body.data.id as number;
  };

  /** Runs both at once, ROUNDS times, and returns each round's two statuses. */
  async function race(setup: () => Promise<number | string>, write: (ref: number | string) => Promise<Answer>, remove: (ref: number | string) => Promise<Answer>) {
    const rounds: [number, number][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ref = await setup();
      const [written, removed] = await Promise.all([write(ref), remove(ref)]);
      rounds.push([written.status, removed.status]);
    }
    return rounds;
  }

  let site: Site;
  let hour = 0;
  /** The next free hour, 09:00 to 16:00 on weekdays from MONDAY on. */
  const nextStart = () => {
    const day = Math.floor(hour / 8);
    const date = new Date(Date.parse(`${MONDAY}T00:00:00Z`) + (Math.floor(day / 5) * 7 + (day % 5)) * 86_400_000);
    const start = { start_date: date.toISOString().slice(0, 10), start_time: `${String(9 + (hour % 8)).padStart(2, '0')}:00` };
    hour += 1;
    return start;
  };
  const booking = (customerId: number) => ({ service_id: site.serviceId, agent_id: site.agentId, customer_id: customerId, ...nextStart() });
  // Customer names take letters only.
  const newCustomer = async () => idOf(await call('POST', '/customers', { first_name: 'Race', last_name: unique().replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!) }));

  it('a booking, a bulk, a reschedule to, an order transfer to or a payment by a customer being deleted', async () => {
    site = await newSite(t.db);
    const order = (await call('GET', `/bookings/${idOf(await call('POST', '/bookings', booking(site.customerId)))}`)).body.data.order.id as number;
    const writes: ((customerId: number) => Promise<Answer>)[] = [
      (c) => call('POST', '/bookings', booking(c)),
      (c) => call('POST', '/bookings/bulk', { bookings: [booking(c)] }),
      async (c) => call('PUT', `/bookings/${idOf(await call('POST', '/bookings', booking(site.customerId)))}`, { customer_id: c }),
      (c) => call('PUT', `/orders/${order}`, { customer_id: c }),
      (c) => call('POST', '/payments', { order_id: order, amount: 1, customer_id: c }),
    ];
    for (const write of writes) {
      for (const [written, removed] of await race(newCustomer, (c) => write(Number(c)), (c) => call('DELETE', `/customers/${c}`))) {
        // Either the write came first and the customer has history now, or the delete did and the customer is unknown.
        const writeFirst = written < 300 && removed === 409;
        const deleteFirst = written === 400 && removed === 200;
        expect(writeFirst || deleteFirst, `write ${written}, delete ${removed}`).toBe(true);
      }
    }
  });

  it('a payment, an invoice set to paid or an order change on the order a deleted booking left to a customer being deleted', async () => {
    site = await newSite(t.db);
    const leftOrder = async () => {
      const customer = await newCustomer();
      const made = (await call('POST', '/bookings', booking(customer))).body.data;
      expect((await call('DELETE', `/bookings/${made.id}`)).status).toBe(200);
      const invoice = (await call('GET', `/orders/${made.order.id}/invoices`)).body.data[0].id as number;
      return `${customer}:${made.order.id}:${invoice}`;
    };
    const parts = (ref: number | string) => String(ref).split(':').map(Number) as [number, number, number];
    // What each write answers when it comes first: no money can land on the cancelled order (nothing
    // is due), so the customer's delete always succeeds, before or after it.
    const writes: [(ref: number | string) => Promise<Answer>, number][] = [
      [(ref) => call('POST', '/payments', { order_id: parts(ref)[1], amount: 1 }), 422],
      [(ref) => call('PUT', `/orders/${parts(ref)[1]}/invoices/${parts(ref)[2]}`, { status: 'paid' }), 422],
      [(ref) => call('PUT', `/orders/${parts(ref)[1]}`, { notes: 'late note' }), 200],
    ];
    for (const [write, firstAnswer] of writes) {
      for (const [written, removed] of await race(leftOrder, write, (ref) => call('DELETE', `/customers/${parts(ref)[0]}`))) {
        // Either the write came first or the delete did and took the order. Never a 5xx.
        expect([firstAnswer, 404], `write ${written}, delete ${removed}`).toContain(written);
        expect(removed, `write ${written}, delete ${removed}`).toBe(200);
      }
    }
  });

  it('a service, a location or an agent link, or a customer preference, to a category, agent, service or location being deleted', async () => {
    const category = (path: string) => async () => idOf(await call('POST', path, { name: `Race ${unique()}` }));
    const agent = async () => idOf(await call('POST', '/agents', { first_name: 'Race', last_name: unique(), email: `race.${unique()}@example.test` }));
    const location = async () => idOf(await call('POST', '/locations', { name: `Race ${unique()}` }));
    const service = async () => idOf(await call('POST', '/services', { name: `Race ${unique()}` }));
    const cases: [() => Promise<number>, (id: number) => Promise<Answer>, (id: number) => Promise<Answer>][] = [
      [category('/service-categories'), (c) => call('POST', '/services', { name: `S ${unique()}`, category_id: c }), (c) => call('DELETE', `/service-categories/${c}`)],
      [category('/location-categories'), (c) => call('POST', '/locations', { name: `L ${unique()}`, category_id: c }), (c) => call('DELETE', `/location-categories/${c}`)],
      [agent, (a) => call('PUT', `/services/${site.serviceId}`, { agent_ids: [site.agentId, a] }), (a) => call('DELETE', `/agents/${a}`)],
      [service, (s) => call('PUT', `/agents/${site.agentId}`, { service_ids: [site.serviceId, s] }), (s) => call('DELETE', `/services/${s}`)],
      [location, (l) => call('POST', '/agents', { first_name: 'A', last_name: unique(), email: `a.${unique()}@example.test`, location_ids: [l] }), (l) => call('DELETE', `/locations/${l}`)],
      [agent, (a) => call('POST', '/customers', { first_name: 'P', last_name: unique(), preferred_agent_id: a }), (a) => call('DELETE', `/agents/${a}`)],
    ];
    for (const [setup, write, remove] of cases) {
      for (const [written, removed] of await race(setup, (id) => write(Number(id)), (id) => remove(Number(id)))) {
        expect(removed).toBe(200);
        expect([200, 201, 400, 422]).toContain(written);
      }
    }
  });

  it('an order applying a coupon being deleted', async () => {
    const order = (await call('GET', `/bookings/${idOf(await call('POST', '/bookings', booking(site.customerId)))}`)).body.data.order.id as number;
    const coupon = async () => {
      const code = `RACE${unique()}`.toUpperCase();
      idOf(await call('POST', '/coupons', { code, name: 'Race', discount_type: 'percent', discount_value: 10 }));
      return code;
    };
    for (const [written, removed] of await race(coupon, (code) => call('PUT', `/orders/${order}`, { coupon_code: code }), (code) => call('DELETE', `/coupons/${code}`))) {
      expect(removed).toBe(200);
      expect([200, 422]).toContain(written);
    }
  });

  it('a bulk booking a new customer, racing POST /customers with the same email: only that element fails', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const email = `race.${unique()}@example.test`;
      const [bulk, direct] = await Promise.all([
        call('POST', '/bookings/bulk', { bookings: [booking(site.customerId), { ...booking(site.customerId), customer_id: undefined, customer: { first_name: 'Bulk', last_name: 'Racer', email } }] }),
        call('POST', '/customers', { first_name: 'Direct', last_name: 'Racer', email }),
      ]);
      expect([201, 207], JSON.stringify(bulk.body)).toContain(bulk.status);
      expect([201, 409]).toContain(direct.status);
      expect(bulk.status === 207).toBe(direct.status === 201);
    }
  });
});
