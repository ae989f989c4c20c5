import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/core/app.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { createTestDatabase, testConfig, type TestDatabase } from '../helper.js';
import { captureLog, limitSqlitePages, manualSchedule } from '../outages.js';
import { enforceResponseContract } from '../response-contract.js';

describe('SQLite with a full disk', () => {
  const log = captureLog();
  const probes = manualSchedule();
  let database: TestDatabase;
  let app: App;
  let key: string;
  let walFile: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    walFile = `${database.url.slice('sqlite:'.length)}-wal`;
    app = await buildApp(testConfig(database.url), { logger: { level: 'info', stream: log.stream }, jobPollMs: false, outageProbes: probes.schedule });
    enforceResponseContract(app);
    await app.ready();
    key = (await createKey(app.db, { name: 'disk-full' })).key;
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  let serial = 0;
  const createCustomer = () =>
    app.inject({
      method: 'POST',
      url: '/booking-api/v1/customers',
      headers: { 'x-api-key': key },
      payload: { first_name: 'Full', last_name: 'Disk', email: `full${++serial}@example.test`, notes: 'n'.repeat(500) },
    });

  it('refuses writes with 503 while the disk is full, says so on /readyz, and recovers with the log truncated once there is room', async () => {
    // A write-ahead log grown large (2 MB), as under load: its file keeps its size until truncated.
    await sql`create table filler (text text not null)`.execute(app.db);
    await app.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 200; i++) await sql`insert into filler (text) values (${'x'.repeat(10_000)})`.execute(trx);
    });
    expect(fs.statSync(walFile).size).toBeGreaterThan(1_500_000);

    await limitSqlitePages(app.db, 'current');
    let refused;
    for (let attempt = 0; attempt < 200 && !refused; attempt++) {
      const res = await createCustomer();
      if (res.statusCode === 503) refused = res;
      else expect(res.statusCode, res.body).toBe(201);
    }
    expect(refused, 'no write was refused').toBeDefined();
    expect(refused?.headers['retry-after']).toBe('2');
    expect(refused?.json().error.code).toBe('service_not_available');
    for (let i = 0; i < 5; i++) expect((await createCustomer()).statusCode).toBe(503);

    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['retry-after']).toBe('2');
    expect(ready.json()).toEqual({ status: 'unavailable', reason: 'disk_full' });
    // Six refusals, one line; the probe finds the disk still full and tries again later.
    expect(log.warnings('database unavailable')).toHaveLength(1);
    await probes.runNext();
    expect(log.infos('database available again')).toHaveLength(0);

    // Space freed: the next write fits, and the log gives its space back (a checkpoint the
    // background worker holds at that moment defers it to a following commit).
    await limitSqlitePages(app.db, 1_000_000);
    for (let attempt = 0; attempt < 20 && log.infos('SQLite has room again').length === 0; attempt++) {
      expect((await createCustomer()).statusCode).toBe(201);
    }
    expect(log.infos('SQLite has room again')).toHaveLength(1);
    expect(fs.statSync(walFile).size).toBeLessThan(200_000);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);

    await probes.runNext();
    const [recovered] = log.infos('database available again');
    expect(recovered).toMatchObject({ refused: 6 });
    expect(log.warnings('database unavailable')).toHaveLength(1);
  });
});
