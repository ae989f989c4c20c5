import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../src/modules/api-keys/service.js';
import { DIALECTS, buildTestApp, useTestApp, type Json } from '../helper.js';

const STATUS = '/booking-api/v1/status';

describe.each(DIALECTS)('authentication (%s)', (dialect) => {
  const t = useTestApp(dialect, {}, {
    beforeReady: (app) => {
      app.get('/booking-api/v1/test-needs-bookings-read', { config: { permission: 'bookings:read' } }, async () => ({ ok: true }));
      app.get(
        '/booking-api/v1/test-needs-customers-create',
        { config: { permission: 'customers:create', forbiddenCode: 'insufficient_permissions' } },
        async () => ({ ok: true }),
      );
    },
  });

  it('refuses a request without a key with 401 unauthorized', async () => {
    const res = await t.app.inject({ url: STATUS });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 'error', error: { code: 'unauthorized', message: expect.any(String) } });
  });

  it('refuses an unknown key and a malformed Authorization header', async () => {
    const unknown = await t.app.inject({ url: STATUS, headers: { 'x-api-key': 'bk_test_doesnotexistdoesnotexistdoesnot' } });
    expect(unknown.statusCode).toBe(401);
    const basic = await t.app.inject({ url: STATUS, headers: { authorization: `Basic ${await t.key()}` } });
    expect(basic.statusCode).toBe(401);
  });

  it('accepts the key as X-API-Key and as Authorization: Bearer', async () => {
    const key = await t.key();
    expect((await t.app.inject({ url: STATUS, headers: { 'x-api-key': key } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: STATUS, headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
  });

  it('stops accepting a revoked key on the very next request', async () => {
    const created = await createKey(t.db, { name: 'to revoke' });
    expect((await t.app.inject({ url: STATUS, headers: { 'x-api-key': created.key } })).statusCode).toBe(200);
    await revokeKey(t.db, created.id);
    const res = await t.app.inject({ url: STATUS, headers: { 'x-api-key': created.key } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthorized');
  });

  it('answers 403 forbidden when the key lacks the route permission, 200 when it has it', async () => {
    const reader = await t.key({ permissions: ['customers:read'] });
    const refused = await t.app.inject({ url: '/booking-api/v1/test-needs-bookings-read', headers: { 'x-api-key': reader } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('forbidden');
    const allowed = await t.key({ permissions: ['bookings:read'] });
    expect((await t.app.inject({ url: '/booking-api/v1/test-needs-bookings-read', headers: { 'x-api-key': allowed } })).statusCode).toBe(200);
  });

  it('names the required permission where the route answers insufficient_permissions', async () => {
    const reader = await t.key({ permissions: ['customers:read'] });
    const res = await t.app.inject({ url: '/booking-api/v1/test-needs-customers-create', headers: { 'x-api-key': reader } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatchObject({ code: 'insufficient_permissions', details: { required_permission: 'customers:create' } });
  });

  it('lets any valid key read /status whatever its permissions', async () => {
    const key = await t.key({ permissions: ['coupons:read'] });
    expect((await t.app.inject({ url: STATUS, headers: { 'x-api-key': key } })).statusCode).toBe(200);
  });

  it('stores only a hash of the key', async () => {
    const created = await createKey(t.db, { name: 'hashed' });
    const row: Json = await t.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.key);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(created.key).toMatch(/^bk_test_[A-Za-z0-9_-]{32,}$/);
  });

  it('refuses test keys in production and accepts live keys there', async () => {
    const app = await buildTestApp(t.databaseUrl, { NODE_ENV: 'production' });
    try {
      const test = await t.key({ type: 'test' });
      const live = await t.key({ type: 'live' });
      const refused = await app.inject({ url: STATUS, headers: { 'x-api-key': test } });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.message).toMatch(/production/);
      expect((await app.inject({ url: STATUS, headers: { 'x-api-key': live } })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('records authenticated and rejected requests in the audit log, without the key', async () => {
    const created = await createKey(t.db, { name: 'audited' });
    await t.app.inject({ url: `${STATUS}?x=1`, headers: { 'x-api-key': created.key, 'x-forwarded-for': '1.2.3.4' } });
    await t.app.inject({ url: STATUS, headers: { 'x-api-key': 'bk_test_nopenopenopenopenopenopenopenope' } });
    await t.app.audit.flush();
    const mine = await t.db.selectFrom('audit_log').selectAll().where('key_id', '=', created.id).execute();
    expect(mine).toHaveLength(1);
    // The path is kept without its query; the unknown parameter made the request a 400.
    expect(mine[0]).toMatchObject({ method: 'GET', path: STATUS, status: 400, ip: '127.0.0.1' });
    const rejected = await t.db.selectFrom('audit_log').selectAll().where('key_id', 'is', null).where('status', '=', 401).execute();
    expect(rejected.length).toBeGreaterThan(0);
    const all = await t.db.selectFrom('audit_log').selectAll().execute();
    expect(JSON.stringify(all)).not.toContain('bk_test_');
    const key = await t.db.selectFrom('api_keys').select('last_used_at').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(key.last_used_at).not.toBeNull();
  });

  it('writes a batch of audit entries whole or not at all, so a retried flush records each request once', async () => {
    const created = await createKey(t.db, { name: 'flaky-touch' });
    // Stamping the key's last use fails after the entries are inserted, until the trigger goes.
    if (dialect === 'sqlite') {
      await sql`CREATE TRIGGER refuse_touch BEFORE UPDATE ON api_keys WHEN NEW.name = 'flaky-touch' BEGIN SELECT RAISE(ABORT, 'refused by test trigger'); END`.execute(t.db);
    } else {
      await sql
        .raw(
          `CREATE FUNCTION refuse_touch() RETURNS trigger AS $$ BEGIN IF NEW.name = 'flaky-touch' THEN RAISE EXCEPTION 'refused by test trigger'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
        )
        .execute(t.db);
      await sql`CREATE TRIGGER refuse_touch BEFORE UPDATE ON api_keys FOR EACH ROW EXECUTE FUNCTION refuse_touch()`.execute(t.db);
    }
    for (let i = 0; i < 3; i++) await t.app.inject({ url: STATUS, headers: { 'x-api-key': created.key } });
    await t.app.audit.flush();
    const entries = () => t.db.selectFrom('audit_log').select('id').where('key_id', '=', created.id).execute();
    expect(await entries()).toHaveLength(0);
    await sql`DROP TRIGGER refuse_touch${sql.raw(dialect === 'postgres' ? ' ON api_keys' : '')}`.execute(t.db);
    await t.app.audit.flush();
    expect(await entries()).toHaveLength(3);
  });

  it('needs no key for health, readiness and the OpenAPI document', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ready' });
    const openapi = await t.app.inject({ url: '/booking-api/v1/openapi.json' });
    expect(openapi.statusCode).toBe(200);
    expect(openapi.json().openapi).toBe('3.1.0');
    expect(openapi.json().paths['/booking-api/v1/status'].get.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect((await t.app.inject({ url: '/docs/' })).statusCode).toBe(200);
  });

  it('serves the API documentation pages with headers that forbid framing them', async () => {
    for (const url of ['/docs', '/docs/']) {
      const page = await t.app.inject({ url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['x-frame-options'], url).toBe('DENY');
      expect(page.headers['content-security-policy'], url).toBe("frame-ancestors 'none'");
    }
  });
});
