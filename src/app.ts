import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyRequest } from 'fastify';
import type { App } from './core/app.js';
import { Outage, type OutageLogger, type Schedule } from './core/outage.js';
import type { Site } from './core/site.js';
import type { Config, ServerLimits, TrustProxy } from './config.js';
import { openDatabase, readinessCheck, type DatabaseHandle, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { registerAuth } from './http/auth.js';
import { clientError, frameworkError, registerErrorHandler, UNAVAILABLE_RETRY_AFTER_S } from './http/error-handler.js';
import { registerGracefulClose } from './http/closing.js';
import { registerJsonBodies } from './http/json-body.js';
import { registerStrictInput } from './http/strict-input.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerInputGuard } from './http/input-guard.js';
import { openApiOptions } from './http/openapi.js';
import { MemoryRateLimitStore, RedisRateLimitStore, type RateLimitStore } from './http/rate-limit-store.js';
import { API_ROOT } from './http/route-config.js';
import { SHARED_SCHEMAS } from './http/schemas.js';
import { AJV_OPTIONS, sentTypeValidators } from './http/sent-types.js';
import { adminRoutes } from './modules/admin/index.js';
import { manageRoutes } from './modules/manage/index.js';
import { AuditRecorder } from './modules/audit/index.js';
import { loadManageLinkSecret, ManageLinks, storedReplyLinks } from './modules/manage-links/index.js';
import { JobRunner } from './modules/jobs/index.js';
import { mailQueue } from './modules/mail/index.js';
import { dispatchTask, resolveWithDns, WebhookSecrets, webhookQueue, webhookRoutes, type Resolve } from './modules/webhooks/index.js';
import { findActiveKey } from './modules/api-keys/index.js';
import { initialiseSettings, settingsRoutes, siteOf } from './modules/settings/index.js';
import { agentRoutes } from './modules/agents/index.js';
import { availabilityRoutes } from './modules/availability/index.js';
import { bookingEventsOfOrders, bookingRoutes, reminderTask } from './modules/bookings/index.js';
import { calendarFeedRoutes, publicFeedRoutes, storedReplyFeedUrls } from './modules/calendar-feeds/index.js';
import { catalogRoutes } from './modules/catalog/index.js';
import { couponRoutes } from './modules/coupons/index.js';
import { customerRoutes } from './modules/customers/index.js';
import { locationRoutes } from './modules/locations/index.js';
import { orderRoutes, type BookingEvents } from './modules/orders/index.js';
import { paymentRoutes } from './modules/payments/index.js';
import { eventRoutes } from './modules/events/index.js';
import { scheduleRoutes } from './modules/schedules/index.js';
import { statusRoutes } from './modules/status/index.js';

/** Each domain's routes, mounted under the API root. */
const MODULE_ROUTES: ((app: App) => Promise<void>)[] = [
  statusRoutes,
  agentRoutes,
  catalogRoutes,
  locationRoutes,
  scheduleRoutes,
  settingsRoutes,
  bookingRoutes,
  availabilityRoutes,
  customerRoutes,
  orderRoutes,
  couponRoutes,
  paymentRoutes,
  eventRoutes,
];

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    appConfig: Config;
    manageLinks: ManageLinks;
    audit: AuditRecorder;
    jobs: JobRunner;
    /** Writes the events of bookings an order's change reaches (modules/orders: BookingEvents). */
    bookingEvents: BookingEvents;
  }
}

/** How long /readyz waits for the database: a probe's usual timeout is a second, and the answer must reach it within. */
const READINESS_CHECK_MS = 800;

export interface AppOptions {
  /** Pino options, or false for no logging (tests). Defaults to the configured level. */
  logger?: boolean | Record<string, unknown>;
  /** The clock rate-limit windows follow (tests pin it so that no window boundary falls inside one). */
  now?: () => number;
  /**
   * How often the job runner looks for due work (mail, webhook deliveries; ms), or false for never
   * on its own: tests then run rounds with `app.jobs.runOnce(now)`. Default: JOB_POLL_MS.
   */
  jobPollMs?: number | false;
  /** A rate-limit store the caller made (tests: Redis stores whose upkeep they drive), used instead of REDIS_URL's. */
  rateLimits?: RateLimitStore;
  /** How webhook URLs' host names are resolved when an endpoint is made (tests resolve without DNS). */
  resolve?: Resolve;
  /** Webhook delivery's timeout and jitter (tests shorten and fix them). */
  webhookDelivery?: { timeoutMs?: number; random?: () => number };
  /** When the database outage's probes run (tests run them themselves). Default: timers. */
  outageProbes?: Schedule;
}

/** Opens the database, applies migrations and assembles the service. The caller listens and closes. */
/**
 * What the log says of a request: Fastify's fields, with the key of a manage-booking link (the
 * capability to see and cancel a booking) masked wherever a query string carries one.
 */
/**
 * The URL with the value of every `key` query parameter masked (a manage-booking link's secret),
 * judged by the name as the query parser decodes it (`k%65y` is `key` too); a name that does not
 * decode is masked as well.
 */
function maskKeys(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const parameters = url
    .slice(start + 1)
    .split('&')
    .map((parameter) => {
      const end = parameter.indexOf('=');
      const name = end < 0 ? parameter : parameter.slice(0, end);
      let decoded: string;
      try {
        decoded = decodeURIComponent(name.replaceAll('+', ' '));
      } catch {
        return `${name}=[redacted]`;
      }
      return decoded.trim().toLowerCase() === 'key' ? `${name}=[redacted]` : parameter;
    });
  return `${url.slice(0, start + 1)}${parameters.join('&')}`;
}

/** The URL with a calendar feed's token (the feed's only credential, in its path) masked. */
function maskFeedToken(url: string): string {
  return url.startsWith('/calendar-feeds/') ? url.replace(/^\/calendar-feeds\/[^/?#]*/, '/calendar-feeds/[redacted]') : url;
}

function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: maskKeys(maskFeedToken(request.url)),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * TRUST_PROXY as Fastify takes it. Fastify 5.12 trusts no peer for a bare hop count (it cannot
 * tell a proxy from a client that connects directly), so a count is given as the function Fastify
 * used to build for it: the nearest N addresses, the peer first, are proxies.
 */
function trustedProxies(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'boolean' ? trust : [...trust];
}

/**
 * How long a client may take to send a request (Node answers a late one through clientError, 408)
 * and to come back on a kept-alive connection. Node checks the first two every 30 s by default,
 * so a timeout could run late by that much: here ten times per header timeout, at least every
 * second.
 */
function serverTimeouts(limits: ServerLimits) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      // Node checks the header timeout against this when it creates the server, before Fastify sets it.
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(limits.headersTimeoutMs / 10)),
    },
  };
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const database: DatabaseHandle = openDatabase(config.databaseUrl, { backgroundCheckpoints: true, timeouts: config.databaseTimeouts });
  let rateLimits: RateLimitStore;
  let redisRateLimits: RedisRateLimitStore | undefined;
  let manageLinks: ManageLinks;
  let serverSecret: Buffer;
  // The store is connected before the app and its log exist; it reports outages there once they do.
  let rateLimitLog: OutageLogger = { warn: () => {}, info: () => {} };
  try {
    await migrateToLatest(database);
    await initialiseSettings(database.db, config.siteTimezone);
    serverSecret = loadManageLinkSecret(config.manageLinkSecret);
    manageLinks = new ManageLinks(config.publicUrl, serverSecret);
    if (options.rateLimits) rateLimits = options.rateLimits;
    else if (config.redisUrl) {
      rateLimits = redisRateLimits = await RedisRateLimitStore.connect(config.redisUrl, {
        clock: options.now ?? Date.now,
        log: { warn: (fields, message) => rateLimitLog.warn(fields, message), info: (fields, message) => rateLimitLog.info(fields, message) },
      });
    } else rateLimits = new MemoryRateLimitStore();
  } catch (error) {
    await database.destroy();
    throw error;
  }

  const app: App = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      // Keys travel in these headers; they must never reach a log line.
      redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
      serializers: { req: requestForLog },
    },
    genReqId: () => randomUUID(),
    trustProxy: trustedProxies(config.trustProxy),
    bodyLimit: 1024 * 1024,
    // Fastify's default coercion, 'array', also takes ["x"] for "x"; inside anyOf it checks the
    // branch without unwrapping, so the handler got the array. Scalars stay scalars, and body
    // fields keep the JSON type they were sent as (sent-types.ts).
    ajv: { customOptions: AJV_OPTIONS },
    schemaController: { compilersFactory: { buildValidator: sentTypeValidators() } },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    ...serverTimeouts(config.server),
    // Refused in the contract's envelope instead (registerGracefulClose).
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Beyond this, Node closes a new connection as it arrives: every one holds a descriptor.
  app.server.maxConnections = config.server.maxConnections;

  rateLimitLog = app.log;
  const audit = new AuditRecorder(database.backgroundDb, app.log);
  database.storage?.logTo(app.log);
  const databaseAnswers = readinessCheck(database.db);
  // Ends when the database answers again: for SQLite, when a write fits on its disk again.
  const databaseOutage = new Outage('database', app.log, {
    probe: async () => {
      if (database.storage?.diskFull) throw new Error('the disk is still full');
      if (!(await databaseAnswers(READINESS_CHECK_MS))) throw new Error('the database does not answer');
    },
    schedule: options.outageProbes,
  });
  const mail = mailQueue({ smtpUrl: config.smtpUrl, from: config.mailFrom, publicUrl: config.publicUrl, manageUrl: (role, booking) => manageLinks.url(role, booking) });
  // Webhook signing secrets are derived from the same server secret as the manage links, for another purpose.
  const webhookSecrets = new WebhookSecrets(serverSecret);
  const webhooks = webhookQueue({ db: database.backgroundDb, secrets: webhookSecrets, allowPrivateNetworks: config.webhookAllowPrivateNetworks, timeoutMs: config.webhookTimeoutMs, ...options.webhookDelivery });
  const jobs = new JobRunner(database.backgroundDb, app.log).addTask(dispatchTask).addTask(reminderTask(manageLinks)).addQueue(mail).addQueue(webhooks);

  app.decorate('db', database.db);
  app.decorate('appConfig', config);
  app.decorate('manageLinks', manageLinks);
  app.decorate('audit', audit);
  app.decorate('jobs', jobs);
  app.decorate('bookingEvents', bookingEventsOfOrders(manageLinks));
  app.addHook('onReady', async () => {
    if (options.jobPollMs !== false) jobs.start(options.jobPollMs ?? config.jobPollMs);
    redisRateLimits?.startUpkeep();
  });
  app.addHook('onClose', async () => {
    databaseOutage.stop();
    // First the audit buffer: a job slow to stop must not eat the shutdown's grace before it is written.
    await audit.close();
    await jobs.stop();
    mail.close();
    webhooks.close();
    await rateLimits.close();
    await database.destroy();
  });

  // A request reads the site context on its first request.site() only: one read at most, none unless asked.
  const unset: Site = () => Promise.reject(new Error('request.site() before onRequest'));
  app.decorateRequest('site', unset);
  // Callback style: an async hook costs every request a promise and a microtask turn.
  app.addHook('onRequest', (request, reply, done) => {
    request.site = siteOf(database.db);
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    // Answers carry personal data and manage links; no shared cache may keep them (an X-API-Key,
    // unlike Authorization, does not stop one).
    if (request.url.startsWith(API_ROOT)) reply.header('cache-control', 'no-store');
    done();
  });
  registerGracefulClose(app);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  registerErrorHandler(app, databaseOutage);
  registerJsonBodies(app);
  registerStrictInput(app);
  registerAuth(app, { findKey: (presented) => findActiveKey(database.db, presented), nodeEnv: config.nodeEnv, rateLimits, audit, now: options.now ?? Date.now });
  // Before idempotency: a refused request claims no key, as one refused by its schema.
  registerInputGuard(app);
  const replyLinks = storedReplyLinks(database.db, manageLinks);
  const replyFeedUrls = storedReplyFeedUrls(config.publicUrl);
  registerIdempotency(app, database.db, {
    store: async (body) => replyFeedUrls.store(await replyLinks.store(body)),
    replay: async (body) => replyLinks.replay(await replyFeedUrls.replay(body)),
  });

  await app.register(swagger, openApiOptions(config));
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // A reader may paste a key into the page: no other site may frame it.
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('x-frame-options', 'DENY').header('content-security-policy', "frame-ancestors 'none'");
        done();
      },
    },
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (database.storage?.diskFull) {
      return reply.status(503).header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S)).send({ status: 'unavailable', reason: 'disk_full' });
    }
    if (await databaseAnswers(READINESS_CHECK_MS)) return { status: 'ready' };
    return reply.status(503).header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S)).send({ status: 'unavailable' });
  });
  app.get(`${API_ROOT}/openapi.json`, { config: { permission: 'public' }, schema: { hide: true } }, async () => app.swagger());

  for (const routes of MODULE_ROUTES) await app.register(routes, { prefix: API_ROOT });
  await app.register(adminRoutes, { prefix: '/admin', rateLimits, now: options.now ?? Date.now });
  await app.register(
    webhookRoutes({
      secrets: webhookSecrets,
      addresses: { allowPrivateNetworks: config.webhookAllowPrivateNetworks, requireHttps: config.nodeEnv === 'production', resolve: options.resolve ?? resolveWithDns },
    }),
    { prefix: API_ROOT },
  );
  await app.register(calendarFeedRoutes(config.publicUrl), { prefix: API_ROOT });
  await app.register(publicFeedRoutes(config.publicUrl), { prefix: '/calendar-feeds' });
  await app.register(manageRoutes, { prefix: '/manage-booking', links: manageLinks, publicUrl: config.publicUrl });
  return app;
}
