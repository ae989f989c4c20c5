import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Dialect } from '../src/db/database.js';

/** The server the PostgreSQL tests create their databases on (trust auth on this machine). */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

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
