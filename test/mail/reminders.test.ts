import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/core/app.js';
import { MONDAY, newSite, requester, TUESDAY, type Site } from '../bookings/setup.js';
import { buildTestApp, DIALECTS, useTestApp, type TestEnv } from '../helper.js';
import { parseMail } from './parsed.js';
import { startSmtp, type TestSmtp } from './smtp.js';

const MINUTE = 60_000;
const at = (iso: string, minutesBefore: number) => new Date(Date.parse(iso) - minutesBefore * MINUTE);

describe.each(DIALECTS)('reminders (%s)', (dialect) => {
  let smtp: TestSmtp;
  const env: TestEnv = { MAIL_FROM: 'Salon <bookings@example.test>', PUBLIC_URL: 'https://book.example.test' };
  beforeAll(async () => {
    smtp = await startSmtp();
    env.SMTP_URL = smtp.url;
  });
  afterAll(async () => smtp.close());
  afterEach(() => vi.useRealTimers());
  const t = useTestApp(dialect, env);
  const call = requester(t);

  beforeAll(async () => {
    const res = await call('PUT', '/settings', { reminder_offsets_minutes: [120, 1440], staff_notifications: false, currency: 'EUR' });
    expect(res.json().data.reminder_offsets_minutes).toEqual([1440, 120]);
  });

  async function book(site: Site, date = MONDAY, time = '10:00'): Promise<{ id: number; startsAt: string; email: string }> {
    const res = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: date, start_time: time, send_confirmation: false });
    expect(res.statusCode).toBe(201);
    const booking = res.json().data;
    return { id: booking.id, startsAt: new Date(booking.start_datetime as string).toISOString(), email: booking.customer.email };
  }

  /** One round of the app's jobs at `now`, then the reminders its customer has received so far. */
  async function roundAt(app: App, now: Date, email: string) {
    await app.jobs.runOnce(now);
    return Promise.all(smtp.received.filter((m) => m.to.includes(email) && /^Subject: Reminder:/m.test(m.message)).map(parseMail));
  }

  it('sends each reminder at its time, once, with two instances on one database and across a restart', async () => {
    const site = await newSite(t.db);
    const { startsAt, email } = await book(site);
    expect(await roundAt(t.app, at(startsAt, 1440 + 1), email)).toHaveLength(0);
    expect(await roundAt(t.app, new Date(at(startsAt, 1440).getTime() - 1), email)).toHaveLength(0);

    const other = await buildTestApp(t.databaseUrl, env);
    try {
      const due = at(startsAt, 1440);
      await Promise.all([t.app.jobs.runOnce(due), other.jobs.runOnce(due), t.app.jobs.runOnce(due), other.jobs.runOnce(due)]);
      const [first, ...more] = await roundAt(other, at(startsAt, 1000), email);
      expect(more).toHaveLength(0);
      expect(first!.subject).toMatch(/^Reminder: .+ on 2030-01-07 10:00/);
      // What a reminder says: where (with the address), the price with its currency, the manage link.
      expect(first!.text).toContain('Address:');
      expect(first!.text).toMatch(/Price:\s+45\.00 EUR/);
      expect(first!.text).toContain('https://book.example.test/manage-booking/');
      expect(first!.html).toContain('45.00 EUR');
      expect(first!.calendar).toBeUndefined();
    } finally {
      await other.close();
    }

    // A restart: a new instance on the same database sends no reminder again, and the next one on time.
    const restarted = await buildTestApp(t.databaseUrl, env);
    try {
      expect(await roundAt(restarted, at(startsAt, 121), email)).toHaveLength(1);
      expect(await roundAt(restarted, at(startsAt, 120), email)).toHaveLength(2);
      expect(await roundAt(t.app, at(startsAt, 1), email)).toHaveLength(2);
      // Once it has started, nothing more.
      expect(await roundAt(t.app, at(startsAt, -5), email)).toHaveLength(2);
    } finally {
      await restarted.close();
    }
    const outcomes = await t.db.selectFrom('booking_reminders').select(['offset_minutes', 'outcome']).innerJoin('bookings', 'bookings.id', 'booking_reminders.booking_id').where('bookings.agent_id', '=', site.agentId).orderBy('offset_minutes', 'desc').execute();
    expect(outcomes).toEqual([
      { offset_minutes: 1440, outcome: 'sent' },
      { offset_minutes: 120, outcome: 'sent' },
    ]);
  });

  it('moves the reminders with a rescheduled booking and drops a cancelled booking\'s', async () => {
    const site = await newSite(t.db);
    const moved = await book(site, MONDAY, '11:00');
    expect(await roundAt(t.app, at(moved.startsAt, 1440), moved.email)).toHaveLength(1);
    expect((await call('PUT', `/bookings/${moved.id}`, { start_date: TUESDAY, start_time: '11:00' })).statusCode).toBe(200);
    const newStart = new Date(Date.parse(moved.startsAt) + 1440 * MINUTE).toISOString();
    // The old time's second reminder does not come; the new time's come at theirs.
    expect(await roundAt(t.app, at(moved.startsAt, 120), moved.email)).toHaveLength(1);
    const afterMove = await roundAt(t.app, at(newStart, 1440), moved.email);
    expect(afterMove).toHaveLength(2);
    expect(afterMove[1]!.subject).toMatch(/on 2030-01-08 11:00/);
    expect(await roundAt(t.app, at(newStart, 120), moved.email)).toHaveLength(3);

    const other = await newSite(t.db);
    const cancelled = await book(other, MONDAY, '12:00');
    expect((await call('PUT', `/bookings/${cancelled.id}`, { status: 'cancelled', send_notification: false })).statusCode).toBe(200);
    expect(await roundAt(t.app, at(cancelled.startsAt, 1440), cancelled.email)).toHaveLength(0);
    expect(await roundAt(t.app, at(cancelled.startsAt, 120), cancelled.email)).toHaveLength(0);
  });

  it('sends no late reminder for a booking made inside an offset', async () => {
    const site = await newSite(t.db);
    // Made ten hours before its start: past the day-before reminder, ahead of the two-hour one.
    const startsAt = `${MONDAY}T13:00:00.000Z`;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(startsAt, 600));
    const { email } = await book(site, MONDAY, '13:00');
    vi.useRealTimers();
    expect(await roundAt(t.app, at(startsAt, 599), email)).toHaveLength(0);
    const [reminder, ...more] = await roundAt(t.app, at(startsAt, 120), email);
    expect(more).toHaveLength(0);
    expect(reminder!.subject).toMatch(/on 2030-01-07 13:00/);
  });

  it('sends none when the site has no reminder offsets', async () => {
    const site = await newSite(t.db);
    const { startsAt, email } = await book(site, MONDAY, '15:00');
    await call('PUT', '/settings', { reminder_offsets_minutes: [] });
    try {
      expect(await roundAt(t.app, at(startsAt, 120), email)).toHaveLength(0);
    } finally {
      await call('PUT', '/settings', { reminder_offsets_minutes: [1440, 120] });
    }
  });
});
