import { compile as compileTrust } from '@fastify/proxy-addr';
import { IANAZone } from 'luxon';

export type NodeEnv = 'development' | 'production' | 'test';
const NODE_ENVS: readonly NodeEnv[] = ['development', 'production', 'test'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Which peers' X-Forwarded-* headers to believe (TRUST_PROXY); false: none, the peer is the client. */
  readonly trustProxy: TrustProxy;
  readonly databaseUrl: string;
  readonly redisUrl: string | undefined;
  readonly siteTimezone: string;
  readonly publicUrl: string;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly nodeEnv: NodeEnv;
  readonly logLevel: LogLevel;
}

/** Every peer (true), the nearest N hops, or the peers in these addresses and ranges. */
export type TrustProxy = boolean | number | readonly string[];

/** A configuration value that stops start-up; the message is one line naming the variable. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function fail(name: string, problem: string): never {
  throw new ConfigError(`${name}: ${problem}`);
}

function parsePort(env: Env): number {
  const raw = read(env, 'PORT');
  if (raw === undefined) return 3000;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) fail('PORT', `must be an integer from 0 to 65535, got "${raw}"`);
  return Number(raw);
}

function parseUrl(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(name, 'is not a valid URL');
  }
  if (!protocols.includes(url.protocol)) fail(name, `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  return raw;
}

function parseDatabaseUrl(env: Env): string {
  const raw = read(env, 'DATABASE_URL') ?? 'sqlite:./data/booking.db';
  if (raw.startsWith('sqlite:')) {
    if (raw.length === 'sqlite:'.length) fail('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/booking.db');
    return raw;
  }
  if (parseUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:'])) return raw;
  return fail('DATABASE_URL', 'must be sqlite:<path> or postgres://…');
}

function parseTrustProxy(env: Env): TrustProxy {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) {
    if (!Number.isSafeInteger(Number(raw))) fail('TRUST_PROXY', `a hop count must be a small integer, got "${raw}"`);
    return Number(raw);
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  try {
    // Fastify's own parser of the list, so that what starts is what Fastify trusts.
    compileTrust(entries);
  } catch (error) {
    fail('TRUST_PROXY', `${(error as Error).message} (give true, a hop count, or a comma-separated list of addresses, CIDR ranges and loopback|linklocal|uniquelocal)`);
  }
  return Object.freeze(entries);
}

/**
 * The zone's IANA name as the time zone database spells it ("europe/BERLIN" → "Europe/Berlin"),
 * or undefined when no zone has the name. Only the case changes: ICU names some zones by older
 * aliases (Asia/Kolkata as Asia/Calcutta), and a valid name another zone links to stays as given.
 */
export function timezoneName(name: string): string | undefined {
  if (!IANAZone.isValidZone(name)) return undefined;
  const spelled = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  return spelled.toLowerCase() === name.toLowerCase() ? spelled : name;
}

/** Reads and validates the environment once; the result is frozen and passed to buildApp. */
export function loadConfig(env: Env = process.env): Config {
  const port = parsePort(env);
  const host = read(env, 'HOST') ?? '127.0.0.1';

  const givenTimezone = read(env, 'SITE_TIMEZONE') ?? 'UTC';
  const siteTimezone = timezoneName(givenTimezone) ?? fail('SITE_TIMEZONE', `"${givenTimezone}" is not an IANA time zone name`);

  const nodeEnv = (read(env, 'NODE_ENV') ?? 'development') as NodeEnv;
  if (!NODE_ENVS.includes(nodeEnv)) fail('NODE_ENV', `must be one of ${NODE_ENVS.join(', ')}`);

  const logLevel = (read(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) fail('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);

  const mailFrom = read(env, 'MAIL_FROM') ?? 'bookings@localhost';
  if (!/^[^\s@]+@[^\s@]+$/.test(mailFrom) && !/<[^\s@]+@[^\s@]+>$/.test(mailFrom)) {
    fail('MAIL_FROM', 'must be an email address');
  }

  // An IPv6 address goes in brackets in a URL (http://[::1]:3000).
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const publicUrl = (parseUrl(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://${urlHost}:${port}`).replace(/\/+$/, '');

  return Object.freeze({
    port,
    host,
    trustProxy: parseTrustProxy(env),
    databaseUrl: parseDatabaseUrl(env),
    redisUrl: parseUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    siteTimezone,
    publicUrl,
    smtpUrl: parseUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom,
    nodeEnv,
    logLevel,
  });
}
