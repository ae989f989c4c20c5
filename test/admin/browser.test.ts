import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../fixtures.js';
import { launchChromium } from '../browser.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { PASSWORD, storeCheapAdminPassword } from './session.js';

describe.each(DIALECTS)('admin page in Chromium (%s)', (dialect) => {
  const t = useTestApp(dialect);
  let browser: Browser;
  let page: Page;
  let base: string;
  let bookingId: number;
  let bookingCode: string;

  beforeAll(async () => {
    await storeCheapAdminPassword(t.db);
    const agentId = await insertAgent(t.db, { first_name: 'Grace', last_name: 'Hopper' });
    const serviceId = await insertService(t.db, { name: 'Consultation' });
    const locationId = await insertLocation(t.db);
    await connectAgent(t.db, agentId, { serviceIds: [serviceId], locationIds: [locationId] });
    const customerId = await insertCustomer(t.db, { first_name: 'Ada', last_name: 'Lovelace' });
    bookingId = await insertBooking(t.db, { serviceId, agentId, locationId, customerId });
    bookingCode = (await t.db.selectFrom('bookings').select('booking_code').where('id', '=', bookingId).executeTakeFirstOrThrow()).booking_code;

    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage();
    // The revoke button asks for confirmation.
    page.on('dialog', (dialog) => void dialog.accept());
  });
  afterAll(async () => {
    await browser?.close();
  });

  const status = async (key: string) =>
    (await fetch(`${base}/booking-api/v1/status`, { headers: { 'x-api-key': key } })).status;

  it('signs in, creates a key shown once, uses it, revokes it, finds the calls in the log, and views a booking', async () => {
    await page.goto(`${base}/admin`);
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    await page.fill('input[name=password]', 'wrong password');
    await page.click('button:has-text("Sign in")');
    await expect.poll(() => page.textContent('[role=alert]')).toContain('Wrong password.');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(`${base}/admin/keys`);

    // Create a key; its value is on this page only.
    await page.fill('#create-key input[name=name]', 'Browser key');
    await page.selectOption('#create-key select[name=type]', 'test');
    await page.uncheck('#create-key input[value="*"]');
    await page.check('#create-key input[value="bookings:read"]');
    await page.click('#create-key button[type=submit]');
    const key = (await page.textContent('#new-key-value'))!.trim();
    expect(key).toMatch(/^bk_test_[\w-]{32,}$/);
    expect(await page.textContent('#keys')).toContain('Browser key');
    await page.goto(`${base}/admin/keys`);
    expect(await page.content()).not.toContain(key);
    const row = page.locator('#keys tr', { hasText: 'Browser key' });
    expect(await row.textContent()).toContain('bookings:read');

    // Use it from outside the browser.
    expect(await status(key)).toBe(200);
    expect(await status(key)).toBe(200);

    // Revoke it; the next call is refused.
    await row.locator('button:has-text("Revoke")').click();
    await page.waitForURL(/\/admin\/keys\?revoked=\d+$/);
    expect(await page.textContent('[role=status]')).toContain('Key “Browser key”');
    expect(await page.locator('#keys tr', { hasText: 'Browser key' }).textContent()).toContain('inactive');
    expect(await status(key)).toBe(401);

    // The calls are in the request log.
    await t.app.audit.flush();
    await page.click('nav a:has-text("Request log")');
    const keyOption = await page.locator('#log-filter select[name=key] option', { hasText: 'Browser key' }).getAttribute('value');
    await page.selectOption('#log-filter select[name=key]', keyOption);
    await page.click('#log-filter button[type=submit]');
    await page.waitForURL(/\/admin\/log\?key=\d+/);
    const withKey = await page.locator('#log tbody tr').allTextContents();
    expect(withKey).toHaveLength(2);
    for (const text of withKey) expect(text).toMatch(/Browser key.*GET\/booking-api\/v1\/status200/);
    expect(await page.locator('#usage-chart polyline').count()).toBe(1);

    await page.selectOption('#log-filter select[name=key]', 'none');
    await page.selectOption('#log-filter select[name=status]', '4xx');
    await page.click('#log-filter button[type=submit]');
    await page.waitForURL(/status=4xx/);
    expect(await page.locator('#log tbody tr').allTextContents()).toEqual([expect.stringMatching(/no valid keyGET\/booking-api\/v1\/status401/)]);

    // The booking in the calendar, and its details.
    await page.goto(`${base}/admin/calendar?date=2030-01-07`);
    const booking = page.locator(`#calendar a[href="/admin/bookings/${bookingId}"]`);
    expect(await booking.getAttribute('class')).toBe('bk approved');
    expect(await booking.textContent()).toBe('10:00–11:00 Consultation · Ada Lovelace');
    await booking.click();
    await page.waitForURL(`${base}/admin/bookings/${bookingId}`);
    const details = await page.textContent('#booking');
    expect(details).toContain(bookingCode);
    expect(details).toContain('Grace Hopper');
    expect(details).toContain('2030-01-07 10:00 (UTC)');

    await page.goto(`${base}/admin/calendar?date=2030-01-07&view=week`);
    expect(await page.locator(`#calendar a[href="/admin/bookings/${bookingId}"]`).count()).toBe(1);
  });
});
