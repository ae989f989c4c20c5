import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { loadManageLinkSecret } from '../src/modules/manage-links/index.js';

describe('configuration', () => {
  it('has the contract defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      trustProxy: false,
      databaseUrl: 'sqlite:./data/booking.db',
      databaseTimeouts: { requests: 5_000, background: 10_000, migrations: 600_000 },
      redisUrl: undefined,
      siteTimezone: 'UTC',
      publicUrl: 'http://127.0.0.1:3000',
      smtpUrl: undefined,
      mailFrom: 'bookings@localhost',
      nodeEnv: 'development',
      logLevel: 'info',
      manageLinkSecret: { keyFile: 'data/manage-link.key', create: true },
      server: { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 72_000, maxConnections: 1000, shutdownGraceMs: 10_000 },
      webhookAllowPrivateNetworks: false,
      webhookTimeoutMs: 10_000,
      jobPollMs: 5_000,
    });
  });

  it('is frozen', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'sqlite:'],
    ['REDIS_URL', 'http://localhost'],
    ['SITE_TIMEZONE', 'Europe/Atlantis'],
    ['PUBLIC_URL', 'not a url'],
    ['SMTP_URL', 'ftp://x'],
    ['MAIL_FROM', 'nobody'],
    ['NODE_ENV', 'staging'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'yes'],
    ['TRUST_PROXY', '10.0.0.300'],
    ['TRUST_PROXY', '127.0.0.1,'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.0/0'],
    ['TRUST_PROXY', '10.0.0.0/255.0.255.0'],
    ['TRUST_PROXY', '-1'],
    ['MANAGE_LINK_SECRET', 'too-short-to-sign-links'],
    ['MANAGE_LINK_SECRET', 'a'.repeat(63)],
    ['MANAGE_LINK_SECRET', `${'x'.repeat(42)}!`],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['REQUEST_TIMEOUT_MS', '30s'],
    ['HEADERS_TIMEOUT_MS', '40000'],
    ['KEEP_ALIVE_TIMEOUT_MS', '-5'],
    ['MAX_CONNECTIONS', '0'],
    ['SHUTDOWN_GRACE_MS', '3000000000'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'yes'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['JOB_POLL_MS', 'often'],
  ])('refuses %s=%s with a one-line message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      expect((error as Error).message.startsWith(`${name}: `)).toBe(true);
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('accepts the documented forms', () => {
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: 'postgres://u@db:5432/booking',
      REDIS_URL: 'redis://127.0.0.1:6379',
      SITE_TIMEZONE: 'Australia/Lord_Howe',
      PUBLIC_URL: 'https://book.example.com/',
      SMTP_URL: 'smtp://user:pass@mail:587',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      MANAGE_LINK_SECRET: 'a1'.repeat(32),
    });
    expect(config).toMatchObject({ port: 0, siteTimezone: 'Australia/Lord_Howe', publicUrl: 'https://book.example.com', nodeEnv: 'production' });
  });

  it('takes the server limits, the header timeout no longer than the request timeout (by default the shorter of the two)', () => {
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '5000', KEEP_ALIVE_TIMEOUT_MS: '65000', MAX_CONNECTIONS: '200', SHUTDOWN_GRACE_MS: '25000' }).server).toEqual({
      requestTimeoutMs: 5000,
      headersTimeoutMs: 5000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 200,
      shutdownGraceMs: 25_000,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' })).toThrow('HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (5000), got "6000"');
  });

  it('makes the default PUBLIC_URL a URL for an IPv6 HOST too', () => {
    expect(loadConfig({ HOST: '::1', PORT: '4000' }).publicUrl).toBe('http://[::1]:4000');
    expect(new URL(loadConfig({ HOST: '::' }).publicUrl).port).toBe('3000');
    expect(loadConfig({ HOST: 'localhost', PORT: '4000' }).publicUrl).toBe('http://localhost:4000');
  });

  it('spells SITE_TIMEZONE as the time zone database does', () => {
    expect(loadConfig({ SITE_TIMEZONE: 'europe/berlin' }).siteTimezone).toBe('Europe/Berlin');
    expect(loadConfig({ SITE_TIMEZONE: 'Asia/Kolkata' }).siteTimezone).toBe('Asia/Kolkata');
  });

  it('takes TRUST_PROXY as Fastify does: true, a hop count, or addresses, CIDR ranges and named ranges', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    const list = loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,172.16.0.0/255.240.0.0, ::1, fd00::/8, loopback' }).trustProxy;
    expect(list).toEqual(['10.0.0.1', '192.168.0.0/16', '172.16.0.0/255.240.0.0', '::1', 'fd00::/8', 'loopback']);
    expect(Object.isFrozen(list)).toBe(true);
  });

  it('takes a manage-link secret of 32 bytes or more in hex or base64url, else a key file beside the SQLite database', () => {
    for (const value of ['0f'.repeat(32), 'A-_'.repeat(15), `${'Ab+/'.repeat(11)}=`]) {
      expect(loadConfig({ MANAGE_LINK_SECRET: value }).manageLinkSecret).toEqual({ value });
    }
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/booking/db.sqlite' }).manageLinkSecret).toEqual({ keyFile: '/srv/booking/manage-link.key', create: true });
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/booking', MANAGE_LINK_KEY_FILE: '/run/keys/links' }).manageLinkSecret).toEqual({ keyFile: '/run/keys/links', create: true });
  });

  it('refuses to start in production on PostgreSQL without MANAGE_LINK_SECRET, and makes no key file there', () => {
    const production = { DATABASE_URL: 'postgres://u@db/booking', NODE_ENV: 'production' };
    expect(() => loadConfig(production)).toThrow(/^MANAGE_LINK_SECRET: is required in production on PostgreSQL/);
    const source = loadConfig({ ...production, MANAGE_LINK_KEY_FILE: path.join(os.tmpdir(), `absent-${process.pid}.key`) }).manageLinkSecret;
    expect(() => loadManageLinkSecret(source)).toThrow(/^MANAGE_LINK_KEY_FILE: .* does not exist/);
  });

  it('makes the key file on first start, readable by its owner only, and reads the same secret on the next', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-key-'));
    try {
      const { manageLinkSecret } = loadConfig({ DATABASE_URL: `sqlite:${path.join(dir, 'nested', 'booking.db')}` });
      const first = loadManageLinkSecret(manageLinkSecret);
      const file = path.join(dir, 'nested', 'manage-link.key');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(first.length).toBeGreaterThanOrEqual(43);
      expect(loadManageLinkSecret(manageLinkSecret)).toEqual(first);
      expect(fs.readdirSync(path.dirname(file))).toEqual(['manage-link.key']);
      fs.writeFileSync(file, 'short\n');
      expect(() => loadManageLinkSecret(manageLinkSecret)).toThrow(/^MANAGE_LINK_KEY_FILE: .* must hold at least 32 random bytes/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
