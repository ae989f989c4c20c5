import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addAgent, newSite, requester, type Site } from '../bookings/setup.js';
import { DIALECTS, useTestApp, type Json, type TestEnv } from '../helper.js';
import { parseMail, type ParsedMail } from './parsed.js';
import { startSmtp, type TestSmtp } from './smtp.js';

// Europe/Berlin leaves winter time on Sunday 2030-03-31: 10:00 is 09:00Z on the Friday before, 08:00Z on the Monday after.
const FRIDAY = '2030-03-29';
const MONDAY = '2030-04-01';
const HOST = 'book.example.test';

describe.each(DIALECTS)('messages around a booking (%s)', (dialect) => {
  let smtp: TestSmtp;
  const env: TestEnv = { MAIL_FROM: 'Salon Lumen <bookings@example.test>', PUBLIC_URL: `https://${HOST}`, SITE_TIMEZONE: 'Europe/Berlin' };
  beforeAll(async () => {
    smtp = await startSmtp();
    env.SMTP_URL = smtp.url;
  });
  afterAll(async () => smtp.close());
  const t = useTestApp(dialect, env);
  const call = requester(t);

  beforeAll(async () => {
    await call('PUT', '/settings', { currency: 'EUR', reminder_offsets_minutes: [] });
  });
  beforeEach(async () => {
    await t.app.jobs.runOnce();
    smtp.received.length = 0;
  });

  async function book(site: Site, values: object = {}): Promise<Json> {
    const res = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: FRIDAY, start_time: '10:00', send_confirmation: true, ...values });
    expect(res.statusCode).toBe(201);
    return res.json().data;
  }

  /** Delivers what is due; the mails each address received, parsed as a mail client would. */
  async function delivered(): Promise<Map<string, ParsedMail[]>> {
    await t.app.jobs.runOnce();
    const byRecipient = new Map<string, ParsedMail[]>();
    for (const mail of smtp.received.splice(0)) {
      const parsed = await parseMail(mail);
      byRecipient.set(parsed.to, [...(byRecipient.get(parsed.to) ?? []), parsed]);
    }
    return byRecipient;
  }

  const manageForm = async (link: string, action: string, fields: Record<string, string> = {}) => {
    const url = new URL(link);
    const form = new URLSearchParams({ role: url.searchParams.get('role') ?? '', key: url.searchParams.get('key') ?? '', ...fields }).toString();
    const res = await t.app.inject({ method: 'POST', url: `${url.pathname}/${action}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
    expect(res.statusCode).toBe(303);
  };

  it('confirms to the customer and tells the agent, each with a calendar request whose instants hold across the DST change', async () => {
    const site = await newSite(t.db);
    const booking = await book(site, { status: 'approved' });
    const mails = await delivered();
    const [confirmation] = mails.get(booking.customer.email) ?? [];
    const [notice] = mails.get(booking.agent.email) ?? [];
    expect(confirmation!.subject).toMatch(/^Your booking .+ on 2030-03-29 10:00$/);
    expect(notice!.subject).toMatch(/^New booking .+ on 2030-03-29 10:00 with /);
    for (const mail of [confirmation!, notice!]) {
      // Both parts, the address of the place, the price in its currency, a manage link.
      expect(mail.text).toContain(`Address:`);
      expect(mail.text).toMatch(/Price:\s+45\.00 EUR/);
      expect(mail.html).toContain('45.00 EUR');
      expect(mail.text).toContain(`https://${HOST}/manage-booking/${booking.booking_code}?role=`);
      expect(mail.attachments).toContain('invite.ics');
      expect(mail.calendar).toMatchObject({ method: 'REQUEST', uid: `booking-${booking.id}@${HOST}`, sequence: 0, start: '2030-03-29T09:00:00.000Z', end: '2030-03-29T10:00:00.000Z', status: 'CONFIRMED' });
      expect(mail.calendar!.raw.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    }
    expect(confirmation!.text).toContain(`role=customer`);
    expect(notice!.text).toContain(`role=agent`);
    expect(notice!.text).toContain(booking.customer.full_name);

    // Moved across the change of offset: the same UID, a higher SEQUENCE, the new instants.
    const moved = await call('PUT', `/bookings/${booking.id}`, { start_date: MONDAY, start_time: '10:00', send_notification: true });
    expect(moved.statusCode).toBe(200);
    const after = await delivered();
    const [change] = after.get(booking.customer.email) ?? [];
    const [staffChange] = after.get(booking.agent.email) ?? [];
    for (const mail of [change!, staffChange!]) {
      expect(mail.calendar).toMatchObject({ method: 'REQUEST', uid: `booking-${booking.id}@${HOST}`, sequence: 1, start: '2030-04-01T08:00:00.000Z', end: '2030-04-01T09:00:00.000Z' });
      expect(mail.text).toContain('Date: 2030-03-29 → 2030-04-01');
    }
    expect(staffChange!.subject).toMatch(/^Booking .+ has changed/);

    // A change of nothing either sees sends nothing.
    expect((await call('PUT', `/bookings/${booking.id}`, { notes: 'window seat', send_notification: true })).statusCode).toBe(200);
    expect((await delivered()).size).toBe(0);
  });

  it('tells the former agent of a cancellation and the new one of a booking when the agent changes', async () => {
    const site = await newSite(t.db);
    const second = await addAgent(t.db, site);
    const booking = await book(site, { send_confirmation: false });
    await delivered();
    const res = await call('PUT', `/bookings/${booking.id}`, { agent_id: second });
    expect(res.statusCode).toBe(200);
    const mails = await delivered();
    expect(mails.get(booking.customer.email)).toBeUndefined();
    const [former] = mails.get(booking.agent.email) ?? [];
    const [next] = mails.get(res.json().data.agent.email) ?? [];
    expect(former!.calendar).toMatchObject({ method: 'CANCEL', uid: `booking-${booking.id}@${HOST}`, sequence: 1, status: 'CANCELLED' });
    expect(next!.calendar).toMatchObject({ method: 'REQUEST', uid: `booking-${booking.id}@${HOST}`, sequence: 1 });
  });

  it('sends a cancellation with a calendar CANCEL to both for every way a booking ends', async () => {
    const ways: [string, (booking: Json) => Promise<void>][] = [
      ['PUT status cancelled', async (b) => void expect((await call('PUT', `/bookings/${b.id}`, { status: 'cancelled' })).statusCode).toBe(200)],
      ['the customer\'s manage link', (b) => manageForm(b.manage_booking_for_customer, 'cancel')],
      ['the agent\'s manage link', (b) => manageForm(b.manage_booking_for_agent, 'cancel')],
      ['DELETE', async (b) => void expect((await call('DELETE', `/bookings/${b.id}`)).statusCode).toBe(200)],
      ['cancelling its order', async (b) => void expect((await call('PUT', `/orders/${b.order_id}`, { status: 'cancelled' })).statusCode).toBe(200)],
    ];
    for (const [way, end] of ways) {
      const site = await newSite(t.db);
      const booking = await book(site, { send_confirmation: false, status: 'approved' });
      await delivered();
      await end(booking);
      const mails = await delivered();
      const [customer] = mails.get(booking.customer.email) ?? [];
      const [agent] = mails.get(booking.agent.email) ?? [];
      expect(customer?.subject, way).toMatch(/^Your booking .+ is cancelled/);
      expect(agent?.subject, way).toMatch(/^Booking .+ is cancelled/);
      for (const mail of [customer!, agent!]) {
        expect(mail.calendar, way).toMatchObject({ method: 'CANCEL', uid: `booking-${booking.id}@${HOST}`, sequence: 1, start: '2030-03-29T09:00:00.000Z', status: 'CANCELLED' });
      }
    }
  });

  it('tells the agent of the customer\'s move through the manage link and of each booking of a bulk request', async () => {
    const site = await newSite(t.db);
    const booking = await book(site, { send_confirmation: false, status: 'approved' });
    await delivered();
    await manageForm(booking.manage_booking_for_customer, 'reschedule', { slot: `${FRIDAY} 12:00` });
    const mails = await delivered();
    expect(mails.get(booking.agent.email)?.[0]?.calendar).toMatchObject({ method: 'REQUEST', start: '2030-03-29T11:00:00.000Z', sequence: 1 });
    expect(mails.get(booking.customer.email)?.[0]?.subject).toMatch(/has changed/);

    const element = (time: string) => ({ service_id: site.serviceId, agent_id: site.agentId, customer_id: site.customerId, start_date: MONDAY, start_time: time });
    expect((await call('POST', '/bookings/bulk', { bookings: [element('13:00'), element('15:00')] })).statusCode).toBe(201);
    const bulk = await delivered();
    expect((bulk.get(booking.agent.email) ?? []).map((m) => m.calendar?.start).sort()).toEqual(['2030-04-01T11:00:00.000Z', '2030-04-01T13:00:00.000Z']);
    expect(bulk.get(booking.customer.email)).toBeUndefined();
  });

  it('sends agents nothing when the site turned staff notifications off', async () => {
    const site = await newSite(t.db);
    await call('PUT', '/settings', { staff_notifications: false });
    try {
      const booking = await book(site);
      expect((await call('PUT', `/bookings/${booking.id}`, { status: 'cancelled' })).statusCode).toBe(200);
      const mails = await delivered();
      expect(mails.get(booking.agent.email)).toBeUndefined();
      expect((mails.get(booking.customer.email) ?? []).map((m) => m.calendar?.method)).toEqual(['REQUEST', 'CANCEL']);
    } finally {
      await call('PUT', '/settings', { staff_notifications: true });
    }
  });
});
