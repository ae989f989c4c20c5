import { describe, expect, it } from 'vitest';
import { getSettings } from '../../src/modules/settings/service.js';
import { cli, createTestDatabase, DIALECTS, useTestApp } from '../helper.js';
import { MAX_ADVANCE_DAYS } from '../../src/core/limits.js';
import { caller } from '../catalog/support.js';

/** The message settings of a new site: a reminder the day before, agents told of their bookings. */
const MESSAGES = { reminder_offsets_minutes: [1440], staff_notifications: true };

describe.each(DIALECTS)('GET/PUT /settings (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  const call = caller(t);

  it('answers the site settings of a new database (test apps lift max_advance_days, whose default is 365)', async () => {
    const res = await call('GET', '/settings');
    expect(res.status).toBe(200);
    const cutoffs = { cancel_cutoff_minutes: 0, reschedule_cutoff_minutes: 0 };
    expect(res.body).toEqual({
      success: true,
      data: { timezone: 'Europe/Berlin', slot_interval_minutes: 30, min_lead_minutes: 0, max_advance_days: MAX_ADVANCE_DAYS, ...cutoffs, currency: 'USD', ...MESSAGES },
    });
    const fresh = await createTestDatabase(dialect);
    try {
      expect((await cli(fresh.url, ['settings', 'get', 'max_advance_days'])).stdout).toBe('365\n');
    } finally {
      await fresh.drop();
    }
  });

  it('changes only the settings sent', async () => {
    const res = await call('PUT', '/settings', { slot_interval_minutes: 15 });
    expect(res.status).toBe(200);
    const cutoffs = { cancel_cutoff_minutes: 0, reschedule_cutoff_minutes: 0 };
    expect(res.body.data).toEqual({ timezone: 'Europe/Berlin', slot_interval_minutes: 15, min_lead_minutes: 0, max_advance_days: MAX_ADVANCE_DAYS, ...cutoffs, currency: 'USD', ...MESSAGES });
    const again = await call('PUT', '/settings', { timezone: 'America/New_York', min_lead_minutes: 120, max_advance_days: 30, reschedule_cutoff_minutes: 1440 });
    expect(again.body.data).toEqual({
      timezone: 'America/New_York',
      slot_interval_minutes: 15,
      min_lead_minutes: 120,
      max_advance_days: 30,
      ...cutoffs,
      reschedule_cutoff_minutes: 1440,
      currency: 'USD',
      ...MESSAGES,
    });
    expect(await getSettings(t.db)).toEqual(again.body.data);
    expect((await call('GET', '/status')).body.data.timezone).toBe('America/New_York');
  });

  it('sets reminder offsets (largest first, [] for none) and staff notifications, and refuses bad ones naming the field', async () => {
    const res = await call('PUT', '/settings', { reminder_offsets_minutes: [30, 2880, 120], staff_notifications: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ reminder_offsets_minutes: [2880, 120, 30], staff_notifications: false });
    expect((await call('PUT', '/settings', { reminder_offsets_minutes: [] })).body.data.reminder_offsets_minutes).toEqual([]);
    expect(await getSettings(t.db)).toMatchObject({ reminder_offsets_minutes: [], staff_notifications: false });
    for (const [body, field] of [
      [{ reminder_offsets_minutes: [120, 120] }, 'reminder_offsets_minutes'],
      [{ reminder_offsets_minutes: [0] }, 'reminder_offsets_minutes'],
      [{ reminder_offsets_minutes: [1, 2, 3, 4, 5, 6] }, 'reminder_offsets_minutes'],
      [{ reminder_offsets_minutes: '1440' }, 'reminder_offsets_minutes'],
      [{ staff_notifications: 'yes' }, 'staff_notifications'],
    ] as const) {
      const bad = await call('PUT', '/settings', body);
      expect([400, 422], JSON.stringify(body)).toContain(bad.status);
      expect(JSON.stringify(bad.body.error.details), JSON.stringify(body)).toContain(field);
    }
    expect(await getSettings(t.db)).toMatchObject({ reminder_offsets_minutes: [], staff_notifications: false });
    await call('PUT', '/settings', MESSAGES);
  });

  it('stores a zone as the time zone database spells it', async () => {
    for (const [sent, stored] of [['europe/BERLIN', 'Europe/Berlin'], ['utc', 'UTC'], ['america/port-au-prince', 'America/Port-au-Prince'], ['Asia/Kolkata', 'Asia/Kolkata'], ['Etc/UTC', 'Etc/UTC']]) {
      const res = await call('PUT', '/settings', { timezone: sent });
      expect(res.status, sent).toBe(200);
      expect(res.body.data.timezone, sent).toBe(stored);
      expect((await call('GET', '/status')).body.data.timezone).toBe(stored);
    }
  });

  it('refuses invalid values with 422 naming each and stores none of them', async () => {
    const before = await getSettings(t.db);
    const res = await call('PUT', '/settings', {
      timezone: 'Mars/Olympus',
      slot_interval_minutes: 1,
      min_lead_minutes: -5,
      max_advance_days: 0,
      cancel_cutoff_minutes: -1,
      reschedule_cutoff_minutes: 525601,
      currency: 'EURO',
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(Object.keys(res.body.error.details).sort()).toEqual([
      'cancel_cutoff_minutes',
      'currency',
      'max_advance_days',
      'min_lead_minutes',
      'reschedule_cutoff_minutes',
      'slot_interval_minutes',
      'timezone',
    ]);
    const partial = await call('PUT', '/settings', { timezone: 'Europe/Paris', slot_interval_minutes: 721 });
    expect(partial.status).toBe(422);
    expect(await getSettings(t.db)).toEqual(before);
  });

  it('refuses wrong types with 400 invalid_request', async () => {
    const res = await call('PUT', '/settings', { slot_interval_minutes: 'often' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toHaveProperty('slot_interval_minutes');
  });

  it('needs settings:read and settings:write', async () => {
    const reader = await t.key({ permissions: ['settings:read'] });
    expect((await call('GET', '/settings', undefined, reader)).status).toBe(200);
    expect((await call('PUT', '/settings', { min_lead_minutes: 5 }, reader)).status).toBe(403);
    expect((await call('GET', '/settings', undefined, await t.key({ permissions: ['services:read'] }))).status).toBe(403);
  });
});
