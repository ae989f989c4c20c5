/**
 * Renders every admin page with demo data in headless Chromium and saves PNGs under
 * docs/screenshots/. Run: npx tsx scripts/screenshots.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { BookingStatus } from '../src/modules/bookings/table.js';
import { setAdminPassword } from '../src/modules/admin/password.js';
import { writeSiteWeekly } from '../src/modules/admin/service.js';
import { createKey } from '../src/modules/api-keys/service.js';
import { insertEntries, type NewAuditEntry } from '../src/modules/audit/repository.js';
import { enqueueMail } from '../src/modules/mail/outbox.js';
import { DEFAULT_SITE_SCHEDULE } from '../src/modules/schedules/model.js';
import { setSettings } from '../src/modules/settings/service.js';
import { connectAgent, insertAgent, insertBooking, insertCustomer, insertLocation, insertService } from '../test/fixtures.js';

const OUT = path.resolve(import.meta.dirname, '../docs/screenshots');
const PASSWORD = 'screenshot password';
const DAY = '2030-01-07';

async function seed(app: Awaited<ReturnType<typeof buildApp>>): Promise<number> {
  const db = app.db;
  await setAdminPassword(db, PASSWORD);
  await setSettings(db, { timezone: 'Europe/Berlin', slot_interval_minutes: 15, min_lead_minutes: 60 });
  await writeSiteWeekly(db, { ...DEFAULT_SITE_SCHEDULE.weekly, saturday: [{ start: '10:00', end: '14:00' }] });

  const locationId = await insertLocation(db, { name: 'City Centre' });
  const services = [
    await insertService(db, { name: 'Haircut', duration: 45 }),
    await insertService(db, { name: 'Colouring', duration: 90 }),
    await insertService(db, { name: 'Consultation', duration: 30 }),
  ];
  const agents = [
    await insertAgent(db, { first_name: 'Grace', last_name: 'Hopper' }),
    await insertAgent(db, { first_name: 'Alan', last_name: 'Turing' }),
    await insertAgent(db, { first_name: 'Katherine', last_name: 'Johnson' }),
  ];
  for (const agentId of agents) await connectAgent(db, agentId, { serviceIds: services, locationIds: [locationId] });
  const customers = [];
  for (const [first, last] of [['Ada', 'Lovelace'], ['Edsger', 'Dijkstra'], ['Barbara', 'Liskov'], ['Donald', 'Knuth'], ['Frances', 'Allen']]) {
    customers.push(await insertCustomer(db, { first_name: first, last_name: last, email: `${first!.toLowerCase()}@example.com` }));
  }
  const plan: [agent: number, day: number, start: string, minutes: number, service: number, status: BookingStatus][] = [
    [0, 0, '09:00', 45, 0, 'approved'],
    [0, 0, '10:00', 90, 1, 'pending'],
    [0, 0, '13:30', 30, 2, 'completed'],
    [1, 0, '09:30', 90, 1, 'approved'],
    [1, 0, '11:30', 45, 0, 'cancelled'],
    [1, 0, '15:00', 30, 2, 'no_show'],
    [2, 0, '12:00', 45, 0, 'approved'],
    [2, 0, '14:00', 90, 1, 'approved'],
    [0, 1, '09:00', 45, 0, 'approved'],
    [1, 2, '10:00', 30, 2, 'pending'],
    [2, 3, '16:00', 45, 0, 'approved'],
    [0, 4, '11:00', 90, 1, 'approved'],
  ];
  let first = 0;
  for (const [i, [agent, day, start, minutes, service, status]] of plan.entries()) {
    const date = new Date(`${DAY}T00:00:00Z`);
    date.setUTCDate(date.getUTCDate() + day);
    const iso = date.toISOString().slice(0, 10);
    const [h, m] = start.split(':').map(Number) as [number, number];
    const endMinutes = h * 60 + m + minutes;
    const end = `${String(Math.floor(endMinutes / 60)).padStart(2, '0')}:${String(endMinutes % 60).padStart(2, '0')}`;
    const id = await insertBooking(
      db,
      { serviceId: services[service]!, agentId: agents[agent]!, locationId, customerId: customers[i % customers.length]! },
      {
        status,
        start_date: iso,
        start_time: start,
        end_date: iso,
        end_time: end,
        timezone: 'Europe/Berlin',
        duration: minutes,
        notes: status === 'pending' ? 'Asked for a window seat' : null,
      },
    );
    if (i === 1) first = id;
  }

  const keys = [
    await createKey(db, { name: 'Website widget', type: 'live', permissions: ['bookings:read', 'bookings:create', 'availability:read'] }),
    await createKey(db, { name: 'Reception app', type: 'live', permissions: ['*'] }),
    await createKey(db, { name: 'Staging', type: 'test', permissions: ['*'] }),
  ];
  const entries: NewAuditEntry[] = [];
  const now = Date.now();
  const paths = ['/booking-api/v1/availability', '/booking-api/v1/bookings', '/booking-api/v1/customers', '/booking-api/v1/status'];
  for (let minute = 0; minute < 24 * 60; minute += 4) {
    const hour = Math.floor(minute / 60);
    const busy = Math.sin((hour / 24) * Math.PI) ** 2;
    keys.forEach((key, k) => {
      if ((minute * (k + 3)) % 7 < busy * (6 - k * 2)) {
        const status = (minute + k) % 53 === 0 ? 500 : (minute + k) % 17 === 0 ? 404 : (minute + k) % 11 === 0 ? 422 : 200;
        entries.push({
          at: new Date(now - minute * 60_000).toISOString(),
          key_id: key.id,
          method: minute % 5 === 0 ? 'POST' : 'GET',
          path: paths[(minute + k) % paths.length]!,
          status,
          ip: `203.0.113.${10 + k}`,
          duration_ms: 3 + ((minute * 7 + k) % 40),
        });
      }
    });
    if (minute % 97 === 0) {
      entries.push({ at: new Date(now - minute * 60_000).toISOString(), key_id: null, method: 'GET', path: '/booking-api/v1/bookings', status: 401, ip: '198.51.100.7', duration_ms: 1.2 });
    }
  }
  await insertEntries(db, entries);
  await db.updateTable('api_keys').set({ last_used_at: new Date(now - 120_000).toISOString() }).where('id', '<=', keys[1]!.id).execute();

  const mails: Parameters<typeof enqueueMail>[1][] = [
    { kind: 'booking_confirmation', recipient: 'ada@example.com', subject: 'Your booking is confirmed', payload: {} },
    { kind: 'customer_welcome', recipient: 'edsger@example.com', subject: 'Welcome!', payload: {} },
    { kind: 'booking_change', recipient: 'barbara@example.com', subject: 'Your booking has changed', payload: {} },
    { kind: 'booking_confirmation', recipient: 'donald@example.com', subject: 'Your booking is confirmed', payload: {} },
    { kind: 'booking_confirmation', recipient: 'frances@invalid.example', subject: 'Your booking is confirmed', payload: {} },
  ];
  const outcomes = [
    { status: 'sent' as const, attempts: 1, last_error: null, sent_at: new Date(now - 3_000_000).toISOString() },
    { status: 'sent' as const, attempts: 2, last_error: null, sent_at: new Date(now - 2_000_000).toISOString() },
    { status: 'pending' as const, attempts: 1, last_error: 'connect ECONNREFUSED 10.0.0.25:25', next_attempt_at: new Date(now + 60_000).toISOString() },
    { status: 'pending' as const, attempts: 0, last_error: null },
    { status: 'failed' as const, attempts: 5, last_error: '550 5.1.1 <frances@invalid.example>: Recipient address rejected: User unknown' },
  ];
  for (const [i, mail] of mails.entries()) {
    const id = await enqueueMail(db, mail);
    await db.updateTable('outbox').set(outcomes[i]!).where('id', '=', id).execute();
  }
  return first;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-screens-'));
  const app = await buildApp(
    loadConfig({ DATABASE_URL: `sqlite:${path.join(dir, 'booking.db')}`, LOG_LEVEL: 'silent', SITE_TIMEZONE: 'Europe/Berlin' }),
    { logger: false, jobPollMs: false },
  );
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const bookingId = await seed(app);
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    page.on('dialog', (dialog) => void dialog.accept());
    fs.mkdirSync(OUT, { recursive: true });
    const shot = (name: string) => page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });

    await page.goto(`${base}/admin/login`);
    await shot('login');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(`${base}/admin/keys`);
    await page.fill('#create-key input[name=name]', 'Partner integration');
    await page.uncheck('#create-key input[value="*"]');
    for (const p of ['bookings:read', 'agents:read', 'services:read', 'availability:read']) await page.check(`#create-key input[value="${p}"]`);
    await page.click('#create-key button[type=submit]');
    await page.waitForSelector('#new-key-value');
    await shot('keys');
    await page.goto(`${base}/admin/log`);
    await shot('request-log');
    await page.goto(`${base}/admin/calendar?date=${DAY}`);
    await shot('calendar-day');
    await page.goto(`${base}/admin/calendar?date=${DAY}&view=week`);
    await shot('calendar-week');
    await page.goto(`${base}/admin/bookings/${bookingId}`);
    await shot('booking');
    await page.goto(`${base}/admin/settings`);
    await shot('settings');
    await page.goto(`${base}/admin/outbox`);
    await shot('outbox');
    process.stdout.write(`screenshots written to ${OUT}\n`);
  } finally {
    await browser.close();
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
