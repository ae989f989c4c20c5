import { describe, expect, it } from 'vitest';
import { MONDAY, newSite, requester } from '../bookings/setup.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import type { Db } from '../../src/db/database.js';
import { MAX_FORM_TEXT_LENGTH } from '../../src/modules/admin/session-plugin.js';
import { form, FORM, postLogin, signIn, storeCheapAdminPassword } from '../admin/session.js';

/**
 * Formats whose values have a bounded length of their own, so a string of that format needs no
 * maxLength: Ajv checks them with anchored patterns of fixed width. `email` and `uri` are not
 * among them: their patterns repeat without bound.
 */
const LENGTH_BOUNDING_FORMATS = new Set(['date', 'time', 'date-time', 'uuid']);
const OPERATION_METHODS = new Set(['get', 'post', 'put', 'delete', 'patch']);

const typesOf = (schema: Json): string[] => (Array.isArray(schema.type) ? (schema.type as string[]) : schema.type === undefined ? [] : [schema.type as string]);

/**
 * Where a request schema lets a value grow without bound: text without maxLength, a list without
 * maxItems, a map without maxProperties or without a bound on its keys, a value of any type
 * without maxLength. `where` names the place; references are resolved in `document`.
 */
function unboundedIn(schema: Json, where: string, document: Json, found: string[] = []): string[] {
  const node = typeof schema?.$ref === 'string' ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
  if (typeof node !== 'object' || node === null) return found;
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) unboundedIn(branch, where, document, found);
  const types = typesOf(node);
  const closedValues = node.enum !== undefined || node.const !== undefined;
  const composed = node.anyOf !== undefined || node.oneOf !== undefined || node.allOf !== undefined || node.$ref !== undefined;
  if (types.length === 0 && !composed && !closedValues && node.properties === undefined && node.maxLength === undefined) found.push(`${where}: a value of any type`);
  if (types.includes('string') && node.maxLength === undefined && !closedValues && !LENGTH_BOUNDING_FORMATS.has(node.format)) found.push(`${where}: text`);
  if (types.includes('array')) {
    if (node.maxItems === undefined) found.push(`${where}: list`);
    unboundedIn(node.items, `${where}[]`, document, found);
  }
  for (const [name, property] of Object.entries<Json>(node.properties ?? {})) unboundedIn(property, `${where}.${name}`, document, found);
  const mapValues = [
    ...(typeof node.additionalProperties === 'object' ? [node.additionalProperties] : []),
    ...Object.values<Json>(node.patternProperties ?? {}),
  ];
  if (mapValues.length > 0) {
    if (node.maxProperties === undefined) found.push(`${where}: map entries`);
    if (node.propertyNames?.maxLength === undefined) found.push(`${where}: map keys`);
    for (const value of mapValues) unboundedIn(value, `${where}{}`, document, found);
  }
  return found;
}

/** Every request part of every operation in the document: [where, schema]. */
function requestSchemas(document: Json): [string, Json][] {
  return Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item)
      .filter(([method]) => OPERATION_METHODS.has(method))
      .flatMap(([method, operation]): [string, Json][] => [
        ...((operation.parameters ?? []) as Json[]).map((parameter): [string, Json] => [`${method} ${path} ${parameter.in} ${parameter.name}`, parameter.schema]),
        ...Object.entries<Json>(operation.requestBody?.content ?? {}).map(([type, content]): [string, Json] => [`${method} ${path} body (${type})`, content.schema]),
      ]),
  );
}

describe('the bound check', () => {
  it('finds what it looks for: unbounded text, lists, maps and values of any type', () => {
    const document = { components: { schemas: { Named: { type: 'string' } } } };
    const schema = {
      type: 'object',
      properties: {
        text: { type: 'string' },
        dated: { type: 'string', format: 'date' },
        short: { type: 'string', maxLength: 5 },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        named: { $ref: '#/components/schemas/Named' },
        list: { type: 'array', items: { type: 'integer' } },
        map: { type: 'object', additionalProperties: { type: 'string', maxLength: 5 }, maxProperties: 3 },
        anything: {},
      },
    };
    expect(unboundedIn(schema, 'body', document)).toEqual([
      'body.text: text',
      'body.either: text',
      'body.named: text',
      'body.list: list',
      'body.map: map keys',
      'body.anything: a value of any type',
    ]);
  });
});

const long = (length: number) => 'x'.repeat(length);

async function rowCount(db: Db, table: 'bookings' | 'customers' | 'api_keys'): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

// The document is built from the route schemas alone, whatever the engine: one is enough.
describe('request bounds in the OpenAPI document', () => {
  const t = useTestApp('sqlite');

  it('the OpenAPI document gives every text a maxLength (or an enum or a fixed-width format), every list maxItems, every map a bound on its size and keys', () => {
    const document = t.app.swagger() as Json;
    const parts = requestSchemas(document);
    expect(parts.length).toBeGreaterThan(200);
    expect(parts.flatMap(([where, schema]) => unboundedIn(schema, where, document))).toEqual([]);
  });

  it('the document shows the limits, those the schema checks and those the code checks', () => {
    const document = t.app.swagger() as Json;
    const body = (path: string, method: string): Json => document.paths[`/booking-api/v1${path}`][method].requestBody.content['application/json'].schema;
    expect(body('/bookings', 'post').properties.notes.maxLength).toBe(5000);
    expect(body('/bookings', 'post').properties.meta).toMatchObject({ maxProperties: 50, propertyNames: { maxLength: 100 }, additionalProperties: { maxLength: 1000 } });
    expect(body('/customers', 'post').properties.email.maxLength).toBe(100);
    expect(body('/customers', 'post').properties.custom_fields).toMatchObject({ maxProperties: 100, propertyNames: { maxLength: 100 } });
  });
});

describe.each(DIALECTS)('request text within bounds (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = requester(t);

  it('booking notes: at most 5000 characters, on create, in a bulk element and on update', async () => {
    const site = await newSite(t.db);
    const booking = { service_id: site.serviceId, agent_id: site.agentId, location_id: site.locationId, customer_id: site.customerId, start_date: MONDAY };
    const before = await rowCount(t.db, 'bookings');
    const refused = await call('POST', '/bookings', { ...booking, start_time: '09:00', notes: long(5001) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details).toEqual({ notes: 'must be at most 5000 characters' });
    expect(await rowCount(t.db, 'bookings')).toBe(before);

    const bulk = await call('POST', '/bookings/bulk', { bookings: [{ ...booking, start_time: '09:00', notes: long(5001) }] });
    expect(bulk.json().results.summary).toMatchObject({ successful: 0, failed: 1 });
    expect(bulk.json().results.errors[0].error).toContain('notes');
    expect(await rowCount(t.db, 'bookings')).toBe(before);

    const created = await call('POST', '/bookings', { ...booking, start_time: '10:00', notes: long(5000) });
    expect(created.statusCode).toBe(201);
    const id: number = created.json().data.id;
    const update = await call('PUT', `/bookings/${id}`, { notes: long(5001) });
    expect(update.statusCode).toBe(400);
    expect(update.json().error.details).toEqual({ notes: 'must be at most 5000 characters' });
    expect((await t.db.selectFrom('bookings').select('notes').where('id', '=', id).executeTakeFirstOrThrow()).notes).toBe(long(5000));
  });

  it('booking metadata: a value over 1000 characters, a key over 100', async () => {
    const site = await newSite(t.db);
    const booking = { service_id: site.serviceId, agent_id: site.agentId, location_id: site.locationId, customer_id: site.customerId, start_date: MONDAY, start_time: '11:00' };
    const before = await rowCount(t.db, 'bookings');
    const value = await call('POST', '/bookings', { ...booking, meta: { source: long(1001) } });
    expect(value.statusCode).toBe(422);
    expect(value.json().error.details).toEqual({ meta: 'values must be at most 1000 characters' });
    const key = await call('POST', '/bookings', { ...booking, meta: { [long(101)]: 'web' } });
    expect(key.statusCode).toBe(422);
    expect(key.json().error.details).toEqual({ meta: 'keys must be 1 to 100 characters' });
    expect(await rowCount(t.db, 'bookings')).toBe(before);
  });

  it('customer name and email keep their own words', async () => {
    const before = await rowCount(t.db, 'customers');
    const name = await call('POST', '/customers', { first_name: long(51), last_name: 'Lee' });
    expect(name.statusCode).toBe(422);
    expect(name.json().error.details).toEqual({ first_name: 'must be 2 to 50 characters (got 51)' });
    const email = await call('POST', '/customers', { first_name: 'Ann', last_name: 'Lee', email: `${long(95)}@example.com` });
    expect(email.statusCode).toBe(422);
    expect(email.json().error.details).toEqual({ email: 'must be at most 100 characters' });
    expect(await rowCount(t.db, 'customers')).toBe(before);
  });

  it('custom fields: a text value over 1000 characters, over 100 fields in a request or on a customer', async () => {
    const before = await rowCount(t.db, 'customers');
    const value = await call('POST', '/customers', { first_name: 'Ann', last_name: 'Lee', custom_fields: { tier: long(1001) } });
    expect(value.statusCode).toBe(422);
    expect(value.json().error.details).toEqual({ 'custom_fields.tier': 'must be at most 1000 characters' });
    const fields = (from: number, count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`field${from + i}`, 'x']));
    const many = await call('POST', '/customers', { first_name: 'Ann', last_name: 'Lee', custom_fields: fields(0, 101) });
    // The schema refuses it, as it refuses any other field: 400, where the code's own checks answer 422.
    expect(many.statusCode).toBe(400);
    expect(many.json().error.details).toEqual({ custom_fields: 'must have at most 100 keys' });
    expect(await rowCount(t.db, 'customers')).toBe(before);

    const created = await call('POST', '/customers', { first_name: 'Ann', last_name: 'Lee', custom_fields: fields(0, 100) });
    expect(created.statusCode).toBe(201);
    const id: number = created.json().data.id;
    const merged = await call('PUT', `/customers/${id}`, { custom_fields: { field100: 'x' } });
    expect(merged.statusCode).toBe(400);
    expect(merged.json().data.details).toEqual({ custom_fields: 'a customer holds at most 100 custom fields; this change would leave 101' });
    const stored = await t.db.selectFrom('customers').select('custom_fields').where('id', '=', id).executeTakeFirstOrThrow();
    expect(Object.keys(JSON.parse(stored.custom_fields) as object)).toHaveLength(100);
  });

  it('agent features: a label over 200 characters, as an array (the schema) or as its JSON text (the code)', async () => {
    const agent = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' };
    const features = [{ label: long(201), value: 'EN' }];
    const asArray = await call('POST', '/agents', { ...agent, features });
    expect(asArray.statusCode).toBe(400);
    // The other form (text) is named too: features is an array or its JSON text.
    expect(asArray.json().error.details).toMatchObject({ 'features.0.label': 'must be at most 200 characters' });
    const asText = await call('POST', '/agents', { ...agent, features: JSON.stringify(features) });
    expect(asText.statusCode).toBe(422);
    expect(asText.json().error.details).toEqual({ features: 'labels must be at most 200 characters and values at most 1000' });
    expect((await t.db.selectFrom('agents').select('id').where('email', '=', agent.email).execute()).length).toBe(0);
  });

  it('admin forms: a text over the longest password is refused with its field named; shorter ones meet the field\'s own rule', async () => {
    await storeCheapAdminPassword(t.db);
    const login = await postLogin(t.app, long(MAX_FORM_TEXT_LENGTH + 1), '10.0.0.41');
    expect(login.statusCode).toBe(400);
    expect(login.body).toContain('The field password is longer than 1024 characters.');

    const signed = await signIn(t.app, '10.0.0.42');
    const before = await rowCount(t.db, 'api_keys');
    const post = (values: Record<string, string | string[]>) =>
      t.app.inject({ method: 'POST', url: '/admin/keys', headers: { ...FORM, cookie: signed.cookie }, payload: form({ _csrf: signed.csrf, permissions: '*', ...values }) });
    const overlong = await post({ name: long(MAX_FORM_TEXT_LENGTH + 1) });
    expect(overlong.statusCode).toBe(400);
    expect(overlong.body).toContain('The field name is longer than 1024 characters.');
    const repeated = await post({ name: 'Widget', permissions: ['bookings:read', long(MAX_FORM_TEXT_LENGTH + 1)] });
    expect(repeated.statusCode).toBe(400);
    expect(repeated.body).toContain('The field permissions is longer than 1024 characters.');
    const tooLongForAName = await post({ name: long(101) });
    expect(tooLongForAName.statusCode).toBe(422);
    expect(tooLongForAName.body).toContain('must be 1 to 100 characters');
    expect(await rowCount(t.db, 'api_keys')).toBe(before);
  });
});
