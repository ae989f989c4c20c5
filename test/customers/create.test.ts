import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { persistNewCustomer } from '../../src/modules/customers/service.js';
import { insertAgent, insertCustomer, insertLocation } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json, TEST_ACTOR } from '../helper.js';

const URL = '/booking-api/v1/customers';

describe.each(DIALECTS)('POST /customers (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'America/New_York' });
  let serial = 0;
  const uniqueEmail = () => `new${++serial}.${dialect}@example.test`;

  async function post(payload: Record<string, unknown>, key?: string) {
    return t.app.inject({ method: 'POST', url: URL, headers: { 'x-api-key': key ?? (await t.key()) }, payload });
  }
  const outboxFor = (recipient: string) => t.db.selectFrom('outbox').selectAll().where('recipient', '=', recipient).execute();

  it('creates a customer: 201, envelope B, the four create-only fields, a welcome mail in the outbox', async () => {
    const email = `Ada.Lovelace.${dialect}@Example.test`;
    const res = await post({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email,
      phone: '+44 20 7946 0958',
      date_of_birth: '1985-12-10',
      gender: 'female',
      address: '12 St James Square',
      city: 'London',
      zipcode: 'SW1Y 4JH',
      country: 'GB',
      custom_fields: { vip: true, source: 'web', score: 7, dropped: null, empty: '' },
      notes: 'Prefers mornings',
      host_user_id: 42,
    });
    expect(res.statusCode).toBe(201);
    const body: Json = res.json();
    expect(body.success).toBe(true);
    expect(body.message).toEqual(expect.any(String));
    const c = body.data;
    expect(c).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email,
      phone: '+44 20 7946 0958',
      status: 'active',
      date_of_birth: '1985-12-10',
      gender: 'female',
      city: 'London',
      country: 'GB',
      is_guest: false,
      host_user_id: 42,
      avatar_image_id: null,
      notes: 'Prefers mornings',
      custom_fields: { vip: true, source: 'web', score: 7 },
      user_id: null,
      welcome_email_sent: true,
    });
    expect(c.id).toEqual(expect.any(Number));
    expect(c.customer_code).toMatch(/^CUS-[A-Z2-9]{12}$/);
    const hash = createHash('sha256').update(email.toLowerCase()).digest('hex');
    expect(c.avatar_url).toBe(`https://www.gravatar.com/avatar/${hash}?d=mp&s=96`);

    const row = await t.db.selectFrom('customers').selectAll().where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(row.email_lower).toBe(email.toLowerCase());
    const local = DateTime.fromISO(row.created_at, { zone: 'utc' }).setZone('America/New_York').toFormat('yyyy-MM-dd HH:mm:ss');
    expect(c.created_at).toBe(local);
    expect(c.updated_at).toBe(local);

    const mails = await outboxFor(email);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ kind: 'customer_welcome', status: 'pending' });
    expect(JSON.parse(mails[0]!.payload)).toMatchObject({ customer_id: c.id, customer_name: `Ada ${c.last_name}`, email, customer_code: c.customer_code });
  });

  it('creates customers without an email: no welcome mail, a default avatar, several may exist', async () => {
    const before = await t.db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const payload of [{ first_name: 'No', last_name: 'Mail' }, { first_name: 'Also', last_name: 'None', email: '' }]) {
      const res = await post(payload);
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({ email: null, welcome_email_sent: false, user_id: null });
      expect(res.json().data.avatar_url).toBe('https://www.gravatar.com/avatar/?d=mp&s=96');
    }
    const after = await t.db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('takes status, is_guest and non-ASCII names', async () => {
    const res = await post({ first_name: 'Zoë-Łucja', last_name: 'Müller Ñúñez', status: 'pending', is_guest: true });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ first_name: 'Zoë-Łucja', last_name: 'Müller Ñúñez', status: 'pending', is_guest: true });
    for (const [first, last] of [
      ['Мария', 'Иванова'],
      ['李明', '王芳'],
    ]) {
      expect((await post({ first_name: first, last_name: last })).statusCode).toBe(201);
    }
  });

  it.each([
    [1, 422],
    [2, 201],
    [49, 201],
    [50, 201],
    [51, 422],
  ])('names of %i characters answer %i', async (length, status) => {
    for (const field of ['first_name', 'last_name']) {
      const res = await post({ first_name: 'Ann', last_name: 'Lee', [field]: 'é'.repeat(length) });
      expect(res.statusCode).toBe(status);
      if (status === 422) {
        expect(res.json().error.code).toBe('validation_failed');
        expect(Object.keys(res.json().error.details)).toEqual([field]);
      }
    }
  });

  it.each(['J0hn', "O'Brien", 'Ann_Lee', '--', 'Ann.'])('rejects the name %j', async (name) => {
    const res = await post({ first_name: name, last_name: 'Lee' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 'error', error: { code: 'validation_failed', details: { first_name: expect.any(String) } } });
  });

  it('accepts an email of 100 characters and refuses 101', async () => {
    const domain = `@${dialect}.example.test`;
    const email100 = `${'a'.repeat(100 - domain.length)}${domain}`;
    expect(email100).toHaveLength(100);
    expect((await post({ first_name: 'Long', last_name: 'Mail', email: email100 })).statusCode).toBe(201);
    const res = await post({ first_name: 'Long', last_name: 'Mail', email: `b${email100}` });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'validation_failed', details: { email: expect.stringContaining('100') } });
  });

  it.each(['plain', 'a@b', 'a b@example.test', 'a@@example.test', 'a@example..test'])('rejects the email %j', async (email) => {
    const res = await post({ first_name: 'Bad', last_name: 'Mail', email });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details).toEqual({ email: 'is not a valid email address' });
  });

  it('checks the phone: format with country code, at most 20 characters', async () => {
    expect((await post({ first_name: 'Ph', last_name: 'One', phone: '+1 (555) 010-9999' })).statusCode).toBe(201);
    expect((await post({ first_name: 'Ph', last_name: 'One', phone: '+49 30 1234 5678 901' })).statusCode).toBe(201); // 20
    for (const phone of ['+49 30 1234 5678 9012', 'call me', '12345', '+49 30 12x45']) {
      const res = await post({ first_name: 'Ph', last_name: 'One', phone });
      expect(res.statusCode, phone).toBe(422);
      expect(res.json().error.details.phone).toEqual(expect.any(String));
    }
  });

  it('accepts notes of 1000 characters and refuses 1001', async () => {
    expect((await post({ first_name: 'Note', last_name: 'Taker', notes: 'n'.repeat(1000) })).statusCode).toBe(201);
    const res = await post({ first_name: 'Note', last_name: 'Taker', notes: 'n'.repeat(1001) });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details).toEqual({ notes: 'must be at most 1000 characters (got 1001)' });
  });

  it('names every failing field at once', async () => {
    const res = await post({ first_name: 'A', last_name: 'B2', email: 'nope', phone: 'x', notes: 'n'.repeat(1001), date_of_birth: '2020-02-30' });
    expect(res.statusCode).toBe(422);
    expect(Object.keys(res.json().error.details).sort()).toEqual(['date_of_birth', 'email', 'first_name', 'last_name', 'notes', 'phone']);
  });

  it('checks the birth date: a real date, not in the future', async () => {
    const tomorrow = DateTime.now().setZone('America/New_York').plus({ days: 1 }).toISODate();
    for (const date_of_birth of ['2021-02-29', '1990-1-1', tomorrow]) {
      const res = await post({ first_name: 'Born', last_name: 'Late', date_of_birth });
      expect(res.statusCode, String(date_of_birth)).toBe(422);
      expect(res.json().error.details.date_of_birth).toEqual(expect.any(String));
    }
  });

  it('refuses text with a NUL character, which PostgreSQL cannot store', async () => {
    const res = await post({ first_name: 'Nul', last_name: 'Char', address: 'a\u0000b', notes: '\u0000' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details).toEqual({ address: 'must not contain the NUL character', notes: 'must not contain the NUL character' });
  });

  it('documents the create-only fields in the OpenAPI document', async () => {
    const doc: Json = (await t.app.inject({ method: 'GET', url: '/booking-api/v1/openapi.json' })).json();
    const data = doc.paths['/booking-api/v1/customers'].post.responses['201'].content['application/json'].schema.properties.data;
    const created = doc.components.schemas[data.$ref.split('/').pop()];
    for (const field of ['customer_code', 'avatar_url', 'user_id', 'welcome_email_sent']) {
      expect(created.required).toContain(field);
      expect(created.properties[field].description, field).toEqual(expect.any(String));
    }
  });

  it('refuses custom field values that are not scalars', async () => {
    const res = await post({ first_name: 'Cu', last_name: 'Stom', custom_fields: { ok: 'x', nested: { a: 1 } } });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details).toEqual({ 'custom_fields.nested': expect.any(String) });
  });

  it('answers 400 invalid_request for missing fields, wrong types and unknown enum values', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ last_name: 'Lee' }, 'first_name'],
      [{ first_name: 'Ann', last_name: 'Lee', gender: 'robot' }, 'gender'],
      [{ first_name: 'Ann', last_name: 'Lee', status: 'blocked' }, 'status'],
      [{ first_name: 'Ann', last_name: 'Lee', host_user_id: 'abc' }, 'host_user_id'],
      [{ first_name: 'Ann', last_name: 'Lee', custom_fields: 'x' }, 'custom_fields'],
      [{ first_name: 'Ann', last_name: 'Lee', host_user_id: 2_147_483_648 }, 'host_user_id'],
      [{ first_name: 'Ann', last_name: 'Lee', preferred_agent_id: 2_147_483_648 }, 'preferred_agent_id'],
    ];
    for (const [payload, field] of cases) {
      const res = await post(payload);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.details).toHaveProperty(field);
    }
  });

  it('refuses an email in use, whatever its case: 409 with the existing customer', async () => {
    const email = uniqueEmail();
    const existing = await insertCustomer(t.db, { email });
    const res = await post({ first_name: 'Dup', last_name: 'Licate', email: email.toUpperCase() });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      status: 'error',
      error: {
        code: 'email_already_exists',
        message: expect.any(String),
        details: { email: email.toUpperCase(), existing_customer_id: existing },
      },
    });
  });

  it('lets concurrent creates of one email end in one customer, one mail and 409 for the rest', async () => {
    const email = uniqueEmail();
    const key = await t.key();
    const variants = [email, email.toUpperCase(), email, email.toUpperCase(), email];
    const responses = await Promise.all(variants.map((e) => post({ first_name: 'Race', last_name: 'Runner', email: e }, key)));
    const created = responses.filter((r) => r.statusCode === 201);
    expect(created).toHaveLength(1);
    const id = created[0]!.json().data.id;
    for (const r of responses.filter((r) => r.statusCode !== 201)) {
      expect(r.statusCode).toBe(409);
      expect(r.json().error.details.existing_customer_id).toBe(id);
    }
    const rows = await t.db.selectFrom('customers').select('id').where('email_lower', '=', email).execute();
    expect(rows).toEqual([{ id }]);
    expect(await t.db.selectFrom('outbox').select('id').where('kind', '=', 'customer_welcome').where('recipient', 'in', [email, email.toUpperCase()]).execute()).toHaveLength(1);
  });

  it('maps a unique violation inside the create transaction to email_already_exists and leaves nothing behind', async () => {
    const email = uniqueEmail();
    const existing = await insertCustomer(t.db, { email });
    const attempt = persistNewCustomer(
      t.db,
      TEST_ACTOR,
      { first_name: 'Late', last_name: `Comer${dialect}`, email: email.toUpperCase(), email_lower: email },
      new Date().toISOString(),
      'UTC',
    );
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ code: 'email_already_exists', details: { existing_customer_id: existing } });
    expect(await t.db.selectFrom('customers').select('id').where('last_name', '=', `Comer${dialect}`).execute()).toEqual([]);
    expect(await outboxFor(email.toUpperCase())).toEqual([]);
  });

  it('checks preferred agent and location: missing or inactive is data_inconsistency', async () => {
    const activeAgent = await insertAgent(t.db);
    const disabledAgent = await insertAgent(t.db, { status: 'disabled' });
    const activeLocation = await insertLocation(t.db);
    const inactiveLocation = await insertLocation(t.db, { status: 'inactive' });

    const ok = await post({ first_name: 'Pre', last_name: 'Ferred', preferred_agent_id: activeAgent, preferred_location_id: activeLocation });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().data).toMatchObject({ preferred_agent_id: activeAgent, preferred_location_id: activeLocation });

    const missing = await post({ first_name: 'Pre', last_name: 'Ferred', preferred_agent_id: 999_999, preferred_location_id: 999_999 });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().error).toMatchObject({
      code: 'data_inconsistency',
      details: { preferred_agent_id: expect.stringContaining('does not exist'), preferred_location_id: expect.stringContaining('does not exist') },
    });

    const inactive = await post({ first_name: 'Pre', last_name: 'Ferred', preferred_agent_id: disabledAgent, preferred_location_id: inactiveLocation });
    expect(inactive.statusCode).toBe(422);
    expect(inactive.json().error.details).toEqual({
      preferred_agent_id: expect.stringContaining('not active'),
      preferred_location_id: expect.stringContaining('not active'),
    });
  });

  it('answers 403 insufficient_permissions naming customers:create, and 401 without a key', async () => {
    const readOnly = await t.key({ permissions: ['customers:read'] });
    const res = await post({ first_name: 'No', last_name: 'Right' }, readOnly);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      status: 'error',
      error: { code: 'insufficient_permissions', message: expect.any(String), details: { required_permission: 'customers:create' } },
    });
    const anonymous = await t.app.inject({ method: 'POST', url: URL, payload: { first_name: 'No', last_name: 'Key' } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('unauthorized');
    expect(await t.db.selectFrom('customers').select('id').where('first_name', 'in', ['No']).where('last_name', 'in', ['Right', 'Key']).execute()).toEqual([]);
  });
});
