import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONDAY, newSite, requester } from '../bookings/setup.js';
import { launchChromium } from '../browser.js';
import { DIALECTS, useTestApp } from '../helper.js';

describe.each(DIALECTS)("the customer's manage page in Chromium (%s)", (dialect) => {
  const t = useTestApp(dialect);
  const call = requester(t);
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('moves the booking to an offered time, then says why neither is possible within the cut-offs', async () => {
    const site = await newSite(t.db);
    const created = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId });
    expect(created.statusCode, created.body).toBe(201);
    const link = new URL(created.json().data.manage_booking_for_customer as string);

    await page.goto(`${base}${link.pathname}${link.search}`);
    expect(await page.textContent('dl')).toContain(`${MONDAY} 10:00–11:00`);
    const offered = await page.locator('select[name=slot] option').allTextContents();
    expect(offered.length).toBeGreaterThan(0);
    // The last one offered: the earliest could pass while the test runs.
    const slot = offered[offered.length - 1] as string;
    await page.selectOption('select[name=slot]', slot);
    await page.click('button:has-text("Move to this time")');
    await page.waitForURL(/done=rescheduled$/);
    expect(await page.textContent('.notice')).toBe('The booking is moved to its new time.');
    expect(await page.textContent('dl')).toContain(`${slot}–`);

    // The booking now starts within 14 days: cut-offs of 14 days close both.
    const cutoffs = await call('PUT', '/settings', { cancel_cutoff_minutes: 20160, reschedule_cutoff_minutes: 20160 });
    expect(cutoffs.statusCode).toBe(200);
    await page.reload();
    expect(await page.textContent('#cancel-refusal')).toBe('A booking can be cancelled here until 14 days before it starts; please contact us instead.');
    expect(await page.textContent('#reschedule-refusal')).toBe('A booking can be rescheduled here until 14 days before it starts; please contact us instead.');
    expect(await page.locator('button').count()).toBe(0);
  });
});
