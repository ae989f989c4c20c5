import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { caller } from '../catalog/support.js';

function capture() {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      stdin: (async function* () {})(),
    },
    out: () => out,
    err: () => err,
  };
}

describe.each(DIALECTS)('npx booking seed --demo (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = caller(t);
  const seed = async (...args: string[]) => {
    const c = capture();
    const code = await runCli(['seed', ...args], c.io, { DATABASE_URL: t.databaseUrl, NODE_ENV: 'test', LOG_LEVEL: 'silent' });
    return { code, out: c.out(), err: c.err() };
  };
  const counts = async (): Promise<Record<string, number>> => {
    const result: Record<string, number> = {};
    for (const table of ['agents', 'services', 'locations', 'customers', 'agent_services', 'agent_locations', 'service_categories'] as const) {
      result[table] = (await t.db.selectFrom(table).selectAll().execute()).length;
    }
    return result;
  };

  it('refuses to run without --demo (usage error, nothing written)', async () => {
    const res = await seed();
    expect(res.code).toBe(2);
    expect(res.err).toContain('--demo');
    expect(await counts()).toMatchObject({ agents: 0, services: 0, locations: 0, customers: 0 });
  });

  it('creates a bookable demo site that the lists show', async () => {
    const res = await seed('--demo', '--json', '--timezone', 'Europe/Berlin');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.out)).toEqual({
      timezone: 'Europe/Berlin',
      created: { categories: 2, locations: 2, services: 4, agents: 3, customers: 3 },
    });

    const agents = await call('GET', '/agents?include=services');
    expect(agents.status).toBe(200);
    expect(agents.body.pagination).toEqual({ page: 1, per_page: 10, total: 3, total_pages: 1 });
    expect(agents.body.data.map((a: { first_name: string }) => a.first_name)).toEqual(['Aylin', 'Jonas', 'Maria']);
    for (const agent of agents.body.data) expect(agent.services.length).toBeGreaterThan(0);
    const maria = agents.body.data.find((a: { first_name: string }) => a.first_name === 'Maria');
    expect(maria.services.find((s: { name: string }) => s.name === 'Hair Colouring')).toMatchObject({ is_custom_price: true, custom_price: '95.00' });
    const aylin = agents.body.data.find((a: { first_name: string }) => a.first_name === 'Aylin');
    expect(aylin.services.find((s: { name: string }) => s.name === 'Facial Treatment')).toMatchObject({ is_custom_duration: true, is_custom_hours: true });

    const services = await call('GET', '/services?include=category,locations');
    expect(services.body.pagination.total_items).toBe(4);
    for (const service of services.body.data) {
      expect(Number(service.price_min)).toBeGreaterThan(0);
      expect(service.status).toBe('active');
      expect(service.category).not.toBeNull();
      expect(service.locations.length).toBeGreaterThan(0);
    }

    const locations = await call('GET', '/locations');
    expect(locations.body.data.map((l: { name: string }) => l.name)).toEqual(['Downtown Studio', 'Riverside Spa']);

    const jonas = agents.body.data.find((a: { first_name: string }) => a.first_name === 'Jonas');
    const schedule = await call('GET', `/agents/${jonas.id}/schedule`);
    expect(schedule.body.data.uses_site_schedule).toBe(false);
    expect(schedule.body.data.weekly.saturday).toEqual([{ start: '10:00', end: '15:00' }]);
    expect((await call('GET', '/schedule')).body.data.weekly.monday).toEqual([{ start: '09:00', end: '17:00' }]);
  });

  it('is idempotent: running it again adds nothing', async () => {
    const before = await counts();
    expect(before).toEqual({ agents: 3, services: 4, locations: 2, customers: 3, agent_services: 6, agent_locations: 4, service_categories: 2 });
    const res = await seed('--demo');
    expect(res.code).toBe(0);
    expect(res.out).toContain('nothing added');
    expect(await counts()).toEqual(before);
  });

  it('refuses an invalid --timezone before writing anything', async () => {
    const res = await seed('--demo', '--timezone', 'Nowhere/City');
    expect(res.code).toBe(1);
    expect(res.err).toContain('Nowhere/City');
    expect((await call('GET', '/settings')).body.data.timezone).toBe('Europe/Berlin');
  });
});
