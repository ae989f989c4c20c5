import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/modules/api-keys/service.js';
import { insertEntries } from '../../src/modules/audit/repository.js';
import { enqueueMail } from '../../src/modules/mail/outbox.js';
import { SITE_SCHEDULE_KEY } from '../../src/modules/schedules/model.js';
import { readSiteSchedule } from '../../src/modules/schedules/repository.js';
import { getSettings } from '../../src/modules/settings/service.js';
import { connectAgent, insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { MAX_ADVANCE_DAYS } from '../../src/core/limits.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { csrfOf, form, FORM, signIn, type Signed, storeCheapAdminPassword } from './session.js';

const WEEKLY_FORM = {
  monday: '09:00-12:00, 13:00-17:00',
  tuesday: '08:30-16:00',
  wednesday: '',
  thursday: '09:00-17:00',
  friday: '09:00-13:00',
  saturday: '',
  sunday: '',
};

describe.each(DIALECTS)('admin pages (%s)', (dialect) => {
  const t = useTestApp(dialect);
  let s: Signed;
  beforeAll(async () => {
    await storeCheapAdminPassword(t.db);
    s = await signIn(t.app);
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
  const post = (url: string, values: Record<string, string | string[]>) =>
    t.app.inject({ method: 'POST', url, headers: { ...FORM, cookie: s.cookie }, payload: form({ _csrf: s.csrf, ...values }) });
  const api = (key: string, url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  it('a JSON body whose values are not text is a form without them: a 4xx page, never 500', async () => {
    const json = (url: string, values: Record<string, unknown>, cookie = s.cookie) =>
      t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', cookie }, payload: JSON.stringify(values) });
    for (const [url, values] of [
      ['/admin/keys', { name: 5, permissions: '*' }],
      ['/admin/keys', { name: ['x'], permissions: [{}] }],
      ['/admin/settings', { timezone: 5 }],
      ['/admin/settings', { timezone: ['UTC'], slot_interval_minutes: {} }],
    ] as const) {
      const res = await json(url, { _csrf: s.csrf, ...values });
      expect(res.statusCode, `${url} ${JSON.stringify(values)}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    }

    const login = await t.app.inject({ method: 'GET', url: '/admin/login', remoteAddress: '10.0.0.9' });
    const loginCookie = login.cookies.find((c) => c.name === 'bk_admin_login');
    for (const password of [5, [5], {}]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/login',
        remoteAddress: '10.0.0.9',
        headers: { 'content-type': 'application/json', cookie: `bk_admin_login=${loginCookie?.value ?? ''}` },
        payload: JSON.stringify({ _csrf: csrfOf(login.body), password }),
      });
      expect(res.statusCode, JSON.stringify(password)).toBe(401);
    }
  });

  describe('API keys', () => {
    it('creates a key, shows its value once, and only a hash is stored', async () => {
      const res = await post('/admin/keys', {
        name: 'Widget <script>',
        type: 'live',
        permissions: ['bookings:read', 'customers:read'],
        per_minute: '7',
        per_hour: '',
      });
      expect(res.statusCode).toBe(200);
      const value = /<code id="new-key-value">(bk_live_[\w-]+)<\/code>/.exec(res.body)?.[1];
      expect(value).toBeDefined();
      expect(res.body).toContain('Widget &#60;script&#62;');
      expect(res.body).not.toContain('Widget <script>');

      const row = await t.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hashKey(value!)).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ name: 'Widget <script>', type: 'live', per_minute: 7, per_hour: 3600, status: 'active' });
      expect(JSON.parse(row.permissions)).toEqual(['bookings:read', 'customers:read']);

      const list = await get('/admin/keys');
      expect(list.body).not.toContain(value);
      expect(list.body).toContain(value!.slice(0, 12));
      expect((await api(value!, '/booking-api/v1/status')).statusCode).toBe(200);
    });

    it('explains a key it cannot create and keeps what was typed', async () => {
      const before = await t.db.selectFrom('api_keys').select('id').execute();
      const none = await post('/admin/keys', { name: 'No permissions', type: 'test' });
      expect(none.statusCode).toBe(422);
      expect(none.body).toContain('a key needs at least one permission');
      expect(none.body).toContain('value="No permissions"');
      const limit = await post('/admin/keys', { name: 'Bad limit', permissions: '*', per_hour: 'lots' });
      expect(limit.statusCode).toBe(422);
      expect(limit.body).toContain('Requests per hour must be a whole number');
      expect(await t.db.selectFrom('api_keys').select('id').execute()).toHaveLength(before.length);
    });

    it('refuses a form without the session CSRF token', async () => {
      const before = await t.db.selectFrom('api_keys').select('id').execute();
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/keys',
        headers: { ...FORM, cookie: s.cookie },
        payload: form({ _csrf: 'forged', name: 'x', permissions: '*' }),
      });
      expect(res.statusCode).toBe(403);
      expect(await t.db.selectFrom('api_keys').select('id').execute()).toHaveLength(before.length);
    });

    it('lists requests of the last 24 hours per key and revokes a key for good', async () => {
      const created = await post('/admin/keys', { name: 'Counted', permissions: '*' });
      const value = /<code id="new-key-value">([\w-]+)<\/code>/.exec(created.body)![1]!;
      const { id } = await t.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashKey(value)).executeTakeFirstOrThrow();
      for (let i = 0; i < 3; i++) expect((await api(value, '/booking-api/v1/status')).statusCode).toBe(200);
      // An older request does not count.
      await insertEntries(t.db, [
        { at: new Date(Date.now() - 25 * 3_600_000).toISOString(), key_id: id, method: 'GET', path: '/x', status: 200, ip: '1.1.1.1', duration_ms: 1 },
      ]);
      await t.app.audit.flush();
      const list = await get('/admin/keys');
      expect(list.body).toMatch(new RegExp(`<tr data-key-id="${id}">[\\s\\S]*?<a href="/admin/log\\?key=${id}">3</a>`));

      const revoked = await post(`/admin/keys/${id}/revoke`, {});
      expect(revoked.statusCode).toBe(303);
      expect(revoked.headers.location).toBe(`/admin/keys?revoked=${id}`);
      expect((await get(revoked.headers.location as string)).body).toContain('Key “Counted”');
      expect((await api(value, '/booking-api/v1/status')).statusCode).toBe(401);
      expect((await t.db.selectFrom('api_keys').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('inactive');
      expect((await post('/admin/keys/999999/revoke', {})).statusCode).toBe(404);
    });
  });

  describe('request log', () => {
    let keyId: number;
    beforeAll(async () => {
      // One request a minute: the second call is refused with 429, and both are logged.
      const created = await post('/admin/keys', { name: 'Logged', permissions: 'bookings:read', per_minute: '1' });
      const value = /<code id="new-key-value">([\w-]+)<\/code>/.exec(created.body)![1]!;
      keyId = (await t.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashKey(value)).executeTakeFirstOrThrow()).id;
      expect((await api(value, '/booking-api/v1/status')).statusCode).toBe(200);
      expect((await api(value, '/booking-api/v1/status')).statusCode).toBe(429);
      await api('bk_test_not_a_key', '/booking-api/v1/status');
      await t.app.audit.flush();
    });

    it('filters by key, status class and path', async () => {
      const byKey = await get(`/admin/log?key=${keyId}`);
      expect(byKey.statusCode).toBe(200);
      expect(byKey.body).toContain('<span class="badge s2">200</span>');
      expect(byKey.body).toContain(`<td>Logged (#${keyId})</td>`);
      expect(byKey.body).toContain('2 in all');

      const clientErrors = await get(`/admin/log?key=${keyId}&status=4xx`);
      expect(clientErrors.body).toContain('<span class="badge s4">429</span>');
      expect(clientErrors.body).not.toContain('<span class="badge s2">200</span>');
      expect(clientErrors.body).toContain('1 in all');

      const anonymous = await get('/admin/log?key=none&status=4xx&path=STATUS');
      expect(anonymous.body).toMatch(/<td>no valid key<\/td><td>GET<\/td><td class="mono">\/booking-api\/v1\/status<\/td><td><span class="badge s4">401<\/span>/);
      expect(anonymous.body).not.toContain('<span class="badge s2">');
      expect(anonymous.body).not.toContain(`Logged (#${keyId})</td>`);
    });

    it('draws usage per key over time as an SVG chart', async () => {
      const res = await get('/admin/log');
      expect(res.body).toMatch(/<svg viewBox="0 0 1000 220"[^>]*aria-label="Requests per key per hour"/);
      expect(res.body).toMatch(new RegExp(`<polyline [^>]+><title>Logged \\(#${keyId}\\)</title></polyline>`));
      expect(res.body).toContain(`Logged (#${keyId}): 2`);
      const week = await get('/admin/log?from=2000-01-01T00:00&to=2000-01-08T00:00');
      expect(week.body).toContain('aria-label="Requests per key per day"');
      expect(week.body).toContain('No requests in this range.');
    });

    it('pages through many entries, newest first', async () => {
      const base = Date.parse('2001-01-01T00:00:00Z');
      await insertEntries(
        t.db,
        Array.from({ length: 60 }, (_, i) => ({
          at: new Date(base + i * 60_000).toISOString(),
          key_id: null,
          method: 'GET',
          path: `/paged/${i}`,
          status: 200,
          ip: '2.2.2.2',
          duration_ms: 1,
        })),
      );
      const first = await get('/admin/log?path=/paged/');
      expect(first.body).toContain('Page 1 of 2 · 60 in all');
      expect(first.body).toContain('/paged/59<');
      expect(first.body).not.toContain('/paged/9<');
      const second = await get('/admin/log?path=/paged/&page=2');
      expect(second.body).toContain('/paged/9<');
      expect(second.body).not.toContain('/paged/59<');
    });

    it('answers bad filters with a clear error page', async () => {
      for (const query of ['status=6xx', 'key=abc', 'key=2147483648', 'from=yesterday', 'page=0', 'from=2026-02-30T10:00', 'from=2026-01-02T00:00&to=2026-01-01T00:00']) {
        const res = await get(`/admin/log?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.headers['content-type']).toMatch(/text\/html/);
        expect(res.body).not.toMatch(/at .*\.ts:\d+/);
      }
    });
  });

  describe('settings', () => {
    it('saves timezone, slot interval, lead time and weekly hours, keeping date exceptions', async () => {
      const exception = { date: '2030-12-24', periods: [] };
      await t.db
        .insertInto('settings')
        .values({ key: SITE_SCHEDULE_KEY, value: JSON.stringify({ ...(await readSiteSchedule(t.db)), exceptions: [exception] }), updated_at: 'x' })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: (eb) => eb.ref('excluded.value') }))
        .execute();
      const res = await post('/admin/settings', { timezone: 'Europe/Berlin', slot_interval_minutes: '15', min_lead_minutes: '120', ...WEEKLY_FORM });
      expect(res.statusCode).toBe(303);
      // The page leaves max_advance_days and the message settings (set through the API and the CLI) as they were.
      expect(await getSettings(t.db)).toEqual({
        timezone: 'Europe/Berlin',
        slot_interval_minutes: 15,
        min_lead_minutes: 120,
        max_advance_days: MAX_ADVANCE_DAYS,
        cancel_cutoff_minutes: 0,
        reschedule_cutoff_minutes: 0,
        currency: 'USD',
        reminder_offsets_minutes: [1440],
        staff_notifications: true,
      });
      const schedule = await readSiteSchedule(t.db);
      expect(schedule.weekly.monday).toEqual([
        { start: '09:00', end: '12:00' },
        { start: '13:00', end: '17:00' },
      ]);
      expect(schedule.weekly.wednesday).toEqual([]);
      expect(schedule.exceptions).toEqual([exception]);
      const page = await get('/admin/settings?saved=1');
      expect(page.body).toContain('Settings saved.');
      expect(page.body).toContain('value="09:00-12:00, 13:00-17:00"');
      expect(page.body).toContain('<option selected>Europe/Berlin</option>');
    });

    it('saves nothing when any field is wrong, and says which', async () => {
      const before = await getSettings(t.db);
      const scheduleBefore = await readSiteSchedule(t.db);
      const res = await post('/admin/settings', {
        timezone: 'Mars/Olympus',
        slot_interval_minutes: '2',
        min_lead_minutes: '0',
        ...WEEKLY_FORM,
        monday: '17:00-09:00',
        tuesday: '09:00-12:00, 11:00-13:00',
        thursday: '9-5',
        friday: '24:00-25:00',
      });
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain('Nothing was saved');
      expect(res.body).toContain('is not an IANA time zone name');
      expect(res.body).toContain('slot_interval_minutes must be an integer from 5 to 720');
      expect(res.body).toContain('17:00-09:00: the start must be before the end');
      expect(res.body).toContain('09:00-12:00 and 11:00-13:00 overlap');
      expect(res.body).toContain('times must be HH:MM');
      expect(res.body).toContain('value="9-5"');
      expect(await getSettings(t.db)).toEqual(before);
      expect(await readSiteSchedule(t.db)).toEqual(scheduleBefore);
    });
  });

  describe('calendar', () => {
    let bookingId: number;
    let agentId: number;
    beforeAll(async () => {
      await post('/admin/settings', { timezone: 'UTC', slot_interval_minutes: '30', min_lead_minutes: '0', ...WEEKLY_FORM });
      agentId = await insertAgent(t.db, { first_name: 'Grace', last_name: 'Hopper' });
      const idle = await insertAgent(t.db, { first_name: 'Idle', last_name: 'Agent' });
      const serviceId = await insertService(t.db, { name: 'Consultation' });
      const locationId = await insertLocation(t.db);
      await connectAgent(t.db, agentId, { serviceIds: [serviceId], locationIds: [locationId] });
      const customerId = await insertCustomer(t.db, { first_name: 'Ada', last_name: 'Lovelace' });
      const refs = { serviceId, agentId, locationId, customerId };
      bookingId = await insertBooking(t.db, refs, { status: 'pending', notes: 'Bring <papers>' });
      await insertBooking(t.db, { ...refs, agentId: idle }, { status: 'cancelled', start_date: '2030-01-09', end_date: '2030-01-09' });
    });

    it('shows a day per agent, each booking coloured by status and linked to its details', async () => {
      const res = await get('/admin/calendar?date=2030-01-07');
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('Monday, 7 January 2030');
      expect(res.body).toMatch(new RegExp(`<tr data-agent-id="${agentId}"><td class="agent">Grace Hopper`));
      expect(res.body).toMatch(
        new RegExp(`<a class="bk pending" href="/admin/bookings/${bookingId}"[^>]*style="left:[\\d.]+%;width:[\\d.]+%">10:00–11:00 Consultation · Ada Lovelace</a>`),
      );
      const empty = await get('/admin/calendar?date=2030-01-08');
      expect(empty.body).not.toContain(`/admin/bookings/${bookingId}"`);
    });

    it('shows a week from Monday with every booking of it', async () => {
      const res = await get('/admin/calendar?date=2030-01-10&view=week');
      expect(res.body).toContain('7 Jan – 13 Jan 2030');
      expect(res.body).toContain(`<a class="bk pending" href="/admin/bookings/${bookingId}"`);
      expect(res.body).toContain('class="bk cancelled"');
      expect(res.body).toContain('Idle Agent');
      expect((await get('/admin/calendar?date=2030-02-30')).statusCode).toBe(400);
    });

    it('shows a booking with its details', async () => {
      const res = await get(`/admin/bookings/${bookingId}`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('Consultation');
      expect(res.body).toContain('Grace Hopper');
      expect(res.body).toContain('Ada Lovelace');
      expect(res.body).toContain('2030-01-07 10:00 (UTC)');
      expect(res.body).toContain('Bring &#60;papers&#62;');
      expect((await get('/admin/bookings/999999')).statusCode).toBe(404);
      expect((await get('/admin/bookings/abc')).statusCode).toBe(400);
    });
  });

  describe('outbox', () => {
    beforeEach(async () => {
      await t.db.deleteFrom('outbox').execute();
    });

    it('lists mail with status, attempts and last error, filtered by status and paged', async () => {
      const failed = await enqueueMail(t.db, { kind: 'booking_change', recipient: 'x@example.test', subject: 'Changed <1>', payload: {} });
      await t.db.updateTable('outbox').set({ status: 'failed', attempts: 5, last_error: '550 Mailbox unavailable' }).where('id', '=', failed).execute();
      for (let i = 0; i < 55; i++) await enqueueMail(t.db, { kind: 'customer_welcome', recipient: `u${i}@example.test`, subject: 'Welcome', payload: {} });

      const all = await get('/admin/outbox');
      expect(all.body).toContain('Page 1 of 2 · 56 in all');
      const only = await get('/admin/outbox?status=failed');
      expect(only.body).toContain('1 in all');
      expect(only.body).toMatch(
        /<td>booking change<\/td><td>x@example.test<\/td><td>Changed &#60;1&#62;<\/td>\s*<td><span class="badge failed">failed<\/span><\/td><td class="num">5<\/td>[\s\S]*550 Mailbox unavailable/,
      );
      expect((await get('/admin/outbox?status=lost')).statusCode).toBe(400);
    });
  });
});
