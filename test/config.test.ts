import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the contract defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      trustProxy: false,
      databaseUrl: 'sqlite:./data/booking.db',
      redisUrl: undefined,
      siteTimezone: 'UTC',
      publicUrl: 'http://127.0.0.1:3000',
      smtpUrl: undefined,
      mailFrom: 'bookings@localhost',
      nodeEnv: 'development',
      logLevel: 'info',
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
    });
    expect(config).toMatchObject({ port: 0, siteTimezone: 'Australia/Lord_Howe', publicUrl: 'https://book.example.com', nodeEnv: 'production' });
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
});
