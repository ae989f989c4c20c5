import { describe, expect, it } from 'vitest';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

const API = '/booking-api/v1';
const PUBLIC_URL = 'https://bookings.example.test';
const METHODS = ['get', 'post', 'put', 'delete'];

function operations(document: Json): [string, string, Json][] {
  return Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, string, Json] => [method, path, operation]),
  );
}

/** Every $ref in a part of the document. */
function refs(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refs);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : refs(value)));
}

const jsonSchema = (response: Json): Json => response.content['application/json'].schema;

describe.each(DIALECTS)('the OpenAPI document (%s)', (dialect) => {
  const t = useTestApp(dialect, { PUBLIC_URL });
  const load = async (): Promise<Json> => (await t.app.inject({ url: `${API}/openapi.json` })).json();

  it('names every operation once, in camelCase, and declares every tag it uses', async () => {
    const document = await load();
    const all = operations(document);
    expect(all.length).toBeGreaterThan(50);
    const ids = all.map(([method, path, operation]) => {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z]+(?:[A-Z][a-z]*)*$/);
      return operation.operationId as string;
    });
    expect(new Set(ids).size).toBe(ids.length);
    const byId = Object.fromEntries(all.map(([method, path, operation]) => [operation.operationId, `${method} ${path}`]));
    expect(byId).toMatchObject({
      listBookings: `get ${API}/bookings`,
      createBooking: `post ${API}/bookings`,
      createBookingsBulk: `post ${API}/bookings/bulk`,
      getBooking: `get ${API}/bookings/{id}`,
      updateBooking: `put ${API}/bookings/{id}`,
      deleteBooking: `delete ${API}/bookings/{id}`,
      getOrderInvoice: `get ${API}/orders/{order_id}/invoices/{invoice_id}`,
      listServiceCategories: `get ${API}/service-categories`,
    });
    const declared = new Map<string, string>(document.tags.map((tag: Json): [string, string] => [tag.name, tag.description]));
    for (const [method, path, operation] of all) {
      expect(operation.tags, `${method} ${path}`).toHaveLength(1);
      expect(declared.get(operation.tags[0]), `${method} ${path}`).toEqual(expect.any(String));
    }
    expect(document.info.license.name).toEqual(expect.any(String));
    expect(document.info.contact.url).toEqual(expect.any(String));
    expect(document.servers).toEqual([{ url: PUBLIC_URL }]);
  });

  it('refers to a named component for each resource and list item, and every reference resolves', async () => {
    const document = await load();
    const schemas = document.components.schemas;
    const data = (path: string, method: string, status: string): Json => jsonSchema(document.paths[`${API}${path}`][method].responses[status]).properties.data;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    expect(data('/bookings/{id}', 'get', '200')).toEqual(ref('Booking'));
    expect(data('/bookings', 'get', '200').items).toEqual(ref('BookingListItem'));
    expect(data('/customers/{id}', 'get', '200')).toEqual(ref('Customer'));
    expect(data('/customers', 'get', '200').items).toEqual(ref('CustomerListItem'));
    expect(data('/orders', 'get', '200').items).toEqual(ref('OrderListItem'));
    expect(jsonSchema(document.paths[`${API}/orders/{id}`].get.responses['200'])).toEqual(ref('Order'));
    expect(data('/orders/{order_id}/invoices/{invoice_id}', 'get', '200')).toEqual(ref('Invoice'));
    expect(data('/payments/{id}', 'get', '200')).toEqual(ref('Payment'));
    expect(data('/coupons/{code}', 'get', '200')).toEqual(ref('Coupon'));
    expect(data('/agents/{id}', 'get', '200')).toEqual(ref('Agent'));
    expect(data('/services/{id}', 'get', '200')).toEqual(ref('Service'));
    expect(data('/locations/{id}', 'get', '200')).toEqual(ref('Location'));
    expect(jsonSchema(document.paths[`${API}/bookings`].post.responses['422'])).toEqual(ref('ErrorStyle1'));
    for (const target of new Set(refs(document.paths))) {
      expect(target).toMatch(/^#\/components\/schemas\//);
      expect(schemas[target.split('/').pop() as string], target).toBeDefined();
    }
  });

  it('types each bulk element as the fields of one booking to create', async () => {
    const document = await load();
    const element = jsonSchema(document.paths[`${API}/bookings/bulk`].post.requestBody).properties.bookings.items;
    expect(element.required).toEqual(['service_id', 'agent_id', 'start_date', 'start_time']);
    expect(element.properties.customer.properties.email).toMatchObject({ format: 'email', maxLength: 100 });
  });

  it('shows request bodies closed to fields they do not define, nested objects and bulk elements too; maps stay open', async () => {
    const document = await load();
    const customer = jsonSchema(document.paths[`${API}/customers`].post.requestBody);
    expect(customer.additionalProperties).toBe(false);
    const element = jsonSchema(document.paths[`${API}/bookings/bulk`].post.requestBody).properties.bookings.items;
    expect(element.additionalProperties).toBe(false);
    expect(element.properties.customer.additionalProperties).toBe(false);
    expect(element.properties.meta.additionalProperties).not.toBe(false);
  });

  it('declares 400 on every operation (an undefined parameter is refused), 413 on every body, 429 and 503 with Retry-After, and the headers of every answer', async () => {
    const document = await load();
    for (const [method, path, operation] of operations(document)) {
      const where = `${method} ${path}`;
      const responses: Record<string, Json> = operation.responses;
      expect(responses['400'], where).toBeDefined();
      if (method === 'post' || method === 'put') expect(responses['413'], where).toBeDefined();
      expect(responses['503']?.headers['Retry-After'], where).toMatchObject({ required: true });
      expect(responses['429']?.headers['Retry-After'], where).toMatchObject({ required: true, schema: { type: 'integer' } });
      for (const [status, response] of Object.entries(responses)) {
        const headers = response.headers;
        expect(headers['X-Request-Id'], `${where} ${status}`).toMatchObject({ required: true });
        expect(Object.keys(headers), `${where} ${status}`).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
        if (status.startsWith('2')) expect(headers['X-RateLimit-Limit'].required, `${where} ${status}`).toBe(true);
        if ((method === 'post' || method === 'put') && status.startsWith('2')) expect(headers['Idempotent-Replayed'], `${where} ${status}`).toBeDefined();
      }
    }
  });

  it('shows the rules a field is checked against in code, which still answers for them in its own words', async () => {
    const document = await load();
    const body = jsonSchema(document.paths[`${API}/customers`].post.requestBody);
    expect(body.properties.first_name).toMatchObject({ minLength: 2, maxLength: 50, pattern: expect.any(String) });
    expect(body.properties.date_of_birth).toMatchObject({ format: 'date' });
    const res = await t.app.inject({ method: 'POST', url: `${API}/customers`, headers: { 'x-api-key': await t.key() }, payload: { first_name: 'A', last_name: 'Lee' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details).toEqual({ first_name: 'must be 2 to 50 characters (got 1)' });
  });

  it('declares the headers a real answer carries', async () => {
    const document = await load();
    const declared = document.paths[`${API}/status`].get.responses['200'].headers;
    const res = await t.app.inject({ url: `${API}/status`, headers: { 'x-api-key': await t.key() } });
    expect(res.statusCode).toBe(200);
    for (const [name, header] of Object.entries<Json>(declared)) if (header.required) expect(res.headers[name.toLowerCase()], name).toEqual(expect.any(String));
  });
});
