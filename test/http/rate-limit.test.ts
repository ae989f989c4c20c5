import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/core/app.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { DIALECTS, REDIS_URL, buildTestApp, createTestDatabase, useTestApp, type TestDatabase } from '../helper.js';

const STATUS = '/booking-api/v1/status';
// Half a minute into an hour: neither the minute nor the hour window ends during a test.
const PINNED_NOW = Date.UTC(2026, 10, 21, 10, 0, 30);
const MINUTE_END_S = Date.UTC(2026, 10, 21, 10, 1, 0) / 1000;
const HOUR_END_S = Date.UTC(2026, 10, 21, 11, 0, 0) / 1000;
const now = (): number => PINNED_NOW;

describe.each(DIALECTS)('rate limits (%s)', (dialect) => {
  const t = useTestApp(dialect, {}, { now });

  it('describes the tighter window in the headers and answers 429 past the limit', async () => {
    const key = await t.key({ perMinute: 3, perHour: 100 });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ url: STATUS, headers: { 'x-api-key': key } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['x-ratelimit-reset']).toBe(String(MINUTE_END_S));
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const refused = await t.app.inject({ url: STATUS, headers: { 'x-api-key': key } });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.json()).toEqual({
      status: 'error',
      error: { code: 'rate_limit_exceeded', message: expect.any(String), retry_after: 30 },
    });
  });

  it('carries rate_limit_exceeded and retry_after beside the message in the payment and customer-update styles too', async () => {
    const key = await t.key({ perMinute: 1, perHour: 100 });
    expect((await t.app.inject({ url: STATUS, headers: { 'x-api-key': key } })).statusCode).toBe(200);
    const payments = await t.app.inject({ url: '/booking-api/v1/payments', headers: { 'x-api-key': key } });
    expect(payments.statusCode).toBe(429);
    expect(payments.json()).toEqual({ success: false, error: expect.any(String), code: 'rate_limit_exceeded', retry_after: 30 });
    const customer = await t.app.inject({ method: 'PUT', url: '/booking-api/v1/customers/1', headers: { 'x-api-key': key }, payload: { notes: 'x' } });
    expect(customer.statusCode).toBe(429);
    expect(customer.json()).toEqual({ code: 'rate_limit_exceeded', message: expect.any(String), retry_after: 30, data: { status: 429 } });
  });

  it('switches the headers to the hour window when it has fewer requests left', async () => {
    const key = await t.key({ perMinute: 50, perHour: 2 });
    const first = await t.app.inject({ url: STATUS, headers: { 'x-api-key': key } });
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect(first.headers['x-ratelimit-reset']).toBe(String(HOUR_END_S));
    await t.app.inject({ url: STATUS, headers: { 'x-api-key': key } });
    const refused = await t.app.inject({ url: STATUS, headers: { 'x-api-key': key } });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.retry_after).toBe(HOUR_END_S - PINNED_NOW / 1000);
  });

  it('gives test and live keys the spec limits by default', async () => {
    const test = await t.app.inject({ url: STATUS, headers: { 'x-api-key': await t.key({ type: 'test' }) } });
    expect(test.headers['x-ratelimit-limit']).toBe('100');
    const live = await t.app.inject({ url: STATUS, headers: { 'x-api-key': await t.key({ type: 'live' }) } });
    expect(live.headers['x-ratelimit-limit']).toBe('60');
  });

  it('counts each key on its own', async () => {
    const a = await t.key({ perMinute: 1 });
    const b = await t.key({ perMinute: 1 });
    expect((await t.app.inject({ url: STATUS, headers: { 'x-api-key': a } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: STATUS, headers: { 'x-api-key': b } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: STATUS, headers: { 'x-api-key': a } })).statusCode).toBe(429);
  });

  it('limits failed authentications to 30 a minute per IP, leaving valid keys alone', async () => {
    const ip = '203.0.113.7';
    for (let i = 0; i < 30; i++) {
      const res = await t.app.inject({ url: STATUS, remoteAddress: ip, headers: { 'x-api-key': 'bk_test_wrongwrongwrongwrongwrongwrong' } });
      expect(res.statusCode).toBe(401);
      // The headers describe the client's budget of failed authentications.
      expect(res.headers).toMatchObject({ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': String(29 - i) });
    }
    const blocked = await t.app.inject({ url: STATUS, remoteAddress: ip });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe('rate_limit_exceeded');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.headers).toMatchObject({ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0' });
    expect(blocked.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    const valid = await t.app.inject({ url: STATUS, remoteAddress: ip, headers: { 'x-api-key': await t.key() } });
    expect(valid.statusCode).toBe(200);
    const otherIp = await t.app.inject({ url: STATUS, remoteAddress: '203.0.113.8' });
    expect(otherIp.statusCode).toBe(401);
  });

  it('records rate-limit rejections in the audit log', async () => {
    const created = await createKey(t.db, { name: 'limited', perMinute: 1 });
    await t.app.inject({ url: STATUS, headers: { 'x-api-key': created.key } });
    await t.app.inject({ url: STATUS, headers: { 'x-api-key': created.key } });
    await t.app.audit.flush();
    const statuses = (await t.db.selectFrom('audit_log').select('status').where('key_id', '=', created.id).orderBy('id').execute()).map(
      (r) => r.status,
    );
    expect(statuses).toEqual([200, 429]);
  });
});

describe.each(DIALECTS)('rate limits shared through Redis by two instances (%s)', (dialect) => {
  let database: TestDatabase;
  let apps: App[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    apps = [
      await buildTestApp(database.url, { REDIS_URL }, { now }),
      await buildTestApp(database.url, { REDIS_URL }, { now }),
    ];
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database.drop();
  });

  it('spends one budget across both instances: a key limited to 5 gets exactly 5 successes', async () => {
    const { key } = await createKey(apps[0]!.db, { name: 'shared', perMinute: 5 });
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => apps[i % 2]!.inject({ url: STATUS, headers: { 'x-api-key': key } }).then((r) => r.statusCode)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  it('without Redis each instance would count alone (the contrast that shows the sharing)', async () => {
    const solo = [await buildTestApp(database.url, {}, { now }), await buildTestApp(database.url, {}, { now })];
    try {
      const { key } = await createKey(solo[0]!.db, { name: 'unshared', perMinute: 5 });
      const statuses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => solo[i % 2]!.inject({ url: STATUS, headers: { 'x-api-key': key } }).then((r) => r.statusCode)),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    } finally {
      for (const app of solo) await app.close();
    }
  });
});

describe('a Redis that cannot be reached at start', () => {
  it('stops start-up with a message naming REDIS_URL', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      await expect(buildTestApp(database.url, { REDIS_URL: 'redis://127.0.0.1:1' })).rejects.toThrow(/REDIS_URL/);
    } finally {
      await database.drop();
    }
  });
});
