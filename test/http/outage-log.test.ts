import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/core/app.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { createTestDatabase, testConfig, type TestDatabase } from '../helper.js';
import { captureLog, manualSchedule, RefusingProxy } from '../outages.js';
import { enforceResponseContract } from '../response-contract.js';

describe('a PostgreSQL outage in the log', () => {
  const log = captureLog();
  const probes = manualSchedule();
  let database: TestDatabase;
  let proxy: RefusingProxy;
  let app: App;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const direct = new URL(database.url);
    proxy = new RefusingProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.listen();
    app = await buildApp(testConfig(proxy.urlFor(database.url)), { logger: { level: 'info', stream: log.stream }, jobPollMs: false, outageProbes: probes.schedule });
    enforceResponseContract(app);
    await app.ready();
    key = (await createKey(app.db, { name: 'outage' })).key;
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await database.drop();
  });

  const status = () => app.inject({ url: '/booking-api/v1/status', headers: { 'x-api-key': key } });

  it('is one warning when the database goes away and one line with the count of refused requests when it is back', async () => {
    expect((await status()).statusCode).toBe(200);

    proxy.refuse();
    for (let i = 0; i < 25; i++) {
      const res = await status();
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
    }
    const [warning, ...more] = log.warnings('database unavailable');
    expect(more).toHaveLength(0);
    expect(warning?.err).toMatchObject({ message: expect.any(String) });

    // Probed while still away: nothing logged, another probe scheduled.
    await probes.runNext();
    expect(log.infos('database available again')).toHaveLength(0);
    expect(probes.pending()).toBe(1);

    proxy.restore();
    await probes.runNext();
    expect(log.infos('database available again')).toEqual([expect.objectContaining({ refused: 25, awayMs: expect.any(Number) })]);
    expect(probes.pending()).toBe(0);
    expect((await status()).statusCode).toBe(200);
    expect(log.warnings('database unavailable')).toHaveLength(1);
  });
});
