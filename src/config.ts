import { compile as compileTrust } from '@fastify/proxy-addr';
import path from 'node:path';
import { IANAZone } from 'luxon';
import { DEFAULT_WORK_TIMEOUTS, type WorkKind, type WorkTimeouts } from './db/work-timeouts.js';

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
  /** How long a database statement or transaction may take, per kind of work (DB_*_TIMEOUT_MS). */
  readonly databaseTimeouts: WorkTimeouts;
  readonly redisUrl: string | undefined;
  readonly siteTimezone: string;
  readonly publicUrl: string;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly nodeEnv: NodeEnv;
  readonly logLevel: LogLevel;
  readonly manageLinkSecret: ManageLinkSecretSource;
  readonly server: ServerLimits;
  /** Whether webhook endpoints may be on private, loopback or link-local addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  readonly webhookAllowPrivateNetworks: boolean;
  /** How long an endpoint has to answer a delivery with 2xx (WEBHOOK_TIMEOUT_MS). */
  readonly webhookTimeoutMs: number;
  /** How often each instance looks for background work: mail, webhook deliveries (JOB_POLL_MS). */
  readonly jobPollMs: number;
}

/** How long a client may take and how many may be connected at once; how long a shutdown may take. */
export interface ServerLimits {
  /** The whole request, headers and body, must arrive within this (REQUEST_TIMEOUT_MS), or 408. */
  readonly requestTimeoutMs: number;
  /** The headers must arrive within this (HEADERS_TIMEOUT_MS), or 408. */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (KEEP_ALIVE_TIMEOUT_MS). */
  readonly keepAliveTimeoutMs: number;
  /** Connections beyond this many open at once are closed as they arrive (MAX_CONNECTIONS). */
  readonly maxConnections: number;
  /** How long requests in flight at SIGTERM may take to finish before the process is stopped anyway (SHUTDOWN_GRACE_MS). */
  readonly shutdownGraceMs: number;
}

/** Every peer (true), the nearest N hops, or the peers in these addresses and ranges. */
export type TrustProxy = boolean | number | readonly string[];
/**
 * Where the secret that signs manage links comes from: MANAGE_LINK_SECRET itself, or a key file,
 * created on first start when `create` (see manage-links/secret.ts).
 */
export type ManageLinkSecretSource = { readonly value: string } | { readonly keyFile: string; readonly create: boolean };

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

const DATABASE_TIMEOUT_VARIABLES: Readonly<Record<WorkKind, string>> = {
  requests: 'DB_REQUEST_TIMEOUT_MS',
  background: 'DB_BACKGROUND_TIMEOUT_MS',
  migrations: 'DB_MIGRATION_TIMEOUT_MS',
};

function parseDatabaseTimeouts(env: Env): WorkTimeouts {
  const timeouts = { ...DEFAULT_WORK_TIMEOUTS };
  for (const [kind, name] of Object.entries(DATABASE_TIMEOUT_VARIABLES) as [WorkKind, string][]) {
    const raw = read(env, name);
    if (raw === undefined) continue;
    // PostgreSQL takes statement_timeout as a 32-bit integer of milliseconds.
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 2_147_483_647) fail(name, `must be a whole number of milliseconds from 1 to 2147483647, got "${raw}"`);
    timeouts[kind] = Number(raw);
  }
  return Object.freeze(timeouts);
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

/** The longest delay Node's timers take (2^31 - 1 ms, about 24 days). */
const MAX_TIMER_MS = 2_147_483_647;

function parsePositiveInteger(env: Env, name: string, fallback: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) fail(name, `must be an integer from 1 to ${max}, got "${raw}"`);
  return Number(raw);
}

function parseServerLimits(env: Env): ServerLimits {
  const requestTimeoutMs = parsePositiveInteger(env, 'REQUEST_TIMEOUT_MS', 30_000, MAX_TIMER_MS);
  const headersTimeoutMs = parsePositiveInteger(env, 'HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), MAX_TIMER_MS);
  // Node refuses a header timeout longer than the request's: the headers are part of the request.
  if (headersTimeoutMs > requestTimeoutMs) fail('HEADERS_TIMEOUT_MS', `must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got "${headersTimeoutMs}"`);
  return Object.freeze({
    requestTimeoutMs,
    headersTimeoutMs,
    // Fastify's default: longer than the 60 s idle timeout of common load balancers, so that they close first.
    keepAliveTimeoutMs: parsePositiveInteger(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, MAX_TIMER_MS),
    maxConnections: parsePositiveInteger(env, 'MAX_CONNECTIONS', 1000, 1_000_000),
    shutdownGraceMs: parsePositiveInteger(env, 'SHUTDOWN_GRACE_MS', 10_000, MAX_TIMER_MS),
  });
}

/** Whether a secret is at least 32 random bytes: 64 hex digits, or 43 base64 or base64url characters. */
function parseBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false') fail(name, `must be true or false, got "${raw}"`);
  return raw === 'true';
}

export function isStrongSecret(text: string): boolean {
  if (/^[0-9a-fA-F]+$/.test(text)) return text.length * 4 >= 256;
  const digits = text.replace(/={1,2}$/, '');
  return /^[A-Za-z0-9+/_-]+$/.test(digits) && digits.length * 6 >= 256;
}

function parseManageLinkSecret(env: Env, databaseUrl: string, nodeEnv: NodeEnv): ManageLinkSecretSource {
  const value = read(env, 'MANAGE_LINK_SECRET');
  if (value !== undefined) {
    if (!isStrongSecret(value)) {
      fail('MANAGE_LINK_SECRET', 'must be at least 32 random bytes as 64 hex digits or 43 base64url characters (e.g. openssl rand -hex 32)');
    }
    return Object.freeze({ value });
  }
  const sqlitePath = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : undefined;
  const keyFile = read(env, 'MANAGE_LINK_KEY_FILE');
  // Instances sharing a PostgreSQL database must sign with one secret: in production none makes its own.
  const create = sqlitePath !== undefined || nodeEnv !== 'production';
  if (keyFile !== undefined) return Object.freeze({ keyFile, create });
  if (sqlitePath === ':memory:') fail('MANAGE_LINK_SECRET', 'is required with an in-memory SQLite database (or set MANAGE_LINK_KEY_FILE)');
  if (!create) fail('MANAGE_LINK_SECRET', 'is required in production on PostgreSQL: every instance must sign manage links with the same secret');
  return Object.freeze({ keyFile: path.join(path.dirname(sqlitePath ?? './data/booking.db'), 'manage-link.key'), create });
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

  const databaseUrl = parseDatabaseUrl(env);
  return Object.freeze({
    port,
    host,
    trustProxy: parseTrustProxy(env),
    databaseUrl,
    databaseTimeouts: parseDatabaseTimeouts(env),
    redisUrl: parseUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    siteTimezone,
    publicUrl,
    smtpUrl: parseUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom,
    nodeEnv,
    logLevel,
    manageLinkSecret: parseManageLinkSecret(env, databaseUrl, nodeEnv),
    server: parseServerLimits(env),
    webhookAllowPrivateNetworks: parseBoolean(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    webhookTimeoutMs: parsePositiveInteger(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 60_000),
    jobPollMs: parsePositiveInteger(env, 'JOB_POLL_MS', 5_000, 3_600_000),
  });
}
