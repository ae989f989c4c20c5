/**
 * Makes a booking through the API, lets the job runner send its confirmation, a reminder and
 * its cancellation to a local SMTP server, and saves each HTML part as Chromium renders it under
 * docs/screenshots/mail-*.png. Run: npx tsx scripts/mail-screenshots.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { escapeHtml } from '../src/lib/html.js';
import { createKey } from '../src/modules/api-keys/service.js';
import { setSettings } from '../src/modules/settings/service.js';
import { connectAgent, insertAgent, insertCustomer, insertLocation, insertService } from '../test/fixtures.js';
import { startSmtp } from '../test/mail/smtp.js';

const OUT = path.resolve(import.meta.dirname, '../docs/screenshots');
const API = '/booking-api/v1';

async function main(): Promise<void> {
  const smtp = await startSmtp();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-mails-'));
  const app = await buildApp(
    loadConfig({
      DATABASE_URL: `sqlite:${path.join(dir, 'booking.db')}`,
      LOG_LEVEL: 'silent',
      SITE_TIMEZONE: 'Europe/Berlin',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Salon Lumen <bookings@salon-lumen.example>',
      PUBLIC_URL: 'https://book.salon-lumen.example',
    }),
    { logger: false, jobPollMs: false },
  );
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    await app.ready();
    const db = app.db;
    await setSettings(db, { currency: 'EUR', reminder_offsets_minutes: [1440], max_advance_days: 3650 });
    const locationId = await insertLocation(db, { name: 'Salon Lumen, City Centre', full_address: 'Torstraße 12, 10119 Berlin' });
    const serviceId = await insertService(db, { name: 'Haircut and styling', duration: 45, charge_amount_cents: 4800 });
    const agentId = await insertAgent(db, { first_name: 'Grace', last_name: 'Hopper', email: 'grace@salon-lumen.example' });
    await connectAgent(db, agentId, { serviceIds: [serviceId], locationIds: [locationId] });
    const customerId = await insertCustomer(db, { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' });
    const { key } = await createKey(db, { name: 'screenshots' });
    const call = (method: 'POST' | 'PUT', url: string, payload: object) => app.inject({ method, url: `${API}${url}`, headers: { 'x-api-key': key }, payload });

    const made = await call('POST', '/bookings', { service_id: serviceId, agent_id: agentId, customer_id: customerId, location_id: locationId, start_date: '2030-03-29', start_time: '10:00', status: 'approved', send_confirmation: true });
    if (made.statusCode !== 201) throw new Error(`booking failed: ${made.body}`);
    const booking = made.json<{ data: { id: number; start_datetime: string } }>().data;
    await app.jobs.runOnce();
    await app.jobs.runOnce(new Date(Date.parse(booking.start_datetime) - 1440 * 60_000));
    await call('PUT', `/bookings/${booking.id}`, { status: 'cancelled' });
    await app.jobs.runOnce();

    const page = await browser.newPage({ viewport: { width: 720, height: 640 } });
    const wanted: [file: string, kind: RegExp][] = [
      ['mail-confirmation.png', /^Your booking .+: /],
      ['mail-reminder.png', /^Reminder: /],
      ['mail-cancellation.png', /^Your booking .+ is cancelled/],
      ['mail-staff-new-booking.png', /^New booking /],
    ];
    const parsed = await Promise.all(smtp.received.map((m) => simpleParser(m.raw)));
    for (const [file, subject] of wanted) {
      const mail = parsed.find((m) => subject.test(m.subject ?? ''));
      if (!mail || typeof mail.html !== 'string') throw new Error(`no mail for ${file}`);
      await page.setContent(`<div style="font:13px sans-serif;color:#555;border-bottom:1px solid #ddd;padding:8px 12px;margin:-8px -8px 8px">Subject: ${escapeHtml(mail.subject ?? '')}</div>${mail.html}`);
      await page.screenshot({ path: path.join(OUT, file), fullPage: true });
      process.stdout.write(`wrote docs/screenshots/${file}\n`);
    }
  } finally {
    await browser.close();
    await app.close();
    await smtp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
