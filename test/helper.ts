import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Db, Dialect } from '../src/db/database.js';
import { createKey, type NewKeyInput } from '../src/modules/api-keys/service.js';

export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

/** The server the PostgreSQL tests create their databases on (trust auth on this machine). */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database for one test file: a temp SQLite file, or a fresh PostgreSQL database. */
export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-test-'));
    return { url: `sqlite:${path.join(dir, 'booking.db')}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `bk_test_${suffix}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

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

export function testConfig(databaseUrl: string, env: TestEnv = {}) {
  return loadConfig({ DATABASE_URL: databaseUrl, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
}

export async function buildTestApp(databaseUrl: string, env: TestEnv = {}): Promise<App> {
  // Tests deliver mail explicitly (app.mailSender.runOnce()), so outbox rows stay as written until then.
  const app = await buildApp(testConfig(databaseUrl, env), { logger: false, mailPollMs: false });
  await app.ready();
  return app;
}

/**
 * Registers beforeAll/afterAll for one app on a fresh database of the dialect; the returned
 * object is filled in before the first test runs.
 */
export function useTestApp(dialect: Dialect, env: TestEnv = {}): TestApp {
  const context = { dialect } as TestApp;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const app = await buildTestApp(database.url, env);
    Object.assign(context, {
      app,
      db: app.db,
      databaseUrl: database.url,
      key: async (input: Partial<NewKeyInput> = {}) => (await createKey(app.db, { name: 'test', ...input })).key,
    });
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
