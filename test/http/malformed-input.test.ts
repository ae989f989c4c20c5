import { describe, expect, it } from 'vitest';
import { API, MONDAY, TUESDAY, newSite } from '../bookings/setup.js';
import { DIALECTS, useTestApp, type Json, type TestApp } from '../helper.js';

/** Text a client may put in a path or query parameter. */
const TEXTS = [
  '', 'abc', '-1', '0', '1.5', '-0', '2147483648', '99999999999999999999', '1e308', 'Infinity', 'NaN', '１２',
  "'; drop table bookings; --", '%', '_', '\\', '\u0000', 'x'.repeat(5000), '2026-02-30', '2026-13-01', '25:61', 'null', 'true', '[]',
];
/** Path segments as sent, not percent-encoded by the test: invalid encodings and dot segments. */
const RAW_SEGMENTS = ['%E0%A4%A', '%', '%00', '..', '.'];
/** Values a client may put in a JSON body field. */
const VALUES: unknown[] = [
  null, true, false, 0, -1, 1.5, 2_147_483_648, 9_007_199_254_740_993, 1e308, -1e308, '', 'abc', 'x'.repeat(5000),
  '\u0000', '\ud800', '2026-02-30', '23:60', [], [1, 2], ['a'], {}, { a: 1 }, { 'a\u0000': 1 },
];
/** Whole bodies that are not the object a route takes. */
const RAW_BODIES = [
  '', '{', 'null', '[]', '"x"', '1', '"\\ud800"', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}',
  '{"zzz":1,"id":1,"deleted_at":"2020-01-01"}', `${'['.repeat(20_000)}${']'.repeat(20_000)}`, `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
];

/** Records for every path parameter, and a valid body per write route to vary one field of. */
async function seedWorld(t: TestApp, key: string) {
  const site = await newSite(t.db);
  const call = async (method: 'GET' | 'POST', url: string, payload?: object): Promise<Json> => {
    const res = await t.app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json().data;
  };
  const booking = await call('POST', '/bookings', { ...siteBooking(site), start_date: MONDAY, start_time: '10:00' });
  const { order_id: orderId } = await call('GET', `/bookings/${booking.id}`);
  const [invoice] = await call('GET', `/orders/${orderId}/invoices`);
  const payment = await call('POST', '/payments', { order_id: orderId, amount: 10 });
  await call('POST', '/coupons', { code: 'SWEEP10', name: 'Sweep', discount_type: 'percent', discount_value: 10 });
  const serviceCategory = await call('POST', '/service-categories', { name: 'Sweep services' });
  const locationCategory = await call('POST', '/location-categories', { name: 'Sweep locations' });

  const pathIds: Record<string, number | string> = {
    bookings: booking.id,
    agents: site.agentId,
    services: site.serviceId,
    locations: site.locationId,
    customers: site.customerId,
    orders: orderId,
    payments: payment.id,
    'service-categories': serviceCategory.id,
    'location-categories': locationCategory.id,
  };
  /** The path with each parameter naming an existing record. */
  const withIds = (path: string) =>
    path.replace(/\/([^/{}]+)\/\{(\w+)\}/g, (_match, collection: string, name: string) => {
      const value = { code: 'SWEEP10', order_id: orderId, invoice_id: invoice.id, transaction_id: payment.id }[name] ?? pathIds[collection] ?? 1;
      return `/${collection}/${value}`;
    });

  let n = 0;
  const validBody = (method: string, path: string): Record<string, unknown> => {
    n++;
    const booking = { ...siteBooking(site), start_date: TUESDAY, start_time: `${String(8 + (n % 10)).padStart(2, '0')}:00` };
    const week = { weekly: { monday: [{ start: '09:00', end: '17:00' }] }, exceptions: [] };
    const bodies: Record<string, Record<string, unknown>> = {
      'POST /bookings': booking,
      'POST /bookings/bulk': { bookings: [booking] },
      'PUT /bookings/{id}': { notes: 'swept' },
      'POST /agents': { first_name: 'Sweep', last_name: 'Agent', email: `agent${n}@example.com` },
      'POST /services': { name: `Sweep ${n}`, duration: 30 },
      'POST /locations': { name: `Sweep ${n}`, full_address: '1 Sweep Street' },
      'POST /customers': { first_name: 'Sweep', last_name: 'Customer', email: `customer${n}@example.com` },
      'POST /coupons': { code: `SWEEP${n}`, name: 'Sweep', discount_type: 'percent', discount_value: 5 },
      'POST /payments': { order_id: orderId, amount: 1 },
      'PUT /schedule': week,
      'PUT /agents/{id}/schedule': week,
    };
    return bodies[`${method} ${path.slice(API.length)}`] ?? {};
  };
  const validQuery = (path: string) => (path === `${API}/availability` ? `service_id=${site.serviceId}&date=${MONDAY}&` : '');
  return { withIds, validBody, validQuery };
}

function siteBooking(site: Awaited<ReturnType<typeof newSite>>) {
  return { service_id: site.serviceId, agent_id: site.agentId, location_id: site.locationId, customer_id: site.customerId };
}

describe.each(DIALECTS)('malformed input on every documented route (%s)', (dialect) => {
  const t = useTestApp(dialect);

  it('never answers 5xx and never shows a stack trace, whatever a path, query or body field holds', async () => {
    const key = await t.key({ perMinute: 1_000_000, perHour: 1_000_000 });
    const world = await seedWorld(t, key);
    const document: Json = (await t.app.inject({ method: 'GET', url: `${API}/openapi.json` })).json();
    const failures: string[] = [];
    let requests = 0;
    const sendNow = async (method: string, url: string, body?: string) => {
      requests++;
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: body }),
      });
      if (res.statusCode >= 500 || /\bat .+\.[jt]s:\d+/.test(res.body)) {
        failures.push(`${method} ${url.slice(0, 120)} ${(body ?? '').slice(0, 160)} → ${res.statusCode} ${res.body.slice(0, 160)}`);
      }
    };

    // The requests of one operation are independent of each other: they go eight at a time.
    // Operations stay in turn, so that one's DELETE cannot remove what another's requests name.
    let pending: (() => Promise<void>)[] = [];
    const send = async (method: string, url: string, body?: string) => {
      pending.push(() => sendNow(method, url, body));
    };
    const sendPending = async () => {
      const queue = pending;
      pending = [];
      const worker = async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) await next();
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    };

    for (const [path, operations] of Object.entries<Json>(document.paths)) {
      for (const [lower, operation] of Object.entries<Json>(operations)) {
        await sendPending();
        const method = lower.toUpperCase();
        const hasBody = method === 'POST' || method === 'PUT';
        const emptyBody = hasBody ? '{}' : undefined;
        const url = world.withIds(path);

        if (path.includes('{')) {
          for (const text of TEXTS) await send(method, path.replace(/\{\w+\}/g, encodeURIComponent(text)), emptyBody);
          for (const segment of RAW_SEGMENTS) await send(method, path.replace(/\{\w+\}/g, segment), emptyBody);
        }
        const parameters: { in: string; name: string }[] = operation.parameters ?? [];
        const queryNames = parameters.filter((p) => p.in === 'query').map((p) => p.name);
        for (const name of queryNames) {
          for (const text of TEXTS) await send(method, `${url}?${world.validQuery(path)}${name}=${encodeURIComponent(text)}`, emptyBody);
          await send(method, `${url}?${world.validQuery(path)}${name}=1&${name}=2`, emptyBody);
        }
        if (!hasBody) continue;

        for (const raw of RAW_BODIES) await send(method, url, raw);
        const properties: Record<string, Json> = operation.requestBody?.content?.['application/json']?.schema?.properties ?? {};
        for (const [field, schema] of Object.entries(properties)) {
          for (const value of VALUES) await send(method, url, JSON.stringify({ ...world.validBody(method, path), [field]: value }));
          // Arrays of objects (bulk elements, agent services): each field of one element in turn.
          const elementFields = Object.keys(schema.items?.properties ?? {});
          for (const inner of elementFields) {
            for (const value of VALUES) {
              const valid = world.validBody(method, path);
              const element = { ...((valid[field] as Json[] | undefined)?.[0] ?? {}), [inner]: value };
              await send(method, url, JSON.stringify({ ...valid, [field]: [element] }));
            }
          }
        }
      }
    }
    await sendPending();
    // The sweep reached the routes: thousands of requests, not a document that failed to load.
    expect(requests).toBeGreaterThan(3000);
    expect(failures).toEqual([]);
  }, 300_000);

  it('takes a one-element array for no text or amount field (400), where it was taken whole or half-unwrapped', async () => {
    const key = await t.key();
    const site = await newSite(t.db);
    const send = (method: 'POST' | 'PUT', url: string, payload: object) =>
      t.app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': key }, payload });
    const booking = (await send('POST', '/bookings', { ...siteBooking(site), start_date: MONDAY, start_time: '10:00' })).json().data;
    const orderId = booking.order.id;
    const cases: [string, string, object, string][] = [
      ['PUT', `/services/${site.serviceId}`, { charge_amount: ['a'] }, 'charge_amount'],
      ['PUT', `/orders/${orderId}`, { notes: ['a'] }, 'notes'],
      ['PUT', `/orders/${orderId}`, { coupon_code: ['X'] }, 'coupon_code'],
      ['PUT', `/bookings/${booking.id}`, { notes: ['a'] }, 'notes'],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await send(method as 'PUT', url, payload);
      expect(res.statusCode, `${url} ${field}`).toBe(400);
      expect(JSON.stringify(res.json()), `${url} ${field}`).toContain(field);
    }
    const order = await t.app.inject({ method: 'GET', url: `${API}/orders/${orderId}`, headers: { 'x-api-key': key } });
    expect(order.json()).toHaveProperty('notes', null);
  });
});
