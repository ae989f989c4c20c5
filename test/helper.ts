import type { Actor } from '../src/core/actor.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { buildApp, type AppOptions } from '../src/app.js';
import type { App } from '../src/core/app.js';
import { runCli } from '../src/cli.js';
import { loadConfig } from '../src/config.js';
import type { Db, Dialect } from '../src/db/database.js';
import { createKey, type NewKeyInput } from '../src/modules/api-keys/service.js';
import { setSettings } from '../src/modules/settings/service.js';
import { MAX_ADVANCE_DAYS } from '../src/core/limits.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { enforceResponseContract, takeUnclaimedFailures } from './response-contract.js';

export { createTestDatabase, type TestDatabase } from './databases.js';

/** Who a test acts as when it calls a service directly, outside a request. */
export const TEST_ACTOR: Actor = Object.freeze({ source: Object.freeze({ type: 'cli' as const }), requestId: null });

export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestApp {
  app: App;
  db: Db;
  dialect: Dialect;
  /** The DATABASE_URL of this app's database, for a second app or a CLI run on the same data. */
  databaseUrl: string;
  /** Creates an API key (all permissions unless told otherwise) and returns its value. */
  key(input?: Partial<NewKeyInput>): Promise<string>;
}

export type TestEnv = Record<string, string | undefined>;

/** Signs manage links in tests on PostgreSQL: the default key file would be written into the working directory. */
export const TEST_MANAGE_LINK_SECRET = 'test-manage-link-secret-of-at-least-43-characters';

export function testConfig(databaseUrl: string, env: TestEnv = {}) {
  // On SQLite the key file is made next to the test's database, in its temporary directory.
  const secret = databaseUrl.startsWith('sqlite:') ? {} : { MANAGE_LINK_SECRET: TEST_MANAGE_LINK_SECRET };
  return loadConfig({ DATABASE_URL: databaseUrl, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...secret, ...env });
}

export interface TestAppOptions {
  /** Runs before app.ready(): tests may add routes of their own here. */
  beforeReady?: (app: App) => void;
  now?: () => number;
  rateLimits?: AppOptions['rateLimits'];
  /** Webhook address resolution and delivery timing. */
  appOptions?: Pick<AppOptions, 'resolve' | 'webhookDelivery'>;
}

export async function buildTestApp(databaseUrl: string, env: TestEnv = {}, options: TestAppOptions = {}): Promise<App> {
  // Tests deliver mail explicitly (app.jobs.runOnce()), so outbox rows stay as written until then.
  const app = await buildApp(testConfig(databaseUrl, env), { logger: false, jobPollMs: false, now: options.now, rateLimits: options.rateLimits, ...options.appOptions });
  options.beforeReady?.(app);
  // No drift: every answer a test receives must be one the app's own OpenAPI document declares.
  enforceResponseContract(app);
  await app.ready();
  // Test data lies years ahead (2030, the year 9999): the booking window's far edge is lifted
  // (the default is 365 days); tests of the window set it themselves.
  await setSettings(app.db, { max_advance_days: MAX_ADVANCE_DAYS });
  return app;
}

/**
 * Registers beforeAll/afterAll for one app on a fresh database of the dialect; the returned
 * object is filled in before the first test runs.
 */
export function useTestApp(dialect: Dialect, env: TestEnv = {}, options: TestAppOptions = {}): TestApp {
  const context = { dialect } as TestApp;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const app = await buildTestApp(database.url, env, options);
    Object.assign(context, {
      app,
      db: app.db,
      databaseUrl: database.url,
      key: async (input: Partial<NewKeyInput> = {}) => (await createKey(app.db, { name: 'test', ...input })).key,
    });
  });
  afterEach(() => {
    // Answers to requests a test made over the network rather than by inject.
    const failures = context.app === undefined ? [] : takeUnclaimedFailures(context.app);
    if (failures.length > 0) throw new Error(failures.join('\n'));
  });
  afterAll(async () => {
    await context.app?.close();
    await database?.drop();
  });
  return context;
}

/** A JSON body from an inject response, typed loosely for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npx booking …` in-process against a database, capturing its output. */
export async function cli(databaseUrl: string, argv: string[], stdin = '', env: TestEnv = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    argv,
    {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      stdin: (async function* () {
        yield stdin;
      })(),
    },
    { DATABASE_URL: databaseUrl, NODE_ENV: 'test', ...env },
  );
  return { code, stdout, stderr };
}
