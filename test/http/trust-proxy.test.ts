import { beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/core/app.js';
import { FAILED_AUTH_PER_MINUTE } from '../../src/http/auth.js';
import { LOGIN_ATTEMPTS } from '../../src/modules/admin/session-plugin.js';
import { DIALECTS, useTestApp, type TestApp } from '../helper.js';
import { PASSWORD, postLogin, storeCheapAdminPassword } from '../admin/session.js';

const STATUS = '/booking-api/v1/status';
const WRONG_KEY = 'bk_test_nopenopenopenopenopenopenopenope';
// Half a minute into an hour: no failed-authentication or sign-in window ends during a test.
const PINNED_NOW = Date.UTC(2026, 10, 21, 10, 0, 30);
const now = (): number => PINNED_NOW;
/** app.inject's default peer: the proxy in these tests. */
const PROXY = '127.0.0.1';
const ATTACKER = '203.0.113.9';
const ADMIN = '192.0.2.50';

const forwardedFor = (value: string) => ({ 'x-forwarded-for': value });

/** Wrong passwords, each under another X-Forwarded-For that `forwarded` makes of its number. */
async function wrongPasswords(app: App, remoteAddress: string, forwarded: (i: number) => string): Promise<void> {
  for (let i = 0; i < LOGIN_ATTEMPTS; i++) {
    expect((await postLogin(app, 'guess', remoteAddress, forwardedFor(forwarded(i)))).statusCode).toBe(401);
  }
}

async function wrongKey(app: App, remoteAddress: string, forwarded: string): Promise<number> {
  const res = await app.inject({ url: STATUS, remoteAddress, headers: { 'x-api-key': WRONG_KEY, ...forwardedFor(forwarded) } });
  return res.statusCode;
}

async function auditedAddresses(t: TestApp): Promise<string[]> {
  await t.app.audit.flush();
  const rows = await t.db.selectFrom('audit_log').select('ip').distinct().orderBy('ip').execute();
  return rows.map((r) => r.ip);
}

describe.each(DIALECTS)('client addresses behind a proxy (%s)', (dialect) => {
  describe('without TRUST_PROXY', () => {
    const t = useTestApp(dialect, {}, { now });
    beforeAll(() => storeCheapAdminPassword(t.db));

    it('takes the peer for the client: every forwarded client shares its limits, and the audit shows the peer', async () => {
      await wrongPasswords(t.app, PROXY, (i) => `198.51.100.${i}`);
      expect((await postLogin(t.app, PASSWORD, PROXY, forwardedFor(ADMIN))).statusCode).toBe(429);

      for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect(await wrongKey(t.app, PROXY, `198.51.100.${i}`)).toBe(401);
      expect(await wrongKey(t.app, PROXY, ADMIN)).toBe(429);
      expect(await auditedAddresses(t)).toEqual([PROXY]);
    });
  });

  describe.each(['127.0.0.1', '10.9.0.0/16, 127.0.0.0/8'])('with TRUST_PROXY=%s', (trustProxy) => {
    const t = useTestApp(dialect, { TRUST_PROXY: trustProxy }, { now });
    beforeAll(() => storeCheapAdminPassword(t.db));

    it('limits each forwarded client alone (a spoofed first entry does not help), audits its address and believes its protocol', async () => {
      // The attacker writes any X-Forwarded-For it likes; the proxy appends the address it sees.
      await wrongPasswords(t.app, PROXY, (i) => `198.51.100.${i}, ${ATTACKER}`);
      expect((await postLogin(t.app, PASSWORD, PROXY, forwardedFor(`198.51.100.99, ${ATTACKER}`))).statusCode).toBe(429);
      const admin = await postLogin(t.app, PASSWORD, PROXY, { ...forwardedFor(ADMIN), 'x-forwarded-proto': 'https' });
      expect(admin.statusCode).toBe(303);
      // TLS ended at the proxy: the session cookie still travels only over HTTPS.
      expect(admin.cookies.find((c) => c.name === 'bk_admin_session')?.secure).toBe(true);

      for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect(await wrongKey(t.app, PROXY, `198.51.100.${i}, ${ATTACKER}`)).toBe(401);
      expect(await wrongKey(t.app, PROXY, ATTACKER)).toBe(429);
      expect(await wrongKey(t.app, PROXY, ADMIN)).toBe(401);
      expect(await auditedAddresses(t)).toEqual([ADMIN, ATTACKER]);
    });

    it('ignores X-Forwarded-For from a peer it does not trust', async () => {
      const direct = '192.0.2.1';
      await wrongPasswords(t.app, direct, (i) => `198.51.100.${i}`);
      expect((await postLogin(t.app, PASSWORD, direct, forwardedFor('198.51.100.99'))).statusCode).toBe(429);
      await t.db.deleteFrom('audit_log').execute();
      expect(await wrongKey(t.app, direct, '198.51.100.99')).toBe(401);
      expect(await auditedAddresses(t)).toEqual([direct]);
    });
  });

  // Two hops: the peer and the nearest forwarded address are proxies; true: every address is.
  describe.each([
    ['2', ATTACKER],
    ['true', '198.51.100.1'],
  ])('with TRUST_PROXY=%s', (trustProxy, client) => {
    const t = useTestApp(dialect, { TRUST_PROXY: trustProxy }, { now });

    it('takes the client from X-Forwarded-For whatever the peer', async () => {
      expect(await wrongKey(t.app, '192.0.2.1', `198.51.100.1, ${ATTACKER}, 10.0.0.2`)).toBe(401);
      expect(await auditedAddresses(t)).toEqual([client]);
    });
  });
});
