import { describe, expect, it } from 'vitest';
import { buildTestApp, DIALECTS, useTestApp, type Json } from '../helper.js';
import { API, requester } from '../bookings/setup.js';
import { WebhookSecrets } from '../../src/modules/webhooks/index.js';
import { startReceiver } from './receiver.js';

const RESOLVED: Record<string, string[]> = {
  'hooks.example.test': ['93.184.216.34'],
  'inside.example.test': ['10.0.0.1'],
  'mixed.example.test': ['93.184.216.34', '127.0.0.1'],
};
const resolve = (host: string) => (RESOLVED[host] ? Promise.resolve(RESOLVED[host]) : Promise.reject(new Error('ENOTFOUND')));

describe.each(DIALECTS)('webhook endpoints (%s)', (dialect) => {
  const t = useTestApp(dialect, {}, { appOptions: { resolve } });
  const call = requester(t);

  it('creates an endpoint and shows its secret once: never in a later answer nor in the stored row', async () => {
    const created = await call('POST', '/webhooks', { url: 'https://hooks.example.test/in', event_types: ['booking.created'], description: 'CRM' });
    expect(created.statusCode).toBe(201);
    const endpoint = created.json().data;
    expect(endpoint).toMatchObject({ url: 'https://hooks.example.test/in', event_types: ['booking.created'], status: 'enabled', disabled_reason: null });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const later = [await call('GET', `/webhooks/${endpoint.id}`), await call('GET', '/webhooks'), await call('PUT', `/webhooks/${endpoint.id}`, { description: 'CRM 2' })];
    for (const res of later) {
      expect(res.statusCode).toBe(200);
      expect(JSON.stringify(res.json())).not.toContain(endpoint.secret);
      expect(JSON.stringify(res.json())).not.toContain('"secret"');
    }
    const row = await t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(endpoint.secret.slice(6));
    expect((await call('PUT', `/webhooks/${endpoint.id}`, { event_types: null })).json().data.event_types).toBeNull();

    expect((await call('DELETE', `/webhooks/${endpoint.id}`)).json().data).toEqual({ id: endpoint.id, deleted: true });
    expect((await call('GET', `/webhooks/${endpoint.id}`)).statusCode).toBe(404);
  });

  it('rotation: a new secret shown once; the old one signs too for 24 hours', async () => {
    const { data: endpoint } = (await call('POST', '/webhooks', { url: 'https://hooks.example.test/r' })).json();
    const rotated = await call('POST', `/webhooks/${endpoint.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    const { secret, previous_secret_expires_at: expires } = rotated.json().data;
    expect(secret).not.toBe(endpoint.secret);
    const row = await t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    const secrets = new WebhookSecrets(Buffer.alloc(32));
    // The versions, not the secrets, are stored: the signing set follows them.
    expect(secrets.signingSecrets(row, new Date(Date.parse(expires) - 1000))).toHaveLength(2);
    expect(secrets.signingSecrets(row, new Date(Date.parse(expires) + 1000))).toHaveLength(1);
    expect(Date.parse(expires) - Date.parse(row.updated_at)).toBe(24 * 3_600_000);
  });

  it('refuses non-public addresses, bad URLs and unknown event types, naming the field', async () => {
    const refused = async (payload: object, field: string, text: RegExp) => {
      const res = await call('POST', '/webhooks', payload);
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toMatch(text);
      expect(JSON.stringify(res.json())).toContain(field);
    };
    for (const url of ['http://127.0.0.1/x', 'http://[::1]/x', 'http://169.254.169.254/latest', 'http://[::ffff:10.0.0.2]/x', 'http://100.64.0.1/x', 'http://[fd00::1]/x', 'http://0.0.0.0/x']) {
      await refused({ url }, 'url', /non-public address/);
    }
    await refused({ url: 'https://inside.example.test/x' }, 'url', /10\.0\.0\.1, private/);
    await refused({ url: 'https://mixed.example.test/x' }, 'url', /127\.0\.0\.1, loopback/);
    await refused({ url: 'https://nowhere.example.test/x' }, 'url', /does not resolve/);
    await refused({ url: 'ftp://hooks.example.test/x' }, 'url', /http or https/);
    await refused({ url: 'https://hooks.example.test/x', event_types: ['booking.exploded'] }, 'event_types', /must be one of|booking\.created/);
    await refused({ url: 'https://hooks.example.test/x', secret: 'mine' }, 'secret', /secret/);
    expect(await t.db.selectFrom('webhook_endpoints').select('id').where('url', 'like', '%/x').execute()).toEqual([]);
  });

  it('refuses again at delivery: an endpoint whose address turned private is never connected to', async () => {
    const receiver = await startReceiver();
    try {
      // As if its name had resolved to a public address when it was made and to this machine now.
      const at = new Date().toISOString();
      const { id } = await t.db
        .insertInto('webhook_endpoints')
        .values({ url: receiver.url, description: null, event_types: null, status: 'enabled', disabled_reason: null, secret_version: 1, previous_secret_version: null, previous_secret_expires_at: null, failing_since: null, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect((await call('POST', `/webhooks/${id}/test`)).statusCode).toBe(202);
      await t.app.jobs.runOnce();
      expect(receiver.received).toEqual([]);
      const [delivery] = (await call('GET', `/webhooks/${id}/deliveries`)).json<{ data: { status: string; attempt_log: { error: string }[] }[] }>().data;
      expect(delivery).toMatchObject({ status: 'pending' });
      expect(delivery!.attempt_log[0]!.error).toMatch(/127\.0\.0\.1.*not allowed/i);
    } finally {
      await receiver.close();
    }
  });

  it('private networks when allowed; https in production', async () => {
    const allowed = await buildTestApp(t.databaseUrl, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    const production = await buildTestApp(t.databaseUrl, { NODE_ENV: 'production', MANAGE_LINK_SECRET: 'production-secret-for-webhook-tests-0123456789abcdef' }, { appOptions: { resolve } });
    try {
      const key = await t.key();
      const post = (app: typeof allowed, url: string) => app.inject({ method: 'POST', url: `${API}/webhooks`, headers: { 'x-api-key': key }, payload: { url } });
      expect((await post(allowed, 'http://127.0.0.1:9/hooks')).statusCode).toBe(201);
      const live = await t.key({ type: 'live' });
      const inProduction = (url: string) => production.inject({ method: 'POST', url: `${API}/webhooks`, headers: { 'x-api-key': live }, payload: { url } });
      const plain = await inProduction('http://hooks.example.test/x');
      expect(plain.statusCode).toBe(400);
      expect(JSON.stringify(plain.json())).toMatch(/https URL in production/);
      expect((await inProduction('https://hooks.example.test/y')).statusCode).toBe(201);
    } finally {
      await allowed.close();
      await production.close();
    }
  });

  it('needs webhooks:read to read and webhooks:write to change', async () => {
    const reader = await t.key({ permissions: ['webhooks:read'] });
    const asReader = (method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': reader }, ...(payload ? { payload } : {}) });
    expect((await asReader('GET', '/webhooks')).statusCode).toBe(200);
    expect((await asReader('POST', '/webhooks', { url: 'https://hooks.example.test/p' })).statusCode).toBe(403);
    const none = await t.key({ permissions: ['bookings:read'] });
    expect((await t.app.inject({ method: 'GET', url: `${API}/webhooks`, headers: { 'x-api-key': none } })).statusCode).toBe(403);
    const list: Json = (await asReader('GET', '/webhooks?per_page=1')).json();
    expect(list.pagination).toMatchObject({ per_page: 1 });
  });
});
