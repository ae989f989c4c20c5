import { describe, expect, it } from 'vitest';
import { DIALECTS, useTestApp, type Json } from '../helper.js';

describe.each(DIALECTS)('GET /status (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });

  it('answers the site timezone and the current time with its offset', async () => {
    const key = await t.key();
    const res = await t.app.inject({ method: 'GET', url: '/booking-api/v1/status', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(200);
    const body: Json = res.json();
    expect(body.status).toBe('success');
    expect(body.data.timezone).toBe('Europe/Berlin');
    expect(body.data.current_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0[12]:00$/);
    expect(Math.abs(Date.parse(body.data.current_time) - Date.now())).toBeLessThan(60_000);
  });
});
