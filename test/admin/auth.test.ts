import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { ADMIN_PASSWORD_KEY, setAdminPassword, verifyPassword } from '../../src/modules/admin/password.js';
import { LOGIN_ATTEMPTS } from '../../src/modules/admin/session-plugin.js';
import { enqueueMail } from '../../src/modules/mail/outbox.js';
import { buildTestApp, DIALECTS, useTestApp, type Json } from '../helper.js';
import { csrfOf, form, FORM, PASSWORD, postLogin, signIn } from './session.js';

function io(stdin: string) {
  let stdout = '';
  let stderr = '';
  return {
    io: {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      stdin: Readable.from([Buffer.from(stdin)]),
    },
    out: () => stdout,
    err: () => stderr,
  };
}

describe.each(DIALECTS)('admin sign-in (%s)', (dialect) => {
  const t = useTestApp(dialect);

  it('without a password set, the sign-in page says how to set one and nothing signs in', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/admin/login' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('npx booking admin-password set');
    expect(page.body).not.toContain('name="password"');
    const token = page.cookies.find((c) => c.name === 'bk_admin_login')!.value;
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/login',
      remoteAddress: '10.0.0.1',
      headers: { ...FORM, cookie: `bk_admin_login=${token}` },
      payload: form({ _csrf: token, password: 'anything at all' }),
    });
    expect(res.statusCode).toBe(401);
    expect(res.cookies.find((c) => c.name === 'bk_admin_session')).toBeUndefined();
  });

  it('admin-password set reads stdin, stores a salted scrypt hash and signs every session out', async () => {
    await setAdminPassword(t.db, 'an older password');
    const before = await signIn(t.app).catch(() => undefined);
    expect(before).toBeUndefined(); // PASSWORD is not the stored one yet

    const cli = io(`${PASSWORD}\n`);
    expect(await runCli(['admin-password', 'set'], cli.io, { DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent' })).toBe(0);
    expect(cli.out()).toContain('Admin password set');
    const row = await t.db.selectFrom('settings').select('value').where('key', '=', ADMIN_PASSWORD_KEY).executeTakeFirstOrThrow();
    expect(row.value).toMatch(/^scrypt\$32768\$8\$1\$[\w+/=]+\$[\w+/=]+$/);
    expect(row.value).not.toContain(PASSWORD);
    expect(await verifyPassword(PASSWORD, row.value)).toBe(true);
    expect(await verifyPassword(`${PASSWORD} `, row.value)).toBe(false);

    const signed = await signIn(t.app);
    const again = io(`${PASSWORD}\n`);
    expect(await runCli(['admin-password', 'set'], again.io, { DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent' })).toBe(0);
    const stored = await t.db.selectFrom('settings').select('value').where('key', '=', ADMIN_PASSWORD_KEY).executeTakeFirstOrThrow();
    expect(stored.value).not.toBe(row.value); // a new salt every time
    const res = await t.app.inject({ method: 'GET', url: '/admin/keys', headers: { cookie: signed.cookie } });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/login');
  });

  it('admin-password set refuses a short password and keeps the old one', async () => {
    const before = await t.db.selectFrom('settings').select('value').where('key', '=', ADMIN_PASSWORD_KEY).executeTakeFirstOrThrow();
    const cli = io('short\n');
    expect(await runCli(['admin-password', 'set'], cli.io, { DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent' })).toBe(1);
    expect(cli.err()).toMatch(/8 to 1024 characters/);
    const after = await t.db.selectFrom('settings').select('value').where('key', '=', ADMIN_PASSWORD_KEY).executeTakeFirstOrThrow();
    expect(after.value).toBe(before.value);
  });

  it('signs in with the right password: session cookie HttpOnly, SameSite=Strict, path /admin, not Secure over plain HTTP', async () => {
    const res = await postLogin(t.app, PASSWORD, '10.0.0.2');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/keys');
    const session = res.cookies.find((c) => c.name === 'bk_admin_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
    expect(session?.secure).toBeFalsy();
    expect(session!.value).toMatch(/^[\w-]{40,}$/);
    // Only a hash of the token is stored.
    const rows = await t.db.selectFrom('admin_sessions').select('id').execute();
    expect(rows.some((r) => r.id === session!.value)).toBe(false);
  });

  it('refuses a wrong password, and a sign-in form without its CSRF token', async () => {
    const wrong = await postLogin(t.app, 'not the password', '10.0.0.3');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Wrong password.');
    expect(wrong.cookies.find((c) => c.name === 'bk_admin_session')).toBeUndefined();

    const page = await t.app.inject({ method: 'GET', url: '/admin/login', remoteAddress: '10.0.0.3' });
    const forged = await t.app.inject({
      method: 'POST',
      url: '/admin/login',
      remoteAddress: '10.0.0.3',
      headers: FORM,
      payload: form({ _csrf: csrfOf(page.body), password: PASSWORD }),
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['content-type']).toMatch(/text\/html/);
    expect(forged.cookies.find((c) => c.name === 'bk_admin_session')).toBeUndefined();

    // A cookie and a form token that agree but were never issued (empty, short) sign nobody in.
    for (const token of ['', 'abc']) {
      const made = await t.app.inject({
        method: 'POST',
        url: '/admin/login',
        remoteAddress: '10.0.0.3',
        headers: { ...FORM, cookie: `bk_admin_login=${token}` },
        payload: form({ _csrf: token, password: PASSWORD }),
      });
      expect(made.statusCode).toBe(403);
      expect(made.cookies.find((c) => c.name === 'bk_admin_session')).toBeUndefined();
    }
  });

  it(`limits sign-in attempts to ${LOGIN_ATTEMPTS} per address and window, even with the right password after that`, async () => {
    for (let i = 0; i < LOGIN_ATTEMPTS; i++) expect((await postLogin(t.app, 'guess', '10.0.0.4')).statusCode).toBe(401);
    const limited = await postLogin(t.app, PASSWORD, '10.0.0.4');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toContain('Too many sign-in attempts');
    // Another address is not affected.
    expect((await postLogin(t.app, PASSWORD, '10.0.0.5')).statusCode).toBe(303);
  });

  it('every page needs a session; signing out ends it', async () => {
    for (const url of ['/admin', '/admin/keys', '/admin/log', '/admin/calendar', '/admin/settings', '/admin/outbox', '/admin/bookings/1']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location, url).toBe('/admin/login');
    }
    const signed = await signIn(t.app, '10.0.0.6');
    const page = await t.app.inject({ method: 'GET', url: '/admin/keys', headers: { cookie: signed.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'nonce-/);
    expect(page.headers['x-frame-options']).toBe('DENY');

    const noToken = await t.app.inject({ method: 'POST', url: '/admin/logout', headers: { ...FORM, cookie: signed.cookie }, payload: '' });
    expect(noToken.statusCode).toBe(403);
    const out = await t.app.inject({ method: 'POST', url: '/admin/logout', headers: { ...FORM, cookie: signed.cookie }, payload: form({ _csrf: signed.csrf }) });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/admin/login');
    const after = await t.app.inject({ method: 'GET', url: '/admin/keys', headers: { cookie: signed.cookie } });
    expect(after.statusCode).toBe(303);
  });

  it('an expired session is refused', async () => {
    const signed = await signIn(t.app, '10.0.0.7');
    await t.db.updateTable('admin_sessions').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    const res = await t.app.inject({ method: 'GET', url: '/admin/keys', headers: { cookie: signed.cookie } });
    expect(res.statusCode).toBe(303);
  });

  it('admin routes need no API key and stay out of the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/booking-api/v1/openapi.json' });
    const paths = Object.keys(res.json<Json>().paths ?? {});
    expect(paths.some((p) => p.startsWith('/admin'))).toBe(false);
    const audited = await t.db.selectFrom('audit_log').select('path').where('path', 'like', '/admin%').execute();
    expect(audited).toEqual([]);
  });

  it('outbox list prints the contract fields, newest first', async () => {
    await t.db.deleteFrom('outbox').execute();
    await enqueueMail(t.db, { kind: 'customer_welcome', recipient: 'a@example.test', subject: 'Welcome A', payload: {} });
    await enqueueMail(t.db, { kind: 'booking_confirmation', recipient: 'b@example.test', subject: 'Booked B', payload: {} });
    const cli = io('');
    expect(await runCli(['outbox', 'list', '--json'], cli.io, { DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent' })).toBe(0);
    const mails = JSON.parse(cli.out()) as Json[];
    expect(mails.map((m) => Object.keys(m).sort())).toEqual([
      ['attempts', 'created_at', 'kind', 'status', 'subject', 'to'],
      ['attempts', 'created_at', 'kind', 'status', 'subject', 'to'],
    ]);
    expect(mails[0]).toMatchObject({ to: 'b@example.test', subject: 'Booked B', kind: 'booking_confirmation', status: 'pending', attempts: 0 });
    expect(mails[1]).toMatchObject({ to: 'a@example.test', kind: 'customer_welcome' });

    const table = io('');
    expect(await runCli(['outbox', 'list'], table.io, { DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent' })).toBe(0);
    expect(table.out()).toMatch(/created_at +kind +status +attempts +to +subject/);
    const bad = io('');
    expect(await runCli(['outbox', 'list', '--status', 'lost'], bad.io, { DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent' })).toBe(2);
  });
});

describe.each(DIALECTS)('admin behind HTTPS (%s)', (dialect) => {
  const t = useTestApp(dialect, { PUBLIC_URL: 'https://bookings.example.test' });
  beforeAll(async () => setAdminPassword(t.db, PASSWORD));

  it('marks the sign-in and session cookies Secure when the public address is HTTPS', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/admin/login' });
    expect(page.cookies.find((c) => c.name === 'bk_admin_login')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict' });
    const res = await postLogin(t.app, PASSWORD);
    expect(res.statusCode).toBe(303);
    expect(res.cookies.find((c) => c.name === 'bk_admin_session')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict', path: '/admin' });
  });
});

describe('admin sessions across instances', () => {
  const t = useTestApp('sqlite');
  beforeAll(async () => setAdminPassword(t.db, PASSWORD));

  it('a session is kept in the database, so any instance on it recognises the cookie', async () => {
    const signed = await signIn(t.app);
    const other = await buildTestApp(t.databaseUrl);
    try {
      const res = await other.inject({ method: 'GET', url: '/admin/keys', headers: { cookie: signed.cookie } });
      expect(res.statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});
