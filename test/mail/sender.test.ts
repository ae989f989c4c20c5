import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { enqueueMail } from '../../src/modules/mail/outbox.js';
import { JobRunner } from '../../src/modules/jobs/index.js';
import { mailQueue, type MailQueueOptions } from '../../src/modules/mail/sender.js';
import type { App } from '../../src/core/app.js';
import { MONDAY, newSite, requester } from '../bookings/setup.js';
import { buildTestApp, DIALECTS, testConfig, useTestApp, type TestEnv } from '../helper.js';
import { deadSmtpUrl, startSmtp, type TestSmtp } from './smtp.js';

const FROM = 'bookings@example.test';

const CONFIRMATION = {
  kind: 'booking_confirmation' as const,
  recipient: 'ada@example.test',
  subject: 'Your booking BK100 is confirmed',
  payload: {
    customer_name: 'Ada <Lovelace>',
    booking_code: 'BK100',
    service_name: 'Haircut',
    agent_name: 'Grace Hopper',
    location_name: 'Main Street',
    start_date: '2030-01-07',
    start_time: '10:00',
    end_time: '11:00',
    timezone: 'Europe/Berlin',
    price: '45.00',
    currency: 'EUR',
    booking_id: 100,
    manage_link_version: 2,
  },
};
const CHANGE = {
  kind: 'booking_change' as const,
  recipient: 'bob@example.test',
  subject: 'Your booking BK101 has changed',
  payload: { customer_name: 'Bob', booking_code: 'BK101', start_date: '2030-01-08', start_time: '14:30', changes: ['Time: 10:00 → 14:30'] },
};
const WELCOME = {
  kind: 'customer_welcome' as const,
  recipient: 'cleo@example.test',
  subject: 'Welcome',
  payload: { customer_name: 'Cleo', customer_code: 'CUST42', email: 'cleo@example.test' },
};

describe.each(DIALECTS)('mail sender (%s)', (dialect) => {
  let smtp: TestSmtp;
  const env: TestEnv = { MAIL_FROM: FROM };
  beforeAll(async () => {
    smtp = await startSmtp();
    env.SMTP_URL = smtp.url;
  });
  afterAll(async () => smtp.close());
  const t = useTestApp(dialect, env);

  beforeEach(async () => {
    await t.db.deleteFrom('outbox').execute();
    smtp.received.length = 0;
  });

  const outbox = () => t.db.selectFrom('outbox').selectAll().orderBy('id').execute();
  /** What became of the mail of one round of an app's job runner. */
  const mailRound = async (app: App, now?: Date) => (await app.jobs.runOnce(now)).mail;
  /** A runner with only a mail queue of these options, as another process would have. */
  const sender = (options: Omit<MailQueueOptions, 'from' | 'publicUrl'>) => {
    const queue = mailQueue({ from: FROM, publicUrl: 'http://localhost:3000', ...options });
    const runner = new JobRunner(t.db, t.app.log).addQueue(queue);
    return {
      runOnce: async (now?: Date) => (await runner.runOnce(now)).mail,
      stop: async () => {
        await runner.stop();
        queue.close();
      },
    };
  };

  it('delivers a confirmation, a change notice and a welcome to their recipients', async () => {
    for (const mail of [CONFIRMATION, CHANGE, WELCOME]) await enqueueMail(t.db, mail);

    expect(await mailRound(t.app)).toEqual({ sent: 3 });

    expect(smtp.received.map((m) => m.to)).toEqual([['ada@example.test'], ['bob@example.test'], ['cleo@example.test']]);
    expect(smtp.received.every((m) => m.from === FROM)).toBe(true);
    const [confirmation, change, welcome] = smtp.received.map((m) => m.message);

    expect(confirmation).toContain('Subject: Your booking BK100 is confirmed');
    expect(confirmation).toContain('Hello Ada <Lovelace>,');
    expect(confirmation).toContain('Hello Ada &#60;Lovelace&#62;,');
    expect(confirmation).toContain('Monday, 7 January 2030, 10:00–11:00 (Europe/Berlin)');
    expect(confirmation).toContain('Grace Hopper');
    expect(confirmation).toContain('Main Street');
    expect(confirmation).toContain('45.00 EUR');
    // The link is made as the mail is sent, from the version the row names.
    const link = t.app.manageLinks.url('customer', { id: 100, booking_code: 'BK100', manage_link_version: 2 });
    expect(link).toMatch(/\/manage-booking\/BK100\?role=customer&key=[\w-]{32}$/);
    expect(confirmation).toContain(`View or change your booking: ${link}`);
    expect(confirmation).toContain(`href="${link.replace('&', '&#38;')}"`);
    expect(confirmation).toMatch(/Content-Type: text\/plain/);
    expect(confirmation).toMatch(/Content-Type: text\/html/);

    expect(change).toContain('Subject: Your booking BK101 has changed');
    expect(change).toContain('Your booking has changed');
    expect(change).toContain('- Time: 10:00 → 14:30');
    expect(change).toContain('Tuesday, 8 January 2030, 14:30');

    expect(welcome).toContain('Subject: Welcome');
    expect(welcome).toContain('Hello Cleo,');
    expect(welcome).toContain('CUST42');

    for (const row of await outbox()) {
      expect(row).toMatchObject({ status: 'sent', attempts: 1, last_error: null, locked_until: null });
      expect(row.sent_at).not.toBeNull();
    }
  });

  it('renders what the API writes: the welcome, a confirmation with its time, and a change notice saying what changed', async () => {
    const site = await newSite(t.db);
    const call = requester(t);
    const customer = await call('POST', '/customers', { first_name: 'Cleo', last_name: 'Park', email: 'cleo.park@example.test' });
    expect(customer.statusCode).toBe(201);
    const created = await call('POST', '/bookings', {
      service_id: site.serviceId,
      agent_id: site.agentId,
      customer_id: customer.json().data.id,
      start_date: MONDAY,
      start_time: '10:00',
      send_confirmation: true,
    });
    expect(created.statusCode).toBe(201);
    const moved = await call('PUT', `/bookings/${created.json().data.id}`, { start_time: '11:30', status: 'approved', send_notification: true });
    expect(moved.statusCode).toBe(200);

    // The customer's three, and the agent's notices of the new booking and of its move.
    expect(await mailRound(t.app)).toMatchObject({ sent: 5 });
    const [welcome, confirmation, change] = smtp.received.filter((m) => m.to.includes('cleo.park@example.test')).map((m) => m.message);
    const agentEmail = created.json().data.agent.email as string;
    expect(smtp.received.filter((m) => m.to.includes(agentEmail)).map((m) => /^Subject: (.*)$/m.exec(m.message)?.[1])).toEqual([
      expect.stringMatching(/^New booking /),
      expect.stringMatching(/^Booking .+ has changed/),
    ]);

    expect(welcome).toContain('Hello Cleo Park,');
    expect(welcome).toMatch(/Email: +cleo\.park@example\.test/);
    expect(confirmation).toContain('We have received your booking; it awaits confirmation.');
    expect(confirmation).toMatch(/When: +Monday, 7 January 2030, 10:00–11:00 \(UTC\)/);
    expect(change).toMatch(/When: +Monday, 7 January 2030, 11:30–12:30 \(UTC\)/);
    expect(change).toContain('- Time: 10:00–11:00 → 11:30–12:30');
    expect(change).toContain('- Status: pending → approved');
    expect(change).not.toContain('- Date:');
    expect(confirmation).toContain(created.json().data.manage_booking_for_customer);
    expect(change).toContain(created.json().data.manage_booking_for_customer);
  });

  it('retries a refused mail with growing delays, then marks it failed with the error', async () => {
    const refusing = await startSmtp({ refuse: true });
    const runner = sender({ smtpUrl: refusing.url, maxAttempts: 3, baseDelayMs: 60_000 });
    try {
      await enqueueMail(t.db, WELCOME);
      const start = new Date(Date.now() + 1000);

      expect(await runner.runOnce(start)).toMatchObject({ retrying: 1 });
      let [row] = await outbox();
      expect(row).toMatchObject({ status: 'pending', attempts: 1, locked_until: null });
      expect(row!.last_error).toMatch(/550.*Mailbox unavailable/);
      expect(row!.next_attempt_at).toBe(new Date(start.getTime() + 60_000).toISOString());

      // Not due yet: nothing is attempted.
      expect(await runner.runOnce(start)).toEqual({});
      expect(refusing.attempts()).toBe(1);

      const second = new Date(start.getTime() + 60_000);
      await runner.runOnce(second);
      [row] = await outbox();
      expect(row).toMatchObject({ status: 'pending', attempts: 2 });
      expect(row!.next_attempt_at).toBe(new Date(second.getTime() + 120_000).toISOString());

      expect(await runner.runOnce(new Date(second.getTime() + 120_000))).toMatchObject({ failed: 1 });
      [row] = await outbox();
      expect(row).toMatchObject({ status: 'failed', attempts: 3, sent_at: null });
      expect(row!.last_error).toMatch(/Mailbox unavailable/);
      expect(refusing.attempts()).toBe(3);

      // A failed mail is final.
      await runner.runOnce(new Date(second.getTime() + 10 * 3_600_000));
      expect(refusing.attempts()).toBe(3);
    } finally {
      await runner.stop();
      await refusing.close();
    }
  });

  it('after a restart, sends mail left pending and mail whose sender died mid-send, not mail another sender holds', async () => {
    // The first process: its SMTP server is down, so the mail waits for a retry.
    const down = sender({ smtpUrl: await deadSmtpUrl() });
    await enqueueMail(t.db, CONFIRMATION);
    await down.runOnce();
    await down.stop();
    const [left] = await outbox();
    expect(left).toMatchObject({ status: 'pending', attempts: 1 });
    expect(left!.last_error).toMatch(/ECONNREFUSED/);

    // A mail claimed by a process that died before recording the outcome, and one claimed by a live one.
    const now = Date.now();
    const lapsed = await enqueueMail(t.db, CHANGE);
    await t.db.updateTable('outbox').set({ locked_until: new Date(now - 1000).toISOString() }).where('id', '=', lapsed).execute();
    const held = await enqueueMail(t.db, WELCOME);
    await t.db.updateTable('outbox').set({ locked_until: new Date(now + 3_600_000).toISOString() }).where('id', '=', held).execute();

    const restarted = await buildTestApp(t.databaseUrl, env);
    try {
      const result = await mailRound(restarted, new Date(Date.parse(left!.next_attempt_at) + 1));
      expect(result).toEqual({ sent: 2 });
    } finally {
      await restarted.close();
    }
    expect(smtp.received.map((m) => m.to[0]).sort()).toEqual(['ada@example.test', 'bob@example.test']);
    const rows = await outbox();
    expect(rows.map((r) => [r.recipient, r.status, r.attempts])).toEqual([
      ['ada@example.test', 'sent', 2],
      ['bob@example.test', 'sent', 1],
      ['cleo@example.test', 'pending', 0],
    ]);
  });

  it('stopping finishes the mail being sent and hands the rest of its batch back at once', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const first = new Promise<void>((resolve) => (arrived = resolve));
    const slow = await startSmtp({
      beforeAccept: async () => {
        arrived();
        await held;
      },
    });
    const runner = sender({ smtpUrl: slow.url });
    try {
      for (const mail of [CONFIRMATION, CHANGE, WELCOME]) await enqueueMail(t.db, mail);
      const round = runner.runOnce();
      await first;
      const stopped = runner.stop();
      release();
      await stopped;
      expect(await round).toEqual({ sent: 1 });
    } finally {
      await slow.close();
    }
    expect((await outbox()).map((r) => [r.status, r.attempts, r.locked_until])).toEqual([
      ['sent', 1, null],
      ['pending', 0, null],
      ['pending', 0, null],
    ]);
  });

  it('two instances on one database send each mail exactly once', async () => {
    for (let i = 0; i < 30; i++) await enqueueMail(t.db, { ...WELCOME, recipient: `user${i}@example.test` });
    const other = await buildTestApp(t.databaseUrl, env);
    try {
      const results = await Promise.all([mailRound(t.app), mailRound(other)]);
      expect((results[0]?.sent ?? 0) + (results[1]?.sent ?? 0)).toBe(30);
    } finally {
      await other.close();
    }
    const recipients = smtp.received.map((m) => m.to[0]);
    expect(recipients).toHaveLength(30);
    expect(new Set(recipients).size).toBe(30);
    expect((await outbox()).every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
  });

  it('marks mail not delivered when no SMTP server is configured', async () => {
    const runner = sender({ smtpUrl: undefined });
    await enqueueMail(t.db, WELCOME);
    expect(await runner.runOnce()).toEqual({ not_delivered: 1 });
    await runner.stop();
    const [row] = await outbox();
    expect(row).toMatchObject({ status: 'not_delivered', attempts: 1, last_error: 'SMTP_URL is not set', sent_at: null });
    expect(smtp.received).toHaveLength(0);
  });

  it('fails a mail it cannot render at once, without a retry', async () => {
    const unreadable = await enqueueMail(t.db, WELCOME);
    await t.db.updateTable('outbox').set({ payload: 'not json' }).where('id', '=', unreadable).execute();
    const unknown = await enqueueMail(t.db, WELCOME);
    await t.db.updateTable('outbox').set({ kind: 'newsletter' as never }).where('id', '=', unknown).execute();
    expect(await mailRound(t.app)).toMatchObject({ failed: 2 });
    const rows = await outbox();
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['failed', 1],
      ['failed', 1],
    ]);
    expect(rows[0]!.last_error).toMatch(/^cannot render: .*JSON/);
    expect(rows[1]!.last_error).toBe('cannot render: unknown mail kind "newsletter"');
    expect(smtp.received).toHaveLength(0);
  });

  it('a running service delivers on its own and stops its sender on close', async () => {
    const app = await buildApp(testConfig(t.databaseUrl, env), { logger: false, jobPollMs: 25 });
    await app.ready();
    try {
      await enqueueMail(t.db, WELCOME);
      await vi.waitFor(() => expect(smtp.received).toHaveLength(1), { timeout: 15_000, interval: 50 });
    } finally {
      await app.close();
    }
    expect((await outbox())[0]).toMatchObject({ status: 'sent' });
  });
});
