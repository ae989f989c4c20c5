import { describe, expect, it } from 'vitest';
import { DEFAULT_SITE_SCHEDULE } from '../../src/modules/schedules/model.js';
import { readSiteSchedule } from '../../src/modules/schedules/repository.js';
import { insertAgent } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { caller } from '../catalog/support.js';

const WEEK_OFF = { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] };

describe.each(DIALECTS)('schedules (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const call = caller(t);

  it('a new database has the site schedule Monday to Friday, 09:00 to 17:00', async () => {
    const res = await call('GET', '/schedule');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: DEFAULT_SITE_SCHEDULE });
    const stored = await t.db.selectFrom('settings').select('value').where('key', '=', 'site_schedule').executeTakeFirstOrThrow();
    expect(JSON.parse(stored.value)).toEqual(DEFAULT_SITE_SCHEDULE);
  });

  it('PUT /schedule stores the normalised schedule that the availability engine reads', async () => {
    const res = await call('PUT', '/schedule', {
      weekly: { saturday: [{ start: '14:00', end: '18:00' }, { start: '08:00', end: '12:00' }], monday: [{ start: '09:00', end: '17:00' }] },
      exceptions: [{ date: '2026-12-25' }, { date: '2026-12-24', periods: [{ start: '09:00', end: '12:00' }] }],
    });
    expect(res.status).toBe(200);
    const expected = {
      weekly: { ...WEEK_OFF, monday: [{ start: '09:00', end: '17:00' }], saturday: [{ start: '08:00', end: '12:00' }, { start: '14:00', end: '18:00' }] },
      exceptions: [
        { date: '2026-12-24', periods: [{ start: '09:00', end: '12:00' }] },
        { date: '2026-12-25', periods: [] },
      ],
    };
    expect(res.body.data).toEqual(expected);
    expect(await readSiteSchedule(t.db)).toEqual(expected);
    expect((await call('GET', '/schedule')).body.data).toEqual(expected);
    await call('PUT', '/schedule', DEFAULT_SITE_SCHEDULE);
  });

  it('refuses invalid schedules with 422 validation_failed naming each field, and changes nothing', async () => {
    const res = await call('PUT', '/schedule', {
      weekly: {
        monday: [{ start: '9:00', end: '17:00' }],
        tuesday: [{ start: '12:00', end: '12:00' }],
        wednesday: [{ start: '09:00', end: '13:00' }, { start: '12:30', end: '15:00' }],
        thursday: [{ start: '10:00', end: '24:30' }],
        Friday: [],
        caturday: [],
      },
      exceptions: [
        { date: '2026-02-30', periods: [] },
        { date: '2026-12-24', periods: [{ start: '18:00', end: '08:00' }] },
        { date: '2026-12-24', periods: [] },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual({
      'weekly.monday.0.start': expect.any(String),
      'weekly.tuesday.0': expect.stringContaining('before'),
      'weekly.wednesday.1': expect.stringContaining('overlaps'),
      'weekly.thursday.0.end': expect.any(String),
      'weekly.Friday': expect.stringContaining('weekday'),
      'weekly.caturday': expect.stringContaining('weekday'),
      'exceptions.0.date': expect.any(String),
      'exceptions.1.periods.0': expect.stringContaining('before'),
      'exceptions.2.date': expect.stringContaining('twice'),
    });
    expect(await readSiteSchedule(t.db)).toEqual(DEFAULT_SITE_SCHEDULE);
  });

  it('refuses shape violations with 400 invalid_request', async () => {
    for (const body of [{}, { weekly: { monday: 'all day' } }, { weekly: { monday: [{ start: '09:00' }] } }, { weekly: {}, exceptions: [{ periods: [] }] }]) {
      const res = await call('PUT', '/schedule', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });

  it("an agent works the site's hours until given its own; DELETE returns it to the site's", async () => {
    const id = await insertAgent(t.db);
    const initial = await call('GET', `/agents/${id}/schedule`);
    expect(initial.status).toBe(200);
    expect(initial.body.data).toEqual({ ...DEFAULT_SITE_SCHEDULE, uses_site_schedule: true });

    const own = { weekly: { sunday: [{ start: '10:00', end: '14:00' }] }, exceptions: [{ date: '2027-01-03', periods: [] }] };
    const put = await call('PUT', `/agents/${id}/schedule`, own);
    expect(put.status).toBe(200);
    const expected = { weekly: { ...WEEK_OFF, sunday: [{ start: '10:00', end: '14:00' }] }, exceptions: [{ date: '2027-01-03', periods: [] }] };
    expect(put.body.data).toEqual({ ...expected, uses_site_schedule: false });
    const row = await t.db.selectFrom('agents').select('schedule').where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.schedule ?? 'null')).toEqual(expected);
    expect((await call('GET', `/agents/${id}/schedule`)).body.data.uses_site_schedule).toBe(false);

    const bad = await call('PUT', `/agents/${id}/schedule`, { weekly: { monday: [{ start: '25:00', end: '26:00' }] } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details).sort()).toEqual(['weekly.monday.0.end', 'weekly.monday.0.start']);

    const removed = await call('DELETE', `/agents/${id}/schedule`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: expect.any(String), data: { id, deleted: true } });
    expect((await call('GET', `/agents/${id}/schedule`)).body.data).toEqual({ ...DEFAULT_SITE_SCHEDULE, uses_site_schedule: true });
    const cleared = await t.db.selectFrom('agents').select('schedule').where('id', '=', id).executeTakeFirstOrThrow();
    expect(cleared.schedule).toBeNull();
  });

  it('answers 404 agent_not_found for the schedule of an unknown agent', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(method, '/agents/999999/schedule', method === 'PUT' ? { weekly: {} } : undefined);
      expect(res.status, method).toBe(404);
      expect(res.body.error.code).toBe('agent_not_found');
    }
  });

  it('reads with settings:read and writes with settings:write', async () => {
    const reader = await t.key({ permissions: ['settings:read'] });
    expect((await call('GET', '/schedule', undefined, reader)).status).toBe(200);
    expect((await call('PUT', '/schedule', DEFAULT_SITE_SCHEDULE, reader)).status).toBe(403);
    const agents = await t.key({ permissions: ['agents:read', 'agents:write'] });
    expect((await call('GET', '/schedule', undefined, agents)).status).toBe(403);
  });
});
