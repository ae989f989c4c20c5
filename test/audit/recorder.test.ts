import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle, type Dialect } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { AuditRecorder } from '../../src/modules/audit/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helper.js';
import { captureLog, limitSqlitePages, RefusingProxy } from '../outages.js';

/** The database going away and coming back: PostgreSQL behind a proxy that refuses, SQLite with a full disk. */
interface Outage {
  begin(): Promise<void>;
  end(): Promise<void>;
}

describe.each(DIALECTS)('the audit writer while the database is away (%s)', (dialect: Dialect) => {
  let database: TestDatabase;
  let proxy: RefusingProxy | undefined;
  let handle: DatabaseHandle;
  let outage: Outage;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    let url = database.url;
    if (dialect === 'postgres') {
      const direct = new URL(database.url);
      const refusing = new RefusingProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      await refusing.listen();
      url = refusing.urlFor(database.url);
      proxy = refusing;
      outage = { begin: async () => refusing.refuse(), end: async () => refusing.restore() };
    } else {
      outage = { begin: () => limitSqlitePages(handle.db, 'current'), end: () => limitSqlitePages(handle.db, 1_000_000) };
    }
    handle = openDatabase(url);
    await migrateToLatest(handle);
  });
  afterAll(async () => {
    await handle.destroy();
    await proxy?.close();
    await database.drop();
  });

  let serial = 0;
  const entry = () => ({ at: new Date().toISOString(), key_id: null, method: 'GET', path: `/audited/${++serial}`, status: 200, ip: '127.0.0.1', duration_ms: 1 });
  const written = async () => Number((await handle.db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('backs off instead of retrying per request, logs the outage once, and writes what it kept once the database is back', async () => {
    const log = captureLog();
    let clock = 1_000_000;
    const recorder = new AuditRecorder(handle.db, log.logger, { now: () => clock });
    const attempts = vi.spyOn(handle.db, 'transaction');
    const before = await written();
    await outage.begin();
    attempts.mockClear();
    // Past 200 entries every request asks for a flush: one attempt is made, then the backoff holds.
    for (let i = 0; i < 300; i++) recorder.record(entry());
    for (let i = 0; i < 10; i++) await recorder.flushWhenDue();
    expect(attempts).toHaveBeenCalledTimes(1);

    clock += 999;
    await recorder.flushWhenDue();
    expect(attempts).toHaveBeenCalledTimes(1);
    clock += 1;
    await recorder.flushWhenDue();
    expect(attempts).toHaveBeenCalledTimes(2);
    // The pause doubles: 2 s now.
    clock += 1000;
    await recorder.flushWhenDue();
    expect(attempts).toHaveBeenCalledTimes(2);
    expect(log.warnings('audit log writes unavailable')).toHaveLength(1);

    await outage.end();
    attempts.mockRestore();
    clock += 1000;
    await recorder.flushWhenDue();
    expect(await written()).toBe(before + 300);
    expect(log.infos('audit log writes available again')).toEqual([expect.objectContaining({ refused: 2, written: 300 })]);
    expect(log.warnings('audit log writes unavailable')).toHaveLength(1);
    await recorder.close();
  });

  it('on close writes its buffer, retrying within the shutdown grace while the database is briefly away', async () => {
    const log = captureLog();
    let waits = 0;
    const recorder = new AuditRecorder(handle.db, log.logger, {
      wait: async () => {
        waits += 1;
        if (waits === 2) await outage.end();
      },
    });
    const before = await written();
    await outage.begin();
    for (let i = 0; i < 300; i++) recorder.record(entry());
    await recorder.close();
    expect(waits).toBe(2);
    expect(await written()).toBe(before + 300);
  });

  it('says how many entries it could not write when the database stays away through closing', async () => {
    const log = captureLog();
    const recorder = new AuditRecorder(handle.db, log.logger, { wait: async () => undefined });
    await outage.begin();
    try {
      for (let i = 0; i < 300; i++) recorder.record(entry());
      await recorder.close();
    } finally {
      await outage.end();
    }
    expect(log.warnings('audit log entries not written')).toEqual([expect.objectContaining({ lost: 300 })]);
    expect(log.warnings('audit log writes unavailable')).toHaveLength(1);
  });
});
